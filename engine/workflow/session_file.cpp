// SPDX-License-Identifier: Apache-2.0
// Session files on SQLite's C API: prepared statements, one transaction per save into a temporary file that
// is renamed over the target, and a read-only, validated load.
#include "engine/workflow/session_file.h"
#include "engine/target/registry.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/output_file.h"
#include "engine/core/problem.h"
#include "engine/workflow/session_db.h"
#include "engine/workflow/session_records.h"

namespace pim {
namespace {

using session_db::Db;
using session_db::Stmt;

// One row per session; typed columns rather than key/value so a damaged file fails loudly on read. A
// predictor run keeps ~10^5 records that are only an id and maybe a prediction: a row each would take ~1.5 MB
// for the default session, so their ids and predictions are packed columns of the session row (draft_ids:
// zigzag varint deltas in record order; predictions: per predicted record a varint seq gap and a
// little-endian IEEE double), and `records` holds the few records with more (a simulation, an error, a
// compute-only run).
constexpr std::string_view kSchema = R"sql(
CREATE TABLE session(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  backend TEXT NOT NULL, backend_json TEXT NOT NULL,
  kernel TEXT NOT NULL, kernel_file TEXT NOT NULL, kernel_source TEXT NOT NULL,
  shape TEXT NOT NULL, strategy TEXT NOT NULL,
  staged_rearrangement INTEGER NOT NULL, group_commands INTEGER NOT NULL, max_simulations INTEGER NOT NULL,
  stage TEXT NOT NULL, generated INTEGER NOT NULL,
  remaining INTEGER NOT NULL, predicted INTEGER NOT NULL, simulated INTEGER NOT NULL,
  failed INTEGER NOT NULL, to_simulate INTEGER NOT NULL,
  best INTEGER, best_ns REAL NOT NULL, elapsed_s REAL NOT NULL,
  predictor_error_pct REAL, note TEXT NOT NULL,
  record_count INTEGER NOT NULL, draft_ids BLOB NOT NULL, predictions BLOB NOT NULL);
CREATE TABLE prune_rules(
  seq INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, enabled INTEGER NOT NULL, pruned INTEGER NOT NULL);
CREATE TABLE records(
  seq INTEGER PRIMARY KEY, compute_only_cycles INTEGER, error TEXT NOT NULL, EVAL_COLUMNS);
CREATE TABLE baselines(
  seq INTEGER PRIMARY KEY, name TEXT NOT NULL, available INTEGER NOT NULL, reason TEXT NOT NULL,
  summary TEXT NOT NULL, draft_id INTEGER, EVAL_COLUMNS);
CREATE TABLE view_state(key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE residency(
  id INTEGER PRIMARY KEY CHECK (id = 1), declared INTEGER NOT NULL, resident TEXT NOT NULL);
CREATE TABLE label_model(id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL);
CREATE TABLE element_type(id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL);
CREATE TABLE crossbar_timing(id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL);
CREATE TABLE network(id INTEGER PRIMARY KEY CHECK (id = 1), name TEXT NOT NULL);
CREATE TABLE history(
  number INTEGER PRIMARY KEY, wall_s REAL NOT NULL, cancelled INTEGER NOT NULL, origin TEXT NOT NULL,
  ended_ms INTEGER NOT NULL, session BLOB NOT NULL);
)sql";

// The session row's columns in the order save() binds and load() reads them (by name, so format 1's extra
// rule columns do not shift them).
constexpr std::string_view kSessionColumns =
    "backend, backend_json, kernel, kernel_file, kernel_source, shape, strategy, staged_rearrangement, "
    "group_commands, max_simulations, stage, generated, remaining, predicted, simulated, failed, "
    "to_simulate, "
    "best, best_ns, elapsed_s, predictor_error_pct, note, record_count, draft_ids, predictions";
constexpr int kSessionColumnCount = 25;

// Format 1 stored rules 1..3 positionally (columns rule1..rule3 and pruned1..pruned3 of the session row);
// these were the rules by those positions when it was current.
constexpr std::string_view kFormat1Rules[] = {"redundant", "simd-alignment", "performance-equivalence"};

// An Evaluation without its per-bank tables; all NULL for a record that was not simulated.
// resident_bytes holds Evaluation::placedBytes (the column kept its format-1 name).
constexpr std::string_view kEvalColumns =
    "eval_draft INTEGER, provenance INTEGER, in_cycles INTEGER, compute_cycles INTEGER, out_cycles INTEGER, "
    "total_cycles INTEGER, tck_ns REAL, time_ns REAL, energy_pj REAL, e_act_pre REAL, e_rd_wr REAL, "
    "e_pim_compute REAL, e_refresh REAL, e_host_io REAL, e_buffer_moves REAL, banks_used INTEGER, "
    "resident_bytes INTEGER, padding_bytes INTEGER, commands INTEGER, serial_segments INTEGER";
constexpr int kEvalColumnCount = 20;
constexpr std::string_view kEvalNames =
    "eval_draft, provenance, in_cycles, compute_cycles, out_cycles, total_cycles, tck_ns, time_ns, "
    "energy_pj, "
    "e_act_pre, e_rd_wr, e_pim_compute, e_refresh, e_host_io, e_buffer_moves, banks_used, resident_bytes, "
    "padding_bytes, commands, serial_segments";

std::string schemaSql() {
  std::string sql(kSchema);
  for (std::size_t at; (at = sql.find("EVAL_COLUMNS")) != std::string::npos;)
    sql.replace(at, 12, kEvalColumns);
  return sql;
}

std::string placeholders(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i ? ", ?" : "?";
  return s;
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

void bindEval(Stmt& s, const Evaluation* e) {  // NULL columns without one
  if (!e) {
    for (int i = 0; i < kEvalColumnCount; ++i) s.null();
    return;
  }
  s.u64(e->draft).i64(static_cast<std::int64_t>(e->provenance));
  for (std::int64_t c : e->cycles) s.i64(c);
  s.i64(e->totalCycles).f64(e->tCKns).f64(e->timeNs).f64(e->energyPj);
  s.f64(e->energy.actPre_pJ).f64(e->energy.rdWr_pJ).f64(e->energy.pimCompute_pJ).f64(e->energy.refresh_pJ);
  s.f64(e->energy.hostIo_pJ).f64(e->energy.bufferMoves_pJ);
  s.i64(e->unitsUsed).i64(e->placedBytes).i64(e->paddingBytes).i64(e->commands).i64(e->serialSegments);
}

/// Reads the evaluation columns starting at column `c`; nullopt when they are NULL.
std::optional<Evaluation> readEval(const Stmt& s, int c) {
  if (s.isNull(c + 5)) return std::nullopt;  // total_cycles
  Evaluation e;
  e.draft = s.colU64(c);
  const std::int64_t prov = s.colI64(c + 1);
  if (prov < 0 || prov > static_cast<std::int64_t>(Provenance::Analytic))
    throw InputError("unknown provenance " + std::to_string(prov));
  e.provenance = static_cast<Provenance>(prov);
  for (int p = 0; p < 3; ++p) e.cycles[static_cast<std::size_t>(p)] = s.colI64(c + 2 + p);
  e.totalCycles = s.colI64(c + 5);
  e.tCKns = s.colF64(c + 6);
  e.timeNs = s.colF64(c + 7);
  e.energyPj = s.colF64(c + 8);
  e.energy.actPre_pJ = s.colF64(c + 9);
  e.energy.rdWr_pJ = s.colF64(c + 10);
  e.energy.pimCompute_pJ = s.colF64(c + 11);
  e.energy.refresh_pJ = s.colF64(c + 12);
  e.energy.hostIo_pJ = s.colF64(c + 13);
  e.energy.bufferMoves_pJ = s.colF64(c + 14);
  e.unitsUsed = static_cast<int>(s.colI64(c + 15));
  e.placedBytes = s.colI64(c + 16);
  e.paddingBytes = s.colI64(c + 17);
  e.commands = s.colI64(c + 18);
  e.serialSegments = s.colI64(c + 19);
  return e;
}

void writeHistory(Db& db, const std::vector<SessionRun>& history);

void writeAll(Db& db, const SessionData& d) {
  db.exec(schemaSql(), "create schema");
  const SessionSettings& c = d.settings;
  const ExploreProgress& p = d.progress;
  // load() refuses such a file, so refuse to write one (inside the transaction: the target stays as it was).
  if (p.best && *p.best >= d.records.size())
    throw InputError(db.shown() + ": best record " + std::to_string(*p.best) + " of " +
                     std::to_string(d.records.size()) + " does not exist");
  {
    Stmt s(db,
           "INSERT INTO session(id, " + std::string(kSessionColumns) + ") VALUES (" +
               placeholders(1 + kSessionColumnCount) + ")",
           "write settings");
    s.i64(1).text(c.backend).text(c.backendJson).text(c.kernel).text(c.kernelFile).text(c.kernelSource);
    s.text(c.shape).text(c.strategy);
    s.i64(c.stagedRearrangement).i64(c.groupCommands).u64(c.maxSimulations);
    s.text(p.stage).u64(p.generated);
    s.u64(p.remaining).u64(p.predicted).u64(p.simulated).u64(p.failed).u64(p.toSimulate);
    s.opt(p.best).f64(p.bestNs).f64(p.elapsedSeconds).opt(d.predictorErrorPct).text(d.note);
    s.u64(d.records.size()).blob(packIds(d.records)).blob(packPredictions(d.records));
    s.insert();
  }
  {
    Stmt s(db, "INSERT INTO prune_rules(seq, name, enabled, pruned) VALUES (?, ?, ?, ?)", "write rules");
    // The registry's rules with the user's switches, then any rule the target's own space added (in force).
    const PruneRuleRegistry& rules = PruneRuleRegistry::builtin();
    std::uint64_t seq = 0;
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const std::string_view name = rules.at(i).name();
      const auto counted =
          std::find_if(p.pruned.begin(), p.pruned.end(), [&](const RuleCount& r) { return r.name == name; });
      s.u64(seq++).text(name).i64(i < c.rules.size() && c.rules[i]);
      s.u64(counted == p.pruned.end() ? 0 : counted->removed);
      s.insert();
    }
    for (const RuleCount& r : p.pruned) {
      if (rules.find(r.name)) continue;
      s.u64(seq++).text(r.name).i64(r.inForce).u64(r.removed);
      s.insert();
    }
  }
  {
    Stmt s(db,
           "INSERT INTO records(seq, compute_only_cycles, error, " + std::string(kEvalNames) + ") VALUES (" +
               placeholders(3 + kEvalColumnCount) + ")",
           "write records");
    for (std::size_t seq = 0; seq < d.records.size(); ++seq) {
      const DraftRecord& r = d.records[seq];
      if (!r.simulated && r.error.empty() && !r.computeOnlyCycles) continue;  // packed in the session row
      s.u64(seq).opt(r.computeOnlyCycles).text(r.error);
      bindEval(s, r.simulated.get());
      s.insert();
    }
  }
  {
    Stmt s(db,
           "INSERT INTO baselines(name, available, reason, summary, draft_id, " + std::string(kEvalNames) +
               ") VALUES (" + placeholders(5 + kEvalColumnCount) + ")",
           "write baselines");
    for (const Baseline& b : d.baselines) {
      s.text(b.name).i64(b.available).text(b.reason).text(b.summary);
      if (b.draft)
        s.u64(b.draft->id);
      else
        s.null();
      bindEval(s, &b.eval);
      s.insert();
    }
  }
  {
    // A table of its own (format 3) rather than a session column, so formats 1 and 2 keep their session row.
    Stmt s(db, "INSERT INTO residency(id, declared, resident) VALUES (1, ?, ?)", "write residency");
    s.i64(!c.resident).text(c.resident.value_or(""));
    s.insert();
  }
  // One-row tables of one name each, added by formats 4, 6, 7 and 8 (nameRow reads them back).
  for (const auto& [table, name] :
       {std::pair<std::string, std::string>{"label_model", std::string(labelModelName(c.model))},
        {"element_type", c.dtype},
        {"crossbar_timing", std::string(xbar::timingModelName(c.crossbarTiming))},
        {"network", c.network}}) {
    Stmt s(db, "INSERT INTO " + table + "(id, name) VALUES (1, ?)", "write " + table);
    s.text(name);
    s.insert();
  }
  {
    Stmt s(db, "INSERT INTO view_state(key, value) VALUES (?, ?)", "write view state");
    for (const auto& [key, value] : d.view) {
      s.text(key).blob(value);
      s.insert();
    }
  }
  writeHistory(db, d.history);
}

std::string immutableUri(const std::string& path) {
  std::string uri = "file:";
  for (char ch : path) {
    if (ch == '%' || ch == '?' || ch == '#') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(ch));
      uri += buf;
    } else {
      uri += ch;
    }
  }
  return uri + "?immutable=1";
}

std::int64_t pragmaInt(Db& db, const char* sql) {
  Stmt s(db, sql, "read header");
  return s.step() ? s.colI64(0) : 0;
}

void readSession(Db& db, SessionData& d) {
  Stmt s(db, "SELECT " + std::string(kSessionColumns) + " FROM session WHERE id = 1", "read settings");
  if (!s.step()) throw InputError("no session row");
  SessionSettings& c = d.settings;
  c.backend = s.colText(0);
  c.backendJson = s.colText(1);
  c.kernel = s.colText(2);
  c.kernelFile = s.colText(3);
  c.kernelSource = s.colText(4);
  c.shape = s.colText(5);
  c.strategy = s.colText(6);
  c.stagedRearrangement = s.colI64(7) != 0;
  c.groupCommands = s.colI64(8) != 0;
  c.maxSimulations = s.colU64(9);
  ExploreProgress& p = d.progress;
  p.stage = s.colText(10);
  p.generated = s.colU64(11);
  p.remaining = s.colU64(12);
  p.predicted = s.colU64(13);
  p.simulated = s.colU64(14);
  p.failed = s.colU64(15);
  p.toSimulate = s.colU64(16);
  if (!s.isNull(17)) p.best = static_cast<std::size_t>(s.colU64(17));
  p.bestNs = s.colF64(18);
  p.elapsedSeconds = s.colF64(19);
  if (!s.isNull(20)) d.predictorErrorPct = s.colF64(20);
  d.note = s.colText(21);
  const std::uint64_t count = s.colU64(22);
  const std::string ids = s.colText(23);
  if (count > ids.size()) throw InputError("record count " + std::to_string(count) + " exceeds the ids");
  d.records.resize(static_cast<std::size_t>(count));
  unpackRecords(ids, s.colText(24), d.records);
}

/// Rules by name onto PruneRuleRegistry::builtin(): a rule the file does not name did not exist when it was
/// saved, so it was not in force (off, nothing pruned); a rule this build no longer has is dropped.
void readRules(Db& db, std::int64_t version, SessionData& d) {
  const PruneRuleRegistry& registry = PruneRuleRegistry::builtin();
  d.settings.rules.assign(registry.size(), false);
  d.progress.pruned.clear();
  for (std::size_t i = 0; i < registry.size(); ++i)
    d.progress.pruned.push_back({registry.at(i).number(), std::string(registry.at(i).name()), false, 0});
  auto set = [&](std::string_view name, bool enabled, std::uint64_t pruned) {
    if (const auto i = registry.find(name)) {
      d.settings.rules[*i] = enabled;
      d.progress.pruned[*i].inForce = enabled;
      d.progress.pruned[*i].removed = pruned;
    } else {
      // Not this build's rule (a family space's own rule, or a retired one): its count is part of what the
      // saved run pruned, so it stays in the progress; there is no switch for it.
      const int number = static_cast<int>(d.progress.pruned.size()) + 1;
      d.progress.pruned.push_back({number, std::string(name), enabled, pruned});
    }
  };
  if (version == 1) {
    Stmt s(db, "SELECT rule1, rule2, rule3, pruned1, pruned2, pruned3 FROM session WHERE id = 1",
           "read rules");
    if (!s.step()) throw InputError("no session row");
    const int n = static_cast<int>(std::size(kFormat1Rules));
    for (int i = 0; i < n; ++i) set(kFormat1Rules[i], s.colI64(i) != 0, s.colU64(n + i));
    return;
  }
  Stmt s(db, "SELECT name, enabled, pruned FROM prune_rules ORDER BY seq", "read rules");
  while (s.step()) set(s.colText(0), s.colI64(1) != 0, s.colU64(2));
}

/// Format 3's residency; before it every tensor was streamed, so older files get an explicit "" (not the
/// kernel's declared default, which would no longer match their stored numbers).
void readResidency(Db& db, std::int64_t version, SessionSettings& c) {
  c.resident = "";
  if (version < 3) return;
  Stmt s(db, "SELECT declared, resident FROM residency WHERE id = 1", "read residency");
  if (!s.step()) throw InputError("no residency row");
  if (s.colI64(0) != 0)
    c.resident.reset();
  else
    c.resident = s.colText(1);
}

/// The name in one-row table `table`, added by format `since`; nullopt in older files.
std::optional<std::string> nameRow(Db& db, std::int64_t version, std::int64_t since,
                                   const std::string& table) {
  if (version < since) return std::nullopt;
  Stmt s(db, "SELECT name FROM " + table + " WHERE id = 1", "read " + table);
  if (!s.step()) throw InputError("no " + table + " row");
  return s.colText(0);
}

// Format 4 names the labelling model; earlier files were labelled by PIMScope's (the only one then).
void readLabelModel(Db& db, std::int64_t version, SessionSettings& c) {
  const auto name = nameRow(db, version, 4, "label_model");
  const auto m = name ? parseLabelModel(*name) : LabelModel::PimScope;
  if (!m)
    throw InputError("label_model: unknown model '" + *name + "' (pimscope, dcc-kernel or dcc-inference)");
  c.model = *m;
}

// Format 6 names the element type the kernel was retyped to; earlier files ran kernels as declared.
void readElementType(Db& db, std::int64_t version, SessionSettings& c) {
  c.dtype = nameRow(db, version, 6, "element_type").value_or("");
  if (!c.dtype.empty() && !parseDType(c.dtype))
    throw InputError("element_type: unknown type '" + c.dtype + "' (f16, bf16, f32, f64, i8, i32, i64)");
}

// Format 7 names the crossbar profiler's timing; earlier files ran PIMCOMP-NN's, the only one they offered.
void readCrossbarTiming(Db& db, std::int64_t version, SessionSettings& c) {
  const auto name = nameRow(db, version, 7, "crossbar_timing");
  const auto m = name ? xbar::parseTimingModel(*name) : xbar::TimingModel::PimcompNn;
  if (!m) throw InputError("crossbar_timing: unknown timing '" + *name + "' (pimcomp-nn or intended)");
  c.crossbarTiming = *m;
}

/// The integrity check and header of a session (a file, or a history run's serialized bytes): its format
/// version, or an InputError naming `shown`.
std::int64_t checkedVersion(Db& db, const std::string& shown) {
  // quick_check reads every page, so a truncated or damaged file is refused before anything is interpreted.
  {
    Stmt s(db, "PRAGMA quick_check", "integrity check");
    std::string problems;
    while (s.step() && problems.size() < 400) {
      const std::string line = s.colText(0);
      if (line != "ok") problems += (problems.empty() ? "" : "; ") + line;
    }
    if (!problems.empty()) throw InputError(shown + ": session file is corrupt (" + problems + ")");
  }
  const auto appId = static_cast<std::uint32_t>(pragmaInt(db, "PRAGMA application_id"));
  if (appId != SessionFile::kApplicationId) {
    if (appId == 0x50494D53) throw InputError(shown + ": a PIMScope results store, not a session file");
    throw InputError(shown + ": not a PIMScope session (application id " + hex32(appId) + ")");
  }
  const std::int64_t version = pragmaInt(db, "PRAGMA user_version");
  if (version > SessionFile::kSchemaVersion)
    throw InputError(shown + ": written by a newer PIMScope (session format " + std::to_string(version) +
                     ", this build reads up to " + std::to_string(SessionFile::kSchemaVersion) + ")");
  if (version < 1)
    throw InputError(shown + ": session file is corrupt (format version " + std::to_string(version) + ")");

  return version;
}

std::vector<SessionRun> readHistory(Db& db, std::int64_t version, const std::string& shown);

/// Everything of a session but its header, read from `db` (format `version`); errors name `shown`.
SessionData readAll(Db& db, std::int64_t version, const std::string& shown) {
  SessionData d;
  try {
    readSession(db, d);
    readRules(db, version, d);
    readResidency(db, version, d.settings);
    readLabelModel(db, version, d.settings);
    readElementType(db, version, d.settings);
    readCrossbarTiming(db, version, d.settings);
    // Format 8 names the shipped network a session compiled whole; earlier files explored kernels only.
    d.settings.network = nameRow(db, version, 8, "network").value_or("");
    {
      Stmt s(
          db,
          "SELECT seq, compute_only_cycles, error, " + std::string(kEvalNames) + " FROM records ORDER BY seq",
          "read records");
      while (s.step()) {
        const std::uint64_t seq = s.colU64(0);
        if (seq >= d.records.size()) throw InputError("record " + std::to_string(seq) + " out of range");
        DraftRecord& r = d.records[static_cast<std::size_t>(seq)];
        if (!s.isNull(1)) r.computeOnlyCycles = s.colI64(1);
        r.error = s.colText(2);
        if (auto e = readEval(s, 3)) r.simulated = std::make_shared<const Evaluation>(std::move(*e));
      }
    }
    {
      Stmt s(db,
             "SELECT name, available, reason, summary, draft_id, " + std::string(kEvalNames) +
                 " FROM baselines ORDER BY seq",
             "read baselines");
      while (s.step()) {
        Baseline b;
        b.name = s.colText(0);
        b.available = s.colI64(1) != 0;
        b.reason = s.colText(2);
        b.summary = s.colText(3);
        if (!s.isNull(4)) b.draft = Draft{s.colU64(4), {}};
        if (auto e = readEval(s, 5)) b.eval = std::move(*e);
        d.baselines.push_back(std::move(b));
      }
    }
    {
      Stmt s(db, "SELECT key, value FROM view_state", "read view state");
      while (s.step()) d.view[s.colText(0)] = s.colText(1);
    }
  } catch (const InputError& e) {
    const std::string what = e.what();
    // Errors from Db already name the file; structural ones (missing row, bad value) get it here.
    if (what.rfind(shown + ":", 0) == 0) throw;
    throw InputError(shown + ": session file is corrupt (" + what + ")");
  }
  if (d.progress.best && *d.progress.best >= d.records.size())
    throw InputError(shown + ": session file is corrupt (best record " + std::to_string(*d.progress.best) +
                     " of " + std::to_string(d.records.size()) + ")");
  d.history = readHistory(db, version, shown);
  return d;
}

/// `d` as the bytes of a session file of its own (an in-memory database, serialized): one history run.
std::string serialize(const SessionData& d, const std::string& shown) {
  if (!d.history.empty()) throw InputError(shown + ": a history run cannot hold a history of its own");
  Db mem(":memory:", shown, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  mem.exec("PRAGMA application_id = " + std::to_string(SessionFile::kApplicationId) +
               "; PRAGMA user_version = " + std::to_string(SessionFile::kSchemaVersion) + ";",
           "write header");
  mem.exec("BEGIN", "begin transaction");
  writeAll(mem, d);
  mem.exec("COMMIT", "commit");
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(mem.get(), "main", &size, 0);
  if (!bytes) throw InputError(shown + ": cannot serialize a history run (out of memory)");
  std::string out(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(size));
  sqlite3_free(bytes);
  return out;
}

/// A history run's bytes (serialize) read back with the checks a file gets.
SessionData deserialize(std::string_view bytes, const std::string& shown) {
  Db mem(":memory:", shown, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(std::max<std::size_t>(1, bytes.size())));
  if (!copy) throw InputError(shown + ": out of memory");
  std::memcpy(copy, bytes.data(), bytes.size());
  const auto n = static_cast<sqlite3_int64>(bytes.size());
  // FREEONCLOSE: SQLite owns the copy from here on, also when the call fails.
  const int rc = sqlite3_deserialize(mem.get(), "main", copy, n, n,
                                     SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
  if (rc != SQLITE_OK) mem.fail("read", rc);
  const std::int64_t version = checkedVersion(mem, shown);
  return readAll(mem, version, shown);
}

void writeHistory(Db& db, const std::vector<SessionRun>& history) {
  Stmt s(
      db,
      "INSERT INTO history(number, wall_s, cancelled, origin, ended_ms, session) VALUES (?, ?, ?, ?, ?, ?)",
      "write run history");
  for (const SessionRun& r : history) {
    s.i64(r.number).f64(r.wallSeconds).i64(r.cancelled).text(r.origin).i64(r.endedMs);
    s.blob(serialize(r.data, db.shown() + ": run " + std::to_string(r.number) + " of its history"));
    s.insert();
  }
}

std::vector<SessionRun> readHistory(Db& db, std::int64_t version, const std::string& shown) {
  std::vector<SessionRun> out;
  if (version < 5) return out;
  Stmt s(db, "SELECT number, wall_s, cancelled, origin, ended_ms, session FROM history ORDER BY number",
         "read run history");
  while (s.step()) {
    SessionRun r;
    r.number = static_cast<int>(s.colI64(0));
    r.wallSeconds = s.colF64(1);
    r.cancelled = s.colI64(2) != 0;
    r.origin = s.colText(3);
    r.endedMs = s.colI64(4);
    r.data = deserialize(s.colText(5), shown + ": run " + std::to_string(r.number) + " of its history");
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

void SessionFile::save(const std::string& path, const SessionData& data) {
  namespace fs = std::filesystem;
  // A temporary in the target's directory, so the final rename stays on one file system (atomic), created
  // empty and exclusively under an unpredictable name (SQLite then fills it: an empty file is a new
  // database).
  const std::string tmp = createTemporaryBeside(path);
  std::error_code ec;
  try {
    Db db(tmp, path, SQLITE_OPEN_READWRITE);
    // The temporary is thrown away on any failure, so it needs no rollback journal; FULL sync makes the data
    // durable before the rename publishes it.
    db.exec("PRAGMA journal_mode = MEMORY; PRAGMA synchronous = FULL;", "configure");
    db.exec("PRAGMA application_id = " + std::to_string(kApplicationId) +
                "; PRAGMA user_version = " + std::to_string(kSchemaVersion) + ";",
            "write header");
    db.exec("BEGIN", "begin transaction");
    writeAll(db, data);
    db.exec("COMMIT", "commit");
    db.close();
    fs::rename(tmp, path, ec);
    if (ec) throw InputError(path + ": cannot replace the file: " + ec.message());
  } catch (...) {
    fs::remove(tmp, ec);
    fs::remove(tmp + "-journal", ec);
    throw;
  }
}

SessionData SessionFile::load(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path + ": no such session file");
  requireRegularFile(path, "session file");  // a directory, device or FIFO said as such, never opened
  // immutable=1: no locks, no -wal/-shm created next to someone else's WAL database; the file is only read.
  Db db(immutableUri(path), path, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
  const std::int64_t version = checkedVersion(db, path);
  return readAll(db, version, path);
}

std::span<const std::string_view> format1RuleNames() { return kFormat1Rules; }

void resolveCandidates(const Problem& problem, std::vector<DraftRecord>& records,
                       std::vector<Baseline>& baselines) {
  const auto space = targetOf(problem.backend()).candidates(problem);
  for (DraftRecord& r : records) r.draft = space->candidate(r.draft.id);
  for (Baseline& b : baselines) {
    if (b.draft) b.draft = space->candidate(b.draft->id);
  }
}

void resolveDrafts(SessionData& data, const Problem& problem) {
  resolveCandidates(problem, data.records, data.baselines);
}

}  // namespace pim
