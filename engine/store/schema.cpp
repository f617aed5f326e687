// SPDX-License-Identifier: Apache-2.0
// Results-store schema as an ordered list of migrations. Never edit a shipped step: add a new one
// (docs/store.md).
#include <array>

#include "engine/store/store.h"

namespace pim {
namespace {

// v1: the initial schema. The `meta` table holds 'application_id' (also PRAGMA application_id) and
// 'schema_version' (updated by the migration runner after every step).
constexpr std::string_view kV1 = R"sql(
CREATE TABLE meta(
  key   TEXT PRIMARY KEY NOT NULL,
  value ANY NOT NULL
) STRICT;

CREATE TABLE backends(
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  hash TEXT NOT NULL UNIQUE,
  json TEXT NOT NULL
) STRICT;

CREATE TABLE problems(
  id            INTEGER PRIMARY KEY,
  backend_id    INTEGER NOT NULL REFERENCES backends(id) ON DELETE CASCADE,
  kernel        TEXT NOT NULL,
  kernel_source TEXT NOT NULL,
  shape         TEXT NOT NULL,
  UNIQUE(backend_id, kernel, shape)
) STRICT;

CREATE TABLE drafts(
  problem_id INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,
  draft_id   INTEGER NOT NULL,
  parts_json TEXT NOT NULL,
  features   BLOB NOT NULL,
  PRIMARY KEY(problem_id, draft_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE results(
  problem_id     INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,
  draft_id       INTEGER NOT NULL,
  schedule       TEXT NOT NULL CHECK(schedule IN ('draft', 'vendor', 'gpu', 'compute-centric')),
  options        TEXT NOT NULL,
  input_cycles   INTEGER NOT NULL,
  compute_cycles INTEGER NOT NULL,
  output_cycles  INTEGER NOT NULL,
  total_cycles   INTEGER NOT NULL,
  time_ns        REAL NOT NULL,
  energy_pj      REAL NOT NULL,
  energy_json    TEXT NOT NULL,
  banks_json     TEXT NOT NULL,
  created_at     INTEGER NOT NULL,
  PRIMARY KEY(problem_id, draft_id, schedule, options)
) STRICT, WITHOUT ROWID;

CREATE TABLE models(
  id             INTEGER PRIMARY KEY,
  backend_hash   TEXT NOT NULL,
  name           TEXT NOT NULL,
  created_at     INTEGER NOT NULL,
  bytes          BLOB NOT NULL,
  feature_schema TEXT NOT NULL,
  metadata       TEXT NOT NULL
) STRICT;
CREATE INDEX models_by_name ON models(backend_hash, name, created_at, id);

CREATE TABLE predictions(
  problem_id INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,
  draft_id   INTEGER NOT NULL,
  model_id   INTEGER NOT NULL REFERENCES models(id) ON DELETE CASCADE,
  value      REAL NOT NULL,
  PRIMARY KEY(problem_id, draft_id, model_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX predictions_by_model ON predictions(model_id);

CREATE TABLE lookup(
  backend_hash TEXT NOT NULL,
  kernel       TEXT NOT NULL,
  shape        TEXT NOT NULL,
  draft_id     INTEGER NOT NULL,
  time_ns      REAL NOT NULL,
  model_id     INTEGER REFERENCES models(id) ON DELETE SET NULL,
  PRIMARY KEY(backend_hash, kernel, shape)
) STRICT, WITHOUT ROWID;
)sql";

// v2: lookup entries record where they came from. Existing rows are classified by whether a model chose them.
constexpr std::string_view kV2 = R"sql(
ALTER TABLE lookup ADD COLUMN source TEXT NOT NULL DEFAULT '';
UPDATE lookup SET source = CASE WHEN model_id IS NULL THEN 'simulated' ELSE 'model' END;
)sql";

// v3: problems and lookup entries are keyed by what the kernel computes (kernel_hash, the hash of its IR)
// instead of its name, which a DSL file may reuse for another computation. Rows of older stores keep their
// name as 'name:<kernel>' in kernel_hash: no IR hash equals it, so they are never served for a kernel whose
// IR is unknown; upsertProblem adopts an old problem row whose stored source is the kernel's exact text.
// Both tables are rebuilt the SQLite way (their keys change); foreign keys are off during migrations.
constexpr std::string_view kV3 = R"sql(
CREATE TABLE problems_v3(
  id            INTEGER PRIMARY KEY,
  backend_id    INTEGER NOT NULL REFERENCES backends(id) ON DELETE CASCADE,
  kernel        TEXT NOT NULL,
  kernel_hash   TEXT NOT NULL,
  kernel_source TEXT NOT NULL,
  shape         TEXT NOT NULL,
  UNIQUE(backend_id, kernel_hash, shape)
) STRICT;
INSERT INTO problems_v3(id, backend_id, kernel, kernel_hash, kernel_source, shape)
  SELECT id, backend_id, kernel, 'name:' || kernel, kernel_source, shape FROM problems;
DROP TABLE problems;
ALTER TABLE problems_v3 RENAME TO problems;

CREATE TABLE lookup_v3(
  backend_hash TEXT NOT NULL,
  kernel_hash  TEXT NOT NULL,
  kernel       TEXT NOT NULL,
  shape        TEXT NOT NULL,
  draft_id     INTEGER NOT NULL,
  time_ns      REAL NOT NULL,
  model_id     INTEGER REFERENCES models(id) ON DELETE SET NULL,
  source       TEXT NOT NULL,
  PRIMARY KEY(backend_hash, kernel_hash, shape)
) STRICT, WITHOUT ROWID;
INSERT INTO lookup_v3(backend_hash, kernel_hash, kernel, shape, draft_id, time_ns, model_id, source)
  SELECT backend_hash, 'name:' || kernel, kernel, shape, draft_id, time_ns, model_id, source FROM lookup;
DROP TABLE lookup;
ALTER TABLE lookup_v3 RENAME TO lookup;
)sql";

// v4: conv mappings (docs/convmap.md, `map --db`), keyed by what they were solved for; a new table, no
// existing row changes.
constexpr std::string_view kV4 = R"sql(
CREATE TABLE mappings(
  hierarchy_hash  TEXT NOT NULL,
  hierarchy       TEXT NOT NULL,
  layer_key       TEXT NOT NULL,
  layer           TEXT NOT NULL,
  objective       TEXT NOT NULL,
  mapper          TEXT NOT NULL,
  mapping_json    TEXT NOT NULL,
  objective_value REAL NOT NULL,
  latency_cycles  INTEGER NOT NULL,
  energy_pj       REAL NOT NULL,
  row_activations INTEGER NOT NULL,
  status          TEXT NOT NULL,
  bound           REAL,
  gap             REAL,
  bound_source    TEXT NOT NULL,
  seconds         REAL NOT NULL,
  created_at      INTEGER NOT NULL,
  PRIMARY KEY(hierarchy_hash, layer_key, objective, mapper)
) STRICT, WITHOUT ROWID;
)sql";

// v5: completed work units of distributed labelling sweeps (ResultsStore::putSweepUnit, mergeFrom), keyed by
// the plan's hash and the unit's index so shards merge by key; a new table, no existing row changes.
constexpr std::string_view kV5 = R"sql(
CREATE TABLE sweep_units(
  plan       TEXT NOT NULL,
  unit       INTEGER NOT NULL,
  drafts     INTEGER NOT NULL,
  labelled   INTEGER NOT NULL,
  seconds    REAL NOT NULL,
  rank       INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY(plan, unit)
) STRICT, WITHOUT ROWID;
)sql";

constexpr std::array kMigrations = {
    StoreMigration{1, "initial schema", kV1},
    StoreMigration{2, "lookup.source", kV2},
    StoreMigration{3, "problems and lookup keyed by kernel_hash", kV3},
    StoreMigration{4, "conv mappings", kV4},
    StoreMigration{5, "sweep units", kV5},
};

}  // namespace

std::span<const StoreMigration> storeMigrations() { return kMigrations; }

int ResultsStore::schemaVersion() { return kMigrations.back().toVersion; }

}  // namespace pim
