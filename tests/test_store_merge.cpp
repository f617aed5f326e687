// SPDX-License-Identifier: Apache-2.0
// Merging shard stores (ResultsStore::mergeFrom, docs/store.md "Merging shards") and sweep units (schema v5):
// rows match by natural keys whatever their ids, merging is idempotent, overlapping shards count their
// disagreements, and a bad shard or the store itself is refused without touching the target.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/store/store.h"
#include "tests/store_test_util.h"
#include "tests/test_util.h"

namespace pim {
namespace {

using test::expectInputError;
using test::rawExec;
using test::readBytes;
using test::TempDir;
using test::writeBytes;

/// Every row of `sql` on the SQLite file `path`, columns joined with '|' (plain connection, no PIMScope
/// logic).
std::vector<std::string> rawRows(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> rows;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    std::string row;
    for (int c = 0; c < sqlite3_column_count(s); ++c) {
      const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
      row += (c ? "|" : "") + std::string(t ? t : "NULL");
    }
    rows.push_back(row);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return rows;
}

/// Every table that merges, by natural key (ids replaced by the keys they stand for), sorted.
std::map<std::string, std::vector<std::string>> byNaturalKey(const std::string& path) {
  const std::string problemKey = "b.hash, p.kernel_hash, p.shape";
  const std::string problemJoin =
      " JOIN problems p ON p.id = t.problem_id JOIN backends b ON b.id = p.backend_id";
  return {
      {"backends", rawRows(path, "SELECT hash, name, json FROM backends ORDER BY hash")},
      {"problems", rawRows(path, "SELECT " + problemKey +
                                     ", p.kernel, p.kernel_source FROM problems p "
                                     "JOIN backends b ON b.id = p.backend_id ORDER BY 1, 2, 3")},
      {"drafts",
       rawRows(path, "SELECT " + problemKey + ", t.draft_id, t.parts_json, hex(t.features) FROM drafts t" +
                         problemJoin + " ORDER BY 1, 2, 3, 4")},
      {"results", rawRows(path, "SELECT " + problemKey +
                                    ", t.draft_id, t.schedule, t.options, t.input_cycles, t.compute_cycles, "
                                    "t.output_cycles, t.total_cycles, t.time_ns, t.energy_pj, t.energy_json, "
                                    "t.banks_json, t.created_at FROM results t" +
                                    problemJoin + " ORDER BY 1, 2, 3, 4, 5, 6")},
      {"lookup", rawRows(path,
                         "SELECT backend_hash, kernel_hash, kernel, shape, draft_id, time_ns, source "
                         "FROM lookup ORDER BY 1, 2, 4")},
      {"mappings", rawRows(path, "SELECT * FROM mappings ORDER BY 1, 3, 5, 6")},
      {"sweep_units", rawRows(path, "SELECT * FROM sweep_units ORDER BY 1, 2")},
  };
}

StoredResult result(std::int64_t problem, std::int64_t draft, std::string schedule = "draft") {
  StoredResult r;
  r.problem = problem;
  r.draftId = draft;
  r.schedule = std::move(schedule);
  r.inputCycles = 10 + draft;
  r.computeCycles = 200 + draft;
  r.outputCycles = 3;
  r.totalCycles = r.inputCycles + r.computeCycles + r.outputCycles;
  r.timeNs = 0.5 * static_cast<double>(r.totalCycles);
  r.energyPj = 1000.0 + static_cast<double>(draft);
  r.energyJson = R"({"ACT":1.5})";
  r.banksJson = "[" + std::to_string(draft) + "]";
  return r;
}

StoredMapping mapping(double objective, std::optional<double> gap) {
  StoredMapping m;
  m.hierarchyHash = "h1";
  m.hierarchy = "tiny";
  m.layerKey = "K=8";
  m.layer = "fc";
  m.objective = "latency";
  m.mapper = "auto";
  m.mappingJson = R"({"levels": []})";
  m.objectiveValue = objective;
  m.latencyCycles = static_cast<std::int64_t>(objective);
  m.status = gap ? "optimal" : "feasible";
  m.gap = gap;
  m.boundSource = gap ? "exhaustive walk" : "";
  return m;
}

SweepUnitRecord unit(std::string plan, std::int64_t index, std::int64_t rank) {
  return {std::move(plan), index, 100 + index, 90 + index, 1.5 * static_cast<double>(index + 1), rank, 0};
}

/// What a sweep process leaves in its shard: two backends, three problems, drafts, results, a lookup pick
/// made by a model, a mapping and sweep units.
void fillShard(ResultsStore& s) {
  const auto b1 = s.upsertBackend("hbm-pim", "hash-b1", R"({"name":"hbm-pim"})");
  const auto b2 = s.upsertBackend("upmem", "hash-b2", R"({"name":"upmem"})");
  const auto p1 = s.upsertProblem(b1, "gemv", "ir1:gemv", "kernel gemv", "b=1,n=64");
  const auto p2 = s.upsertProblem(b1, "gemv", "ir1:gemv", "kernel gemv", "b=1,n=128");
  const auto p3 = s.upsertProblem(b2, "red", "ir1:red", "kernel red", "n=64");
  const std::vector<StoredDraft> drafts = {{0, "[[0]]", {1.0f, 2.0f}}, {1, "[[1]]", {3.0f, -4.5f}}};
  std::vector<StoredResult> results;
  for (auto p : {p1, p2, p3}) {
    s.putDrafts(p, drafts);
    results.push_back(result(p, 0));
    results.push_back(result(p, 1));
  }
  results.push_back(result(p3, 0, "vendor"));
  s.putResults(results);
  StoredModel model;
  model.backendHash = "hash-b1";
  model.name = "xgb";
  model.bytes = {1, 2, 3};
  const auto modelId = s.putModel(model);
  s.putLookup({"hash-b1/t3", "ir1:gemv", "gemv", "b=1,n=64", 1, 105.0, modelId, "model"});
  s.putMapping(mapping(50, 0.0));
  s.putSweepUnit(unit("plan-a", 0, 0));
  s.putSweepUnit(unit("plan-a", 1, 0));
}

/// A shard (fillShard). With `shiftIds` its backend and problem ids start at 2 (a throwaway
/// first row, deleted), so a copy that kept the shard's ids would point at the wrong rows.
void writeShard(const std::string& path, bool shiftIds = false) {
  {
    ResultsStore s = ResultsStore::open(path);
    if (shiftIds) s.upsertProblem(s.upsertBackend("tmp", "tmp", "{}"), "tmp", "ir1:tmp", "src", "n=1");
    fillShard(s);
  }
  if (shiftIds)
    rawExec(path, "DELETE FROM problems WHERE kernel = 'tmp'; DELETE FROM backends WHERE hash = 'tmp'");
}

TEST(StoreMerge, MergeIntoAnEmptyStoreReproducesEveryMergedTable) {
  TempDir dir;
  const std::string shard = dir.file("shard.db"), target = dir.file("target.db");
  writeShard(shard, /*shiftIds=*/true);
  ResultsStore t = ResultsStore::open(target);
  const MergeReport r = t.mergeFrom(shard);
  EXPECT_EQ(r.backends, 2);
  EXPECT_EQ(r.problems, 3);
  EXPECT_EQ(r.drafts, 6);
  EXPECT_EQ(r.results, 7);
  EXPECT_EQ(r.lookup, 1);
  EXPECT_EQ(r.mappings, 1);
  EXPECT_EQ(r.sweepUnits, 2);
  EXPECT_EQ(r.disagreements, 0);
  EXPECT_EQ(r.modelsSkipped, 1);
  EXPECT_EQ(byNaturalKey(target), byNaturalKey(shard));
  // Same rows under other ids.
  EXPECT_EQ(rawRows(shard, "SELECT id FROM backends WHERE hash = 'hash-b1'"), std::vector<std::string>{"2"});
  EXPECT_EQ(rawRows(target, "SELECT id FROM backends WHERE hash = 'hash-b1'"), std::vector<std::string>{"1"});
  // Models and predictions stay behind; the copied pick names no model.
  EXPECT_EQ(rawRows(target, "SELECT count(*) FROM models"), std::vector<std::string>{"0"});
  const auto pick = t.lookup("hash-b1/t3", "ir1:gemv", "b=1,n=64");
  ASSERT_TRUE(pick);
  EXPECT_FALSE(pick->modelId);
  EXPECT_EQ(pick->draftId, 1);
  EXPECT_EQ(pick->source, "model");
  // The API finds the copies under this store's ids.
  const auto b1 = t.upsertBackend("hbm-pim", "hash-b1", R"({"name":"hbm-pim"})");
  const auto p1 = t.findProblem(b1, "ir1:gemv", "b=1,n=64");
  ASSERT_TRUE(p1);
  ASSERT_EQ(t.drafts(*p1).size(), 2u);
  EXPECT_EQ(t.drafts(*p1)[1].features, (std::vector<float>{3.0f, -4.5f}));
  const auto r1 = t.result(*p1, 1, "draft", "");
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->totalCycles, result(0, 1).totalCycles);
  EXPECT_EQ(t.sweepUnits("plan-a").size(), 2u);
}

TEST(StoreMerge, MergingTheSameShardTwiceAddsNothing) {
  TempDir dir;
  const std::string shard = dir.file("shard.db"), target = dir.file("target.db");
  writeShard(shard);
  ResultsStore t = ResultsStore::open(target);
  const MergeReport first = t.mergeFrom(shard);
  EXPECT_EQ(first.results, 7);
  const auto before = byNaturalKey(target);
  const MergeReport second = t.mergeFrom(shard);
  EXPECT_EQ(second.backends, 0);
  EXPECT_EQ(second.problems, 0);
  EXPECT_EQ(second.drafts, 0);
  EXPECT_EQ(second.results, 0);
  EXPECT_EQ(second.lookup, 0);
  EXPECT_EQ(second.mappings, 0);
  EXPECT_EQ(second.sweepUnits, 0);
  EXPECT_EQ(second.disagreements, 0);
  EXPECT_EQ(second.modelsSkipped, 1);
  EXPECT_EQ(byNaturalKey(target), before);
}

TEST(StoreMerge, OverlappingShardsCountDisagreementsAndKeepTheFirst) {
  TempDir dir;
  const std::string target = dir.file("target.db");
  // Three shards with the same problem; the target already has another backend, so its ids differ.
  auto shardWith = [&](const std::string& name, std::vector<StoredResult> results) {
    const std::string path = dir.file(name);
    ResultsStore s = ResultsStore::open(path);
    const auto p =
        s.upsertProblem(s.upsertBackend("hbm-pim", "hash-b1", "{}"), "gemv", "ir1:gemv", "src", "n=8");
    for (auto& r : results) r.problem = p;
    s.putResults(results);
    return path;
  };
  const std::string a = shardWith("a.db", {result(0, 1), result(0, 2)});
  const std::string b = shardWith("b.db", {result(0, 1), result(0, 3)});
  StoredResult differing = result(0, 1);
  differing.totalCycles += 7;
  const std::string c = shardWith("c.db", {differing});

  ResultsStore t = ResultsStore::open(target);
  t.upsertProblem(t.upsertBackend("other", "hash-other", "{}"), "x", "ir1:x", "src", "n=1");
  EXPECT_EQ(t.mergeFrom(a).results, 2);
  const MergeReport rb = t.mergeFrom(b);
  EXPECT_EQ(rb.problems, 0);
  EXPECT_EQ(rb.results, 1);  // draft 3; draft 1 is the same in both
  EXPECT_EQ(rb.disagreements, 0);
  const MergeReport rc = t.mergeFrom(c);
  EXPECT_EQ(rc.results, 0);
  EXPECT_EQ(rc.disagreements, 1);
  const auto p = t.findProblem(t.upsertBackend("hbm-pim", "hash-b1", "{}"), "ir1:gemv", "n=8");
  ASSERT_TRUE(p);
  EXPECT_EQ(t.countResults(*p), 3);
  EXPECT_EQ(t.result(*p, 1, "draft", "")->totalCycles, result(0, 1).totalCycles);  // the first one kept
}

TEST(StoreMerge, LookupKeepsTheLowerTimeAndMappingsTheBetterRow) {
  TempDir dir;
  const std::string target = dir.file("target.db");
  auto shardWith = [&](const std::string& name, double timeNs, std::int64_t draft, double objective) {
    const std::string path = dir.file(name);
    ResultsStore s = ResultsStore::open(path);
    s.putLookup({"hb", "ir1:k", "k", "n=8", draft, timeNs, std::nullopt, "simulated"});
    s.putMapping(mapping(objective, 0.0));
    return path;
  };
  ResultsStore t = ResultsStore::open(target);
  t.putLookup({"hb", "ir1:k", "k", "n=8", 1, 50.0, std::nullopt, "manual"});
  t.putMapping(mapping(50, std::nullopt));

  const MergeReport faster = t.mergeFrom(shardWith("faster.db", 40.0, 2, 50));  // same objective, a proof
  EXPECT_EQ(faster.lookup, 1);
  EXPECT_EQ(faster.mappings, 1);
  EXPECT_EQ(t.lookup("hb", "ir1:k", "n=8")->draftId, 2);
  EXPECT_EQ(t.lookup("hb", "ir1:k", "n=8")->timeNs, 40.0);
  EXPECT_EQ(t.lookup("hb", "ir1:k", "n=8")->source, "simulated");
  EXPECT_EQ(t.mapping("h1", "K=8", "latency", "auto")->gap, 0.0);

  const MergeReport slower = t.mergeFrom(shardWith("slower.db", 60.0, 3, 70));
  EXPECT_EQ(slower.lookup, 0);
  EXPECT_EQ(slower.mappings, 0);
  EXPECT_EQ(t.lookup("hb", "ir1:k", "n=8")->draftId, 2);
  EXPECT_EQ(t.mapping("h1", "K=8", "latency", "auto")->objectiveValue, 50.0);

  const MergeReport better = t.mergeFrom(shardWith("better.db", 45.0, 4, 30));
  EXPECT_EQ(better.lookup, 0);
  EXPECT_EQ(better.mappings, 1);
  EXPECT_EQ(t.mapping("h1", "K=8", "latency", "auto")->objectiveValue, 30.0);
}

TEST(StoreMerge, SweepUnitsRoundTripAndMerge) {
  TempDir dir;
  ResultsStore t = ResultsStore::open(dir.file("target.db"));
  EXPECT_TRUE(t.sweepUnits("plan-a").empty());
  SweepUnitRecord u2 = unit("plan-a", 2, 0);
  u2.createdAt = 1234;
  t.putSweepUnit(u2);
  t.putSweepUnit(unit("plan-a", 0, 0));
  t.putSweepUnit(unit("plan-b", 0, 5));
  t.putSweepUnit(unit("plan-a", 2, 9));  // a second completion of unit 2: the first wins
  auto units = t.sweepUnits("plan-a");
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0].unit, 0);
  EXPECT_EQ(units[1].unit, 2);
  EXPECT_EQ(units[1].rank, 0);
  EXPECT_EQ(units[1].drafts, 102);
  EXPECT_EQ(units[1].labelled, 92);
  EXPECT_EQ(units[1].seconds, 4.5);
  EXPECT_EQ(units[1].createdAt, 1234);
  EXPECT_GT(units[0].createdAt, 0);  // stamped by the store
  EXPECT_EQ(units[0].plan, "plan-a");

  const std::string shard = dir.file("shard.db");
  {
    ResultsStore s = ResultsStore::open(shard);
    s.putSweepUnit(unit("plan-a", 1, 3));
    s.putSweepUnit(unit("plan-a", 2, 3));
  }
  EXPECT_EQ(t.mergeFrom(shard).sweepUnits, 1);
  units = t.sweepUnits("plan-a");
  ASSERT_EQ(units.size(), 3u);
  EXPECT_EQ(units[1].unit, 1);
  EXPECT_EQ(units[1].rank, 3);
  EXPECT_EQ(units[2].rank, 0);  // already complete here: kept
  EXPECT_EQ(t.sweepUnits("plan-b").size(), 1u);
}

TEST(StoreMerge, AnOlderShardIsMigratedAndMerged) {
  TempDir dir;
  const std::string shard = dir.file("v4.db");
  writeShard(shard);
  // As schema 4 left it: no sweep_units table.
  rawExec(shard, "DROP TABLE sweep_units; UPDATE meta SET value = 4 WHERE key = 'schema_version'");
  ResultsStore t = ResultsStore::open(":memory:");
  const MergeReport r = t.mergeFrom(shard);
  EXPECT_EQ(r.results, 7);
  EXPECT_EQ(r.sweepUnits, 0);
  EXPECT_EQ(rawRows(shard, "SELECT value FROM meta WHERE key = 'schema_version'"),
            std::vector<std::string>{std::to_string(ResultsStore::schemaVersion())});
}

TEST(StoreMerge, CorruptShardIsRefusedAndTheTargetUntouched) {
  TempDir dir;
  const std::string target = dir.file("target.db"), shard = dir.file("corrupt.db"),
                    good = dir.file("good.db");
  writeShard(good);
  ResultsStore t = ResultsStore::open(target);
  t.mergeFrom(good);
  const auto before = byNaturalKey(target);
  std::mt19937 rng(7);
  std::string bytes(8192, '\0');
  for (auto& ch : bytes) ch = static_cast<char>(rng());
  writeBytes(shard, bytes);
  expectInputError([&] { t.mergeFrom(shard); }, {shard + ": file is not a database"});
  EXPECT_EQ(readBytes(shard), bytes);
  EXPECT_EQ(byNaturalKey(target), before);
  // The target is still usable and attaches again.
  EXPECT_EQ(t.mergeFrom(good).results, 0);
}

TEST(StoreMerge, FailedMergeRollsBackAndDetaches) {
  TempDir dir;
  const std::string shard = dir.file("big.db");
  {
    ResultsStore s = ResultsStore::open(shard);
    const auto p = s.upsertProblem(s.upsertBackend("b", "hb", "{}"), "k", "ir1:k", "src", "n=8");
    std::vector<StoredResult> rs;
    for (int i = 0; i < 500; ++i) {
      rs.push_back(result(p, i));
      rs.back().energyJson = std::string(400, 'e');
    }
    s.putResults(rs);
  }
  ResultsStore t = ResultsStore::open(dir.file("target.db"));
  t.setMaxPageCount(1);  // the current size: no room for the shard's rows
  expectInputError([&] { t.mergeFrom(shard); }, {"merging " + shard + ": disk full"});
  EXPECT_TRUE(t.sweepUnits("p").empty());
  EXPECT_EQ(rawRows(t.path(), "SELECT count(*) FROM backends"), std::vector<std::string>{"0"});
  t.setMaxPageCount(1'000'000);
  const MergeReport r = t.mergeFrom(shard);  // the shard was detached: it attaches again
  EXPECT_EQ(r.backends, 1);
  EXPECT_EQ(r.results, 500);
}

TEST(StoreMerge, TheStoreItselfAMissingShardAndAnOpenTransactionAreRefused) {
  TempDir dir;
  const std::string target = dir.file("target.db");
  ResultsStore t = ResultsStore::open(target);
  t.putSweepUnit(unit("p", 0, 0));
  expectInputError([&] { t.mergeFrom(target); }, {target + ": mergeFrom: ", "cannot be merged into itself"});
  const std::string other = dir.path() + "/./target.db";
  expectInputError([&] { t.mergeFrom(other); }, {"cannot be merged into itself"});
  const std::string missing = dir.file("missing.db");
  expectInputError([&] { t.mergeFrom(missing); }, {missing + ": no results store to merge"});
  EXPECT_FALSE(std::filesystem::exists(missing));
  writeShard(dir.file("shard.db"));
  {
    ResultsStore::Transaction tx(t);
    expectInputError([&] { t.mergeFrom(dir.file("shard.db")); }, {"inside an open transaction"});
  }
  EXPECT_EQ(t.sweepUnits("p").size(), 1u);
}

}  // namespace
}  // namespace pim
