// SPDX-License-Identifier: Apache-2.0
// Merging a shard store into this one (docs/store.md, "Merging shards"): a distributed sweep writes one store
// per process and merges them afterwards. Rows are matched by natural keys, never by row ids, which differ
// between stores; what this store already holds is kept, so merging is idempotent.
#include <filesystem>
#include <system_error>

#include "engine/store/store_impl.h"

namespace pim {
namespace {

using store_detail::Impl;
using store_detail::Stmt;

// The shard's problem ids and the ids of the same problems here, filled once so every child table joins on
// it.
constexpr std::string_view kProblemIdsTable =
    "DROP TABLE IF EXISTS temp.merge_problem_ids; "
    "CREATE TEMP TABLE merge_problem_ids(shard_id INTEGER PRIMARY KEY, main_id INTEGER NOT NULL);";

// `WHERE true` in every INSERT ... SELECT ... ON CONFLICT: without it SQLite parses ON as a join constraint.
constexpr std::string_view kCopyBackends =
    "INSERT INTO main.backends(name, hash, json) SELECT name, hash, json FROM shard.backends WHERE true "
    "ORDER BY id ON CONFLICT(hash) DO NOTHING";

constexpr std::string_view kCopyProblems =
    "INSERT INTO main.problems(backend_id, kernel, kernel_hash, kernel_source, shape) "
    "SELECT mb.id, p.kernel, p.kernel_hash, p.kernel_source, p.shape FROM shard.problems p "
    "JOIN shard.backends sb ON sb.id = p.backend_id JOIN main.backends mb ON mb.hash = sb.hash "
    "WHERE true ORDER BY p.id ON CONFLICT(backend_id, kernel_hash, shape) DO NOTHING";

constexpr std::string_view kMapProblems =
    "INSERT INTO temp.merge_problem_ids(shard_id, main_id) SELECT p.id, mp.id FROM shard.problems p "
    "JOIN shard.backends sb ON sb.id = p.backend_id JOIN main.backends mb ON mb.hash = sb.hash "
    "JOIN main.problems mp ON mp.backend_id = mb.id AND mp.kernel_hash = p.kernel_hash AND mp.shape = "
    "p.shape";

constexpr std::string_view kCopyDrafts =
    "INSERT INTO main.drafts(problem_id, draft_id, parts_json, features) "
    "SELECT m.main_id, d.draft_id, d.parts_json, d.features FROM shard.drafts d "
    "JOIN temp.merge_problem_ids m ON m.shard_id = d.problem_id WHERE true "
    "ON CONFLICT(problem_id, draft_id) DO NOTHING";

constexpr std::string_view kCountDisagreements =
    "SELECT count(*) FROM shard.results r JOIN temp.merge_problem_ids m ON m.shard_id = r.problem_id "
    "JOIN main.results x ON x.problem_id = m.main_id AND x.draft_id = r.draft_id AND x.schedule = r.schedule "
    "AND x.options = r.options "
    "WHERE x.total_cycles <> r.total_cycles OR x.time_ns <> r.time_ns OR x.energy_pj <> r.energy_pj";

constexpr std::string_view kCopyResults =
    "INSERT INTO main.results(problem_id, draft_id, schedule, options, input_cycles, compute_cycles, "
    "output_cycles, total_cycles, time_ns, energy_pj, energy_json, banks_json, created_at) "
    "SELECT m.main_id, r.draft_id, r.schedule, r.options, r.input_cycles, r.compute_cycles, r.output_cycles, "
    "r.total_cycles, r.time_ns, r.energy_pj, r.energy_json, r.banks_json, r.created_at FROM shard.results r "
    "JOIN temp.merge_problem_ids m ON m.shard_id = r.problem_id WHERE true "
    "ON CONFLICT(problem_id, draft_id, schedule, options) DO NOTHING";

// Model ids do not carry across stores, so a copied pick names no model.
constexpr std::string_view kCopyLookup =
    "INSERT INTO main.lookup(backend_hash, kernel_hash, kernel, shape, draft_id, time_ns, model_id, source) "
    "SELECT backend_hash, kernel_hash, kernel, shape, draft_id, time_ns, NULL, source FROM shard.lookup "
    "WHERE true ON CONFLICT(backend_hash, kernel_hash, shape) DO UPDATE SET kernel = excluded.kernel, "
    "draft_id = excluded.draft_id, time_ns = excluded.time_ns, model_id = NULL, source = excluded.source "
    "WHERE excluded.time_ns < lookup.time_ns";

// The same "keep the better row" rule as putMapping.
const std::string kCopyMappings =
    "INSERT INTO main.mappings(hierarchy_hash, hierarchy, layer_key, layer, objective, mapper, mapping_json, "
    "objective_value, latency_cycles, energy_pj, row_activations, status, bound, gap, bound_source, seconds, "
    "created_at) "
    "SELECT hierarchy_hash, hierarchy, layer_key, layer, objective, mapper, mapping_json, objective_value, "
    "latency_cycles, energy_pj, row_activations, status, bound, gap, bound_source, seconds, created_at "
    "FROM shard.mappings WHERE true "
    "ON CONFLICT(hierarchy_hash, layer_key, objective, mapper) DO UPDATE SET "
    "hierarchy = excluded.hierarchy, layer = excluded.layer, mapping_json = excluded.mapping_json, "
    "objective_value = excluded.objective_value, latency_cycles = excluded.latency_cycles, "
    "energy_pj = excluded.energy_pj, row_activations = excluded.row_activations, status = excluded.status, "
    "bound = excluded.bound, gap = excluded.gap, bound_source = excluded.bound_source, "
    "seconds = excluded.seconds, created_at = excluded.created_at "
    "WHERE " +
    std::string(store_detail::kBetterMapping);

constexpr std::string_view kCopySweepUnits =
    "INSERT INTO main.sweep_units(plan, unit, drafts, labelled, seconds, rank, created_at) "
    "SELECT plan, unit, drafts, labelled, seconds, rank, created_at FROM shard.sweep_units WHERE true "
    "ON CONFLICT(plan, unit) DO NOTHING";

/// Runs one copy statement; returns the rows it inserted or updated.
std::int64_t copyRows(Impl& impl, std::string_view sql, std::string_view op) {
  Stmt s(impl, sql, op);
  s.run();
  return sqlite3_changes64(impl.db());
}

std::int64_t countRows(Impl& impl, std::string_view sql, std::string_view op) {
  Stmt s(impl, sql, op);
  return s.step() ? s.i64(0) : 0;
}

/// The shard attached as schema `shard` for this scope. SQLite attaches only outside a transaction, so this
/// outlives the merge's transaction; the destructor detaches after a failure too.
class AttachedShard {
 public:
  AttachedShard(Impl& impl, const std::string& path, std::string_view op) : m_impl(impl) {
    Stmt s(impl, "ATTACH DATABASE ? AS shard", op);
    s.bind(std::string_view(path)).run();
  }
  AttachedShard(const AttachedShard&) = delete;
  AttachedShard& operator=(const AttachedShard&) = delete;
  ~AttachedShard() { sqlite3_exec(m_impl.db(), "DETACH DATABASE shard", nullptr, nullptr, nullptr); }

 private:
  Impl& m_impl;
};

/// Refuses what cannot be merged before anything is opened: a merge inside a transaction (ATTACH would
/// fail), a missing or empty shard (open() would create a store in it), and this store itself.
void refuseUnmergeable(const Impl& impl, const std::string& shardPath) {
  if (impl.txDepth > 0)
    impl.failMsg("mergeFrom", "cannot merge inside an open transaction (SQLite attaches only outside one)");
  std::error_code ec;
  if (shardPath == ":memory:" || !std::filesystem::is_regular_file(shardPath, ec))
    throw InputError(shardPath + ": no results store to merge (not an existing file)");
  // open() would make an empty file a new store: an input is never changed into one.
  if (std::filesystem::file_size(shardPath, ec) == 0 && !ec)
    throw InputError(shardPath + ": an empty file, not a results store to merge");
  if (impl.path != ":memory:" && std::filesystem::equivalent(shardPath, impl.path, ec))
    impl.failMsg("mergeFrom", shardPath + " is this store itself; a store cannot be merged into itself");
}

/// Copies every table in key order: parents first, so children find their problems' ids here.
MergeReport copyShard(Impl& impl, std::string_view op) {
  // The shard may have been migrated by a newer build between open() and ATTACH: its tables would differ.
  if (countRows(impl, "SELECT value FROM shard.meta WHERE key = 'schema_version'", op) !=
      ResultsStore::schemaVersion())
    impl.failMsg(op, "the shard's schema changed while merging");
  MergeReport r;
  r.backends = copyRows(impl, kCopyBackends, op);
  r.problems = copyRows(impl, kCopyProblems, op);
  impl.exec(kProblemIdsTable, op);
  copyRows(impl, kMapProblems, op);
  r.drafts = copyRows(impl, kCopyDrafts, op);
  r.disagreements = countRows(impl, kCountDisagreements, op);
  r.results = copyRows(impl, kCopyResults, op);
  r.lookup = copyRows(impl, kCopyLookup, op);
  r.mappings = copyRows(impl, kCopyMappings, op);
  r.sweepUnits = copyRows(impl, kCopySweepUnits, op);
  r.modelsSkipped = countRows(impl, "SELECT count(*) FROM shard.models", op);
  impl.exec("DROP TABLE temp.merge_problem_ids", op);
  return r;
}

}  // namespace

MergeReport ResultsStore::mergeFrom(const std::string& shardPath) {
  refuseUnmergeable(impl(), shardPath);
  // open() refuses a corrupt, foreign or newer shard with its own message naming the shard, and migrates an
  // older one, so the shard's tables are this build's when attached.
  ResultsStore::open(shardPath);  // closed at once: ATTACH opens it again
  const std::string op = "merging " + shardPath;
  AttachedShard attached(impl(), shardPath, op);
  Transaction tx(*this);
  MergeReport report = copyShard(impl(), op);
  tx.commit();
  return report;
}

}  // namespace pim
