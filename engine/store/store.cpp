// SPDX-License-Identifier: Apache-2.0
// Results store on SQLite's C API: validated open (read-only first), migrations, cached prepared statements,
// RAII transactions, and errors that name the file and the operation.
#include "engine/store/store.h"

#include <sqlite3.h>

#include <bit>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <system_error>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/store/store_access.h"
#include "engine/store/store_impl.h"

namespace pim::store_detail {

std::int64_t nowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// "disk full (...)", "database is corrupt: ...", "file is not a database" or SQLite's own message.
std::string describe(int rc, const char* msg) {
  std::string m = msg ? msg : sqlite3_errstr(rc);
  switch (rc & 0xFF) {
    case SQLITE_FULL:
      return "disk full (" + m + ")";
    case SQLITE_CORRUPT:
      return "database is corrupt: " + m;
    case SQLITE_NOTADB:
      return "file is not a database";
    default:
      return m;
  }
}

}  // namespace pim::store_detail

namespace pim {
namespace {

using store_detail::Impl;
using store_detail::nowSeconds;
using store_detail::Stmt;

constexpr int kBusyTimeoutMs = 5000;
constexpr std::string_view kSchedules[] = {"draft", "vendor", "gpu", "compute-centric"};

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

/// Float32 array <-> little-endian bytes, independent of the host's byte order.
std::string encodeFeatures(const std::vector<float>& f) {
  std::string out(f.size() * 4, '\0');
  for (std::size_t i = 0; i < f.size(); ++i) {
    auto u = std::bit_cast<std::uint32_t>(f[i]);
    for (int b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<char>((u >> (8 * b)) & 0xFF);
  }
  return out;
}

std::vector<float> decodeFeatures(const unsigned char* p, std::size_t n) {
  std::vector<float> out(n / 4);
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint32_t u = 0;
    for (int b = 0; b < 4; ++b) u |= std::uint32_t{p[i * 4 + b]} << (8 * b);
    out[i] = std::bit_cast<float>(u);
  }
  return out;
}

/// A single integer from a query (0 when it returns no row).
std::int64_t queryInt(Impl& impl, const char* sql, std::string_view op) {
  Stmt s(impl, sql, op);
  return s.step() ? s.i64(0) : 0;
}

struct FileState {
  std::uint32_t applicationId = 0;
  bool hasTables = false;
  bool hasMeta = false;
  std::int64_t version = 0;  // 0: empty file
};

/// Reads the header fields and the schema version; refuses foreign and newer stores. Nothing is written.
FileState inspect(Impl& impl) {
  FileState st;
  st.applicationId =
      static_cast<std::uint32_t>(queryInt(impl, "PRAGMA application_id", "read application id"));
  st.hasTables =
      queryInt(impl, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
               "read schema") > 0;
  if (st.applicationId != ResultsStore::kApplicationId && (st.applicationId != 0 || st.hasTables))
    throw InputError(impl.path + ": not a PIMScope store (application id " + hex32(st.applicationId) + ")");
  st.hasMeta = queryInt(impl, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'",
                        "read schema") > 0;
  if (st.applicationId == ResultsStore::kApplicationId) {
    if (!st.hasMeta)
      throw InputError(impl.path + ": database is corrupt: PIMScope store without a meta table");
    Stmt s(impl, "SELECT value FROM meta WHERE key = 'schema_version'", "read schema version");
    if (!s.step()) throw InputError(impl.path + ": database is corrupt: meta table lacks schema_version");
    st.version = s.i64(0);
    if (st.version < 1) throw InputError(impl.path + ": database is corrupt: schema_version " + s.text(0));
  }
  if (st.version > ResultsStore::schemaVersion())
    throw InputError(impl.path + ": written by a newer PIMScope (schema " + std::to_string(st.version) +
                     ", this build reads up to " + std::to_string(ResultsStore::schemaVersion()) + ")");
  return st;
}

/// Opens `path` read-only and checks integrity, ownership and version, so a refused file is never written.
void preflight(const std::string& path) {
  Impl impl;
  impl.path = path;
  impl.opening = true;
  int rc = sqlite3_open_v2(path.c_str(), &impl.handle.db, SQLITE_OPEN_READONLY, nullptr);
  if (rc != SQLITE_OK) impl.fail("open", rc);
  sqlite3_busy_timeout(impl.db(), kBusyTimeoutMs);
  sqlite3_extended_result_codes(impl.db(), 1);
  // quick_check first: it reads every page, so a truncated or damaged file is caught before anything else.
  {
    Stmt s(impl, "PRAGMA quick_check", "integrity check");
    std::string problems;
    while (s.step()) {
      std::string line = s.text(0);
      if (line == "ok") continue;
      if (!problems.empty()) problems += "; ";
      problems += line;
      if (problems.size() > 400) break;
    }
    if (!problems.empty()) throw InputError(path + ": database is corrupt: " + problems);
  }
  inspect(impl);
}

/// Creates or migrates the schema; called on the read-write connection inside BEGIN IMMEDIATE.
void createOrMigrate(Impl& impl) {
  FileState st = inspect(impl);  // again, under the write lock: the file may have changed since the preflight
  if (st.version == ResultsStore::schemaVersion()) return;
  if (st.version == 0)
    impl.exec("PRAGMA application_id = " + std::to_string(ResultsStore::kApplicationId),
              "set application id");
  for (const auto& m : storeMigrations()) {
    if (m.toVersion <= st.version) continue;
    std::string op = "migrating schema v" + std::to_string(m.toVersion - 1) + " to v" +
                     std::to_string(m.toVersion) + " (" + std::string(m.description) + ")";
    impl.exec(m.sql, op);
    if (m.toVersion == 1)
      impl.exec("INSERT INTO meta(key, value) VALUES ('application_id', " +
                    std::to_string(ResultsStore::kApplicationId) + "), ('schema_version', 1)",
                op);
    else
      impl.exec("UPDATE meta SET value = " + std::to_string(m.toVersion) + " WHERE key = 'schema_version'",
                op);
  }
  Stmt fk(impl, "PRAGMA foreign_key_check", "foreign key check after migration");
  if (fk.step()) impl.failMsg("migration", "foreign key violation in table " + fk.text(0));
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Open, move, close

ResultsStore ResultsStore::open(const std::string& path) {
  const bool memory = path == ":memory:";
  std::error_code ec;
  // SQLite opens whatever the path names: /dev/zero or a FIFO would hang it (a FIFO opened read-write never
  // sees end of file), a directory gives "unable to open". Only a regular file, or nothing yet, is a store.
  if (!memory && std::filesystem::exists(path, ec)) requireRegularFile(path, "results store");
  if (!memory) requireWritableStore(path);
  if (!memory && std::filesystem::exists(path, ec) && std::filesystem::file_size(path, ec) > 0 && !ec)
    preflight(path);

  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->opening = true;
  int rc =
      sqlite3_open_v2(path.c_str(), &impl->handle.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) impl->fail("open", rc);
  sqlite3_extended_result_codes(impl->db(), 1);
  sqlite3_busy_timeout(impl->db(), kBusyTimeoutMs);
  {
    // Validate (again) and migrate before changing anything, including the journal mode.
    Transaction tx(*impl);
    createOrMigrate(*impl);
    tx.commit();
  }
  // Statements prepared during the migration may refer to a schema that no longer exists.
  for (auto& [sql, s] : impl->stmts) sqlite3_finalize(s);
  impl->stmts.clear();
  if (!memory) {
    Stmt s(*impl, "PRAGMA journal_mode = WAL", "set journal mode");
    if (!s.step() || s.text(0) != "wal")
      impl->failMsg("set journal mode", "WAL not supported on this file system");
  }
  impl->exec("PRAGMA synchronous = NORMAL", "set synchronous");
  impl->exec("PRAGMA foreign_keys = ON", "enable foreign keys");
  impl->opening = false;
  return ResultsStore(std::move(impl));
}

ResultsStore::ResultsStore(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
ResultsStore::ResultsStore(ResultsStore&&) noexcept = default;
ResultsStore& ResultsStore::operator=(ResultsStore&&) noexcept = default;
ResultsStore::~ResultsStore() = default;

ResultsStore::Impl& ResultsStore::impl() {
  if (!m_impl) throw std::logic_error("ResultsStore used after move");
  return *m_impl;
}

const std::string& ResultsStore::path() const {
  if (!m_impl) throw std::logic_error("ResultsStore used after move");
  return m_impl->path;
}

// ---------------------------------------------------------------------------------------------------------------
// Transactions

ResultsStore::Transaction::Transaction(ResultsStore& store) : Transaction(store.impl()) {}

ResultsStore::Transaction::Transaction(Impl& impl) : m_impl(&impl), m_outermost(impl.txDepth == 0) {
  impl.begin();
}

ResultsStore::Transaction::~Transaction() {
  if (!m_done) m_impl->rollback(m_outermost);
  --m_impl->txDepth;
}

void ResultsStore::Transaction::commit() {
  if (m_done) throw std::logic_error("ResultsStore::Transaction committed twice");
  m_impl->commit(m_outermost);
  m_done = true;
}

// ---------------------------------------------------------------------------------------------------------------
// Backends and problems

std::int64_t ResultsStore::upsertBackend(std::string_view name, std::string_view hash,
                                         std::string_view json) {
  Stmt s(impl(),
         "INSERT INTO backends(name, hash, json) VALUES (?, ?, ?) "
         "ON CONFLICT(hash) DO UPDATE SET name = excluded.name, json = excluded.json RETURNING id",
         "upsertBackend");
  s.bind(name).bind(hash).bind(json);
  if (!s.step()) impl().failMsg("upsertBackend", "no id returned");
  return s.i64(0);
}

std::optional<std::int64_t> ResultsStore::findProblem(std::int64_t backendId, std::string_view kernelHash,
                                                      std::string_view shape) {
  Stmt s(impl(), "SELECT id FROM problems WHERE backend_id = ? AND kernel_hash = ? AND shape = ?",
         "findProblem");
  s.bind(backendId).bind(kernelHash).bind(shape);
  if (!s.step()) return std::nullopt;
  return s.i64(0);
}

std::int64_t ResultsStore::upsertProblem(std::int64_t backendId, std::string_view kernel,
                                         std::string_view kernelHash, std::string_view kernelSource,
                                         std::string_view shape) {
  constexpr std::string_view op = "upsertProblem";
  Transaction tx(*this);
  std::optional<std::int64_t> id = findProblem(backendId, kernelHash, shape);
  if (id) {
    // The same computation: its results stand whatever the name or text; keep the latest for display.
    Stmt u(impl(), "UPDATE problems SET kernel = ?, kernel_source = ? WHERE id = ?", op);
    u.bind(kernel).bind(kernelSource).bind(*id).run();
  } else {
    // A row from a store older than v3 is keyed by name only; its labels are this kernel's only if it was
    // made from exactly this text (older versions deleted them whenever the text changed).
    Stmt a(impl(),
           "UPDATE problems SET kernel_hash = ?1 WHERE backend_id = ?2 AND kernel_hash = 'name:' || ?3 "
           "AND shape = ?4 AND kernel_source = ?5 RETURNING id",
           op);
    a.bind(kernelHash).bind(backendId).bind(kernel).bind(shape).bind(kernelSource);
    if (a.step()) id = a.i64(0);
  }
  if (!id) {
    Stmt s(
        impl(),
        "INSERT INTO problems(backend_id, kernel, kernel_hash, kernel_source, shape) VALUES (?, ?, ?, ?, ?) "
        "RETURNING id",
        op);
    s.bind(backendId).bind(kernel).bind(kernelHash).bind(kernelSource).bind(shape);
    if (!s.step()) impl().failMsg(op, "no id returned");
    id = s.i64(0);
  }
  tx.commit();
  return *id;
}

// ---------------------------------------------------------------------------------------------------------------
// Drafts

void ResultsStore::putDrafts(std::int64_t problemId, std::span<const StoredDraft> drafts) {
  Transaction tx(*this);
  for (const auto& d : drafts) {
    Stmt s(impl(),
           "INSERT INTO drafts(problem_id, draft_id, parts_json, features) VALUES (?, ?, ?, ?) "
           "ON CONFLICT(problem_id, draft_id) DO UPDATE SET parts_json = excluded.parts_json, "
           "features = excluded.features",
           "putDrafts");
    std::string blob = encodeFeatures(d.features);
    s.bind(problemId).bind(d.draftId).bind(d.partsJson).bindBlob(blob.data(), blob.size()).run();
  }
  tx.commit();
}

std::vector<StoredDraft> ResultsStore::drafts(std::int64_t problemId) {
  Stmt s(impl(), "SELECT draft_id, parts_json, features FROM drafts WHERE problem_id = ? ORDER BY draft_id",
         "drafts");
  s.bind(problemId);
  std::vector<StoredDraft> out;
  while (s.step()) {
    auto [p, n] = s.blob(2);
    out.push_back({s.i64(0), s.text(1), decodeFeatures(p, n)});
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Results

namespace {
constexpr std::string_view kResultColumns =
    "problem_id, draft_id, schedule, options, input_cycles, compute_cycles, output_cycles, total_cycles, "
    "time_ns, "
    "energy_pj, energy_json, banks_json, created_at";

StoredResult readResult(const Stmt& s) {
  StoredResult r;
  r.problem = s.i64(0);
  r.draftId = s.i64(1);
  r.schedule = s.text(2);
  r.options = s.text(3);
  r.inputCycles = s.i64(4);
  r.computeCycles = s.i64(5);
  r.outputCycles = s.i64(6);
  r.totalCycles = s.i64(7);
  r.timeNs = s.f64(8);
  r.energyPj = s.f64(9);
  r.energyJson = s.text(10);
  r.banksJson = s.text(11);
  r.createdAt = s.i64(12);
  return r;
}

std::string selectResults(std::string_view where) {
  return "SELECT " + std::string(kResultColumns) + " FROM results WHERE " + std::string(where);
}
}  // namespace

void ResultsStore::putResults(std::span<const StoredResult> results) {
  constexpr std::string_view op = "putResults";
  for (const auto& r : results) {
    bool known = false;
    for (auto k : kSchedules) known = known || r.schedule == k;
    if (!known)
      impl().failMsg(
          op, "unknown schedule '" + r.schedule + "' (expected draft, vendor, gpu or compute-centric)");
  }
  static const std::string sql = "INSERT OR REPLACE INTO results(" + std::string(kResultColumns) +
                                 ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
  const std::int64_t now = nowSeconds();
  Transaction tx(*this);
  for (const auto& r : results) {
    Stmt s(impl(), sql, op);
    s.bind(r.problem).bind(r.draftId).bind(r.schedule).bind(r.options);
    s.bind(r.inputCycles).bind(r.computeCycles).bind(r.outputCycles).bind(r.totalCycles);
    s.bind(r.timeNs).bind(r.energyPj).bind(r.energyJson).bind(r.banksJson).bind(now).run();
  }
  tx.commit();
}

std::optional<StoredResult> ResultsStore::result(std::int64_t problemId, std::int64_t draftId,
                                                 std::string_view schedule, std::string_view options) {
  static const std::string sql =
      selectResults("problem_id = ? AND draft_id = ? AND schedule = ? AND options = ?");
  Stmt s(impl(), sql, "result");
  s.bind(problemId).bind(draftId).bind(schedule).bind(options);
  if (!s.step()) return std::nullopt;
  return readResult(s);
}

std::vector<StoredResult> ResultsStore::results(std::int64_t problemId) {
  static const std::string sql = selectResults("problem_id = ? ORDER BY draft_id, schedule, options");
  Stmt s(impl(), sql, "results");
  s.bind(problemId);
  std::vector<StoredResult> out;
  while (s.step()) out.push_back(readResult(s));
  return out;
}

std::int64_t ResultsStore::countResults(std::int64_t problemId) {
  Stmt s(impl(), "SELECT count(*) FROM results WHERE problem_id = ?", "countResults");
  s.bind(problemId);
  return s.step() ? s.i64(0) : 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Predictions

void ResultsStore::putPredictions(std::int64_t problemId, std::int64_t modelId,
                                  std::span<const std::pair<std::int64_t, double>> draftValues) {
  Transaction tx(*this);
  for (const auto& [draftId, value] : draftValues) {
    Stmt s(impl(),
           "INSERT INTO predictions(problem_id, draft_id, model_id, value) VALUES (?, ?, ?, ?) "
           "ON CONFLICT(problem_id, draft_id, model_id) DO UPDATE SET value = excluded.value",
           "putPredictions");
    s.bind(problemId).bind(draftId).bind(modelId).bind(value).run();
  }
  tx.commit();
}

std::vector<std::pair<std::int64_t, double>> ResultsStore::predictions(std::int64_t problemId,
                                                                       std::int64_t modelId) {
  Stmt s(impl(),
         "SELECT draft_id, value FROM predictions WHERE problem_id = ? AND model_id = ? ORDER BY draft_id",
         "predictions");
  s.bind(problemId).bind(modelId);
  std::vector<std::pair<std::int64_t, double>> out;
  while (s.step()) out.emplace_back(s.i64(0), s.f64(1));
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Models

namespace {
constexpr std::string_view kModelColumns =
    "id, backend_hash, name, created_at, bytes, feature_schema, metadata";

StoredModel readModel(const Stmt& s) {
  StoredModel m;
  m.id = s.i64(0);
  m.backendHash = s.text(1);
  m.name = s.text(2);
  m.createdAt = s.i64(3);
  auto [p, n] = s.blob(4);
  m.bytes.assign(p, p + n);
  m.featureSchema = s.text(5);
  m.metadata = s.text(6);
  return m;
}
}  // namespace

std::int64_t ResultsStore::putModel(const StoredModel& model) {
  Stmt s(impl(),
         "INSERT INTO models(backend_hash, name, created_at, bytes, feature_schema, metadata) "
         "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
         "putModel");
  s.bind(model.backendHash).bind(model.name).bind(model.createdAt ? model.createdAt : nowSeconds());
  s.bindBlob(model.bytes.data(), model.bytes.size()).bind(model.featureSchema).bind(model.metadata);
  if (!s.step()) impl().failMsg("putModel", "no id returned");
  return s.i64(0);
}

std::optional<StoredModel> ResultsStore::latestModel(std::string_view backendHash, std::string_view name) {
  static const std::string sql = "SELECT " + std::string(kModelColumns) +
                                 " FROM models WHERE backend_hash = ? AND name = ? "
                                 "ORDER BY created_at DESC, id DESC LIMIT 1";
  Stmt s(impl(), sql, "latestModel");
  s.bind(backendHash).bind(name);
  if (!s.step()) return std::nullopt;
  return readModel(s);
}

std::optional<StoredModel> ResultsStore::model(std::int64_t id) {
  static const std::string sql = "SELECT " + std::string(kModelColumns) + " FROM models WHERE id = ?";
  Stmt s(impl(), sql, "model");
  s.bind(id);
  if (!s.step()) return std::nullopt;
  return readModel(s);
}

// ---------------------------------------------------------------------------------------------------------------
// Lookup table

void ResultsStore::putLookup(const LookupEntry& e) {
  Stmt s(impl(),
         "INSERT INTO lookup(backend_hash, kernel_hash, kernel, shape, draft_id, time_ns, model_id, source) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(backend_hash, kernel_hash, shape) DO UPDATE SET "
         "kernel = excluded.kernel, draft_id = excluded.draft_id, time_ns = excluded.time_ns, "
         "model_id = excluded.model_id, source = excluded.source",
         "putLookup");
  s.bind(e.backendHash).bind(e.kernelHash).bind(e.kernel).bind(e.shape).bind(e.draftId).bind(e.timeNs);
  s.bind(e.modelId).bind(e.source).run();
}

std::optional<LookupEntry> ResultsStore::lookup(std::string_view backendHash, std::string_view kernelHash,
                                                std::string_view shape) {
  Stmt s(impl(),
         "SELECT kernel, draft_id, time_ns, model_id, source FROM lookup "
         "WHERE backend_hash = ? AND kernel_hash = ? AND shape = ?",
         "lookup");
  s.bind(backendHash).bind(kernelHash).bind(shape);
  if (!s.step()) return std::nullopt;
  LookupEntry e{std::string(backendHash),
                std::string(kernelHash),
                s.text(0),
                std::string(shape),
                s.i64(1),
                s.f64(2),
                std::nullopt,
                s.text(4)};
  if (!s.isNull(3)) e.modelId = s.i64(3);
  return e;
}

// ---------------------------------------------------------------------------------------------------------------
// Limits

std::int64_t ResultsStore::setMaxPageCount(std::int64_t pages) {
  Stmt s(impl(), "PRAGMA max_page_count = " + std::to_string(pages), "setMaxPageCount");
  return s.step() ? s.i64(0) : 0;
}

}  // namespace pim
