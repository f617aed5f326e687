#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Writes the seed stores of fuzz_store (tests/fuzz/corpus/store) and the seed sessions of fuzz_session with the sqlite3 shell: v3 and v4 stores
# and a v1 store left for the migration, each with one row in every table, keyed as fuzz_store.cpp reads
# them, in 512-byte pages so a seed is a few KB; and the refused kinds: a newer schema, another application's
# database, a foreign-key violation the migration must catch, a truncated file. The schema is taken from
# engine/store/schema.cpp's migration steps, so the seeds follow it.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=tests/fuzz/corpus/store
mkdir -p "$out"
step() { awk -v n="$1" '/R"sql\(/{i++; on=(i==n); next} /\)sql"/{on=0} on' engine/store/schema.cpp; }
rows() {
  cat <<'SQL'
INSERT INTO backends VALUES (1, 'hbm-pim', 'b1', '{"name":"hbm-pim"}');
INSERT INTO models VALUES (1, 'b1', 'm', 5, x'00010203', '["f0","f1"]', '{"features":2}');
INSERT INTO drafts VALUES (1, 0, '[[0,1],[2]]', x'0000803f00000040');
INSERT INTO results VALUES (1, 0, 'draft', '', 10, 20, 30, 60, 45.5, 7.25, '{"ACT":1.5}', '[[1,2]]', 5);
INSERT INTO predictions VALUES (1, 0, 1, 44.0);
SQL
}
make_store() {  # file, schema version, extra SQL
  rm -f "$1"
  {
    echo "PRAGMA page_size = 512; PRAGMA application_id = $((0x50494D53));"
    for v in $(seq 1 "$2"); do step "$v"; done
    echo "INSERT INTO meta VALUES ('application_id', $((0x50494D53))), ('schema_version', $2);"
    rows
    echo "$3"
  } | sqlite3 "$1"
}
make_store "$out/v3.db" 3 "
INSERT INTO problems VALUES (1, 1, 'k', 'ir1:k', 'kernel k(n = 8) end', 'n=8');
INSERT INTO lookup VALUES ('b1', 'ir1:k', 'k', 'n=8', 0, 45.5, 1, 'simulated');"
make_store "$out/v4.db" 4 "
INSERT INTO problems VALUES (1, 1, 'k', 'ir1:k', 'kernel k(n = 8) end', 'n=8');
INSERT INTO lookup VALUES ('b1', 'ir1:k', 'k', 'n=8', 0, 45.5, 1, 'simulated');
INSERT INTO mappings VALUES ('h1', 'tiny', 'K=8', 'fc', 'latency', 'auto', '{\"levels\": []}', 10.0, 10, 2.5, 3,
  'optimal', 10.0, 0.0, 'exhaustive walk', 0.5, 5);"
make_store "$out/v1.db" 1 "
INSERT INTO problems VALUES (1, 1, 'k', 'kernel k(n = 8) end', 'n=8');
INSERT INTO lookup VALUES ('b1', 'k', 'n=8', 0, 45.5, 1);"
cp "$out/v3.db" "$out/newer.db"
sqlite3 "$out/newer.db" "UPDATE meta SET value = 99 WHERE key = 'schema_version'"
cp "$out/v3.db" "$out/foreign.db"
sqlite3 "$out/foreign.db" "PRAGMA application_id = $((0x50534553))"
make_store "$out/v1_dangling.db" 1 "
INSERT INTO problems VALUES (1, 7, 'k', 'kernel k(n = 8) end', 'n=8');"
head -c 1500 "$out/v3.db" >"$out/truncated.db"

# Sessions (fuzz_session): the shipped example and the format-1 fixture cut to their first 64 records (of
# 68,642: the packed draft-id and prediction columns) with 4 simulated ones, in 512-byte pages.
sessions=tests/fuzz/corpus/session
mkdir -p "$sessions"
small_session() {  # source, target
  cp "$1" "$2"
  python3 - "$2" <<'PY'
import sqlite3, struct, sys
KEEP = 64
def varint(b, i):
    v = shift = 0
    while True:
        v |= (b[i] & 0x7F) << shift
        shift += 7
        i += 1
        if not b[i - 1] & 0x80:
            return v, i
db = sqlite3.connect(sys.argv[1])
ids, preds = db.execute("SELECT draft_ids, predictions FROM session").fetchone()
i = 0
for _ in range(KEEP):
    _, i = varint(ids, i)
kept, j, seq = b"", 0, 0
while j < len(preds):
    start = j
    gap, j = varint(preds, j)
    seq += gap
    j += 8
    if seq < KEEP:
        kept += preds[start:j]
    seq += 1
db.execute("UPDATE session SET record_count = ?, draft_ids = ?, predictions = ?, best = 0",
           (KEEP, ids[:i], kept))
rows = [r[0] for r in db.execute("SELECT seq FROM records ORDER BY seq LIMIT 4")]
db.execute("DELETE FROM records WHERE seq NOT IN (%s)" % ",".join(map(str, rows)))
for n, r in enumerate(rows):
    db.execute("UPDATE records SET seq = ? WHERE seq = ?", (n, r))
db.commit()
db.execute("PRAGMA page_size = 512")
db.execute("VACUUM")
PY
}
small_session datasets/sessions/gemv_hbm-pim.pimsession "$sessions/gemv_hbm-pim.pimsession"
small_session tests/data/sessions/format1_gemv_hbm-pim.pimsession "$sessions/format1.pimsession"
# Format 5: the small example as a run history of one run (its bytes in a `history` row), the outer file
# otherwise the same; the inner run carries the format-3/4 tables the shipped (format-2) example lacks.
python3 - "$sessions/gemv_hbm-pim.pimsession" "$sessions/history_format5.pimsession" <<'PY'
import os, shutil, sqlite3, sys, tempfile
history = ("CREATE TABLE history(number INTEGER PRIMARY KEY, wall_s REAL NOT NULL, cancelled INTEGER NOT NULL, "
           "origin TEXT NOT NULL, ended_ms INTEGER NOT NULL, session BLOB NOT NULL)")
def upgrade(path):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE IF NOT EXISTS residency(id INTEGER PRIMARY KEY CHECK (id = 1), "
               "declared INTEGER NOT NULL, resident TEXT NOT NULL)")
    db.execute("INSERT OR IGNORE INTO residency VALUES (1, 0, '')")
    db.execute("CREATE TABLE IF NOT EXISTS label_model(id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL)")
    db.execute("INSERT OR IGNORE INTO label_model VALUES (1, 'pimscope')")
    db.execute(history)
    db.execute("PRAGMA user_version = 5")
    db.commit()
    return db
inner = os.path.join(tempfile.mkdtemp(), "run.pimsession")
shutil.copy(sys.argv[1], inner)
db = upgrade(inner)
db.execute("DELETE FROM view_state")
db.commit()
db.execute("VACUUM")
db.close()
shutil.copy(sys.argv[1], sys.argv[2])
db = upgrade(sys.argv[2])
db.execute("INSERT INTO history VALUES (1, 0.5, 0, '', 1764000000000, ?)", (open(inner, "rb").read(),))
db.commit()
db.execute("VACUUM")
PY

# Each reader given the other's file, and truncated files.
cp "$out/v3.db" "$sessions/store_not_session.pimsession"
cp "$sessions/gemv_hbm-pim.pimsession" "$out/session_not_store.db"
head -c 3000 "$sessions/gemv_hbm-pim.pimsession" >"$sessions/truncated.pimsession"
