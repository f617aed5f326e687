// SPDX-License-Identifier: Apache-2.0
// Results store: round trips for every table, transactions, the file's header and schema migration v1 -> v2.
// Refusals, a full disk and kill -9 are test_store_refusals.cpp.
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <limits>
#include <map>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/store/store.h"
#include "tests/store_test_util.h"
#include "tests/test_util.h"

using pim::InputError;
using pim::LookupEntry;
using pim::ResultsStore;
using pim::StoredDraft;
using pim::StoredModel;
using pim::StoredResult;

namespace {

using pim::test::expectInputError;
using pim::test::expectSameResult;
using pim::test::makeResult;
using pim::test::rawExec;
using pim::test::rawInt;
using pim::test::readBytes;
using pim::test::StoreFixture;
using pim::test::TempDir;
using pim::test::writeBytes;

// The shipped v1 schema, written out by hand: a store as PIMScope schema 1 left it.
constexpr const char* kV1Store = R"sql(
PRAGMA application_id = 1346981203;
CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value ANY NOT NULL) STRICT;
INSERT INTO meta VALUES ('application_id', 1346981203), ('schema_version', 1);
CREATE TABLE backends(id INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE,
                      json TEXT NOT NULL) STRICT;
CREATE TABLE problems(id INTEGER PRIMARY KEY, backend_id INTEGER NOT NULL REFERENCES backends(id) ON DELETE CASCADE,
                      kernel TEXT NOT NULL, kernel_source TEXT NOT NULL, shape TEXT NOT NULL,
                      UNIQUE(backend_id, kernel, shape)) STRICT;
CREATE TABLE drafts(problem_id INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,
                    draft_id INTEGER NOT NULL, parts_json TEXT NOT NULL, features BLOB NOT NULL,
                    PRIMARY KEY(problem_id, draft_id)) STRICT, WITHOUT ROWID;
CREATE TABLE results(problem_id INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,
                     draft_id INTEGER NOT NULL,
                     schedule TEXT NOT NULL CHECK(schedule IN ('draft', 'vendor', 'gpu', 'compute-centric')),
                     options TEXT NOT NULL, input_cycles INTEGER NOT NULL, compute_cycles INTEGER NOT NULL,
                     output_cycles INTEGER NOT NULL, total_cycles INTEGER NOT NULL, time_ns REAL NOT NULL,
                     energy_pj REAL NOT NULL, energy_json TEXT NOT NULL, banks_json TEXT NOT NULL,
                     created_at INTEGER NOT NULL,
                     PRIMARY KEY(problem_id, draft_id, schedule, options)) STRICT, WITHOUT ROWID;
CREATE TABLE models(id INTEGER PRIMARY KEY, backend_hash TEXT NOT NULL, name TEXT NOT NULL,
                    created_at INTEGER NOT NULL, bytes BLOB NOT NULL, feature_schema TEXT NOT NULL,
                    metadata TEXT NOT NULL) STRICT;
CREATE INDEX models_by_name ON models(backend_hash, name, created_at, id);
CREATE TABLE predictions(problem_id INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,
                         draft_id INTEGER NOT NULL, model_id INTEGER NOT NULL REFERENCES models(id) ON DELETE CASCADE,
                         value REAL NOT NULL, PRIMARY KEY(problem_id, draft_id, model_id)) STRICT, WITHOUT ROWID;
CREATE INDEX predictions_by_model ON predictions(model_id);
CREATE TABLE lookup(backend_hash TEXT NOT NULL, kernel TEXT NOT NULL, shape TEXT NOT NULL,
                    draft_id INTEGER NOT NULL, time_ns REAL NOT NULL,
                    model_id INTEGER REFERENCES models(id) ON DELETE SET NULL,
                    PRIMARY KEY(backend_hash, kernel, shape)) STRICT, WITHOUT ROWID;
)sql";

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Round trips

TEST(ResultsStore, BackendAndProblemUpsert) {
  auto store = ResultsStore::open(":memory:");
  auto b1 = store.upsertBackend("hbm2-pim", "hash-a", "{}");
  EXPECT_EQ(store.upsertBackend("hbm2-pim-renamed", "hash-a", R"({"x":1})"), b1);
  auto b2 = store.upsertBackend("upmem", "hash-b", "{}");
  EXPECT_NE(b1, b2);

  auto p1 = store.upsertProblem(b1, "gemv", "ir-gemv", "src", "b=1,out=4096,in=4096");
  EXPECT_EQ(store.upsertProblem(b1, "gemv", "ir-gemv", "src", "b=1,out=4096,in=4096"), p1);
  EXPECT_NE(store.upsertProblem(b1, "gemv", "ir-gemv", "src", "b=1,out=1024,in=4096"), p1);
  EXPECT_NE(store.upsertProblem(b2, "gemv", "ir-gemv", "src", "b=1,out=4096,in=4096"), p1);
  EXPECT_EQ(store.findProblem(b1, "ir-gemv", "b=1,out=4096,in=4096"), p1);
  EXPECT_EQ(store.findProblem(b1, "ir-gemm", "b=1,out=4096,in=4096"), std::nullopt);

  expectInputError([&] { store.upsertProblem(9999, "gemv", "ir-gemv", "src", "b=1"); },
                   {":memory:", "upsertProblem", "FOREIGN KEY"});
}

TEST(ResultsStore, DraftsRoundTrip) {
  StoreFixture f;
  std::vector<StoredDraft> drafts = {
      {0, R"({"parts":[1,2]})", {1.0f, -0.0f, 3.5e-30f, std::numeric_limits<float>::max(), 42.25f}},
      {7, R"({"parts":[]})", {}},
      {3, R"({"parts":[3]})", {std::numeric_limits<float>::infinity(), -1.0f}},
  };
  f.store.putDrafts(f.problem, drafts);
  auto back = f.store.drafts(f.problem);
  ASSERT_EQ(back.size(), 3u);
  std::map<std::int64_t, StoredDraft> byId;
  for (const auto& d : drafts) byId[d.draftId] = d;
  std::int64_t prev = -1;
  for (const auto& d : back) {
    EXPECT_GT(d.draftId, prev);  // ordered by draft id
    prev = d.draftId;
    EXPECT_EQ(d.partsJson, byId[d.draftId].partsJson);
    ASSERT_EQ(d.features.size(), byId[d.draftId].features.size());
    for (std::size_t i = 0; i < d.features.size(); ++i)
      EXPECT_EQ(std::signbit(d.features[i]), std::signbit(byId[d.draftId].features[i]));
    EXPECT_EQ(d.features, byId[d.draftId].features);
  }
  // Upsert replaces.
  std::vector<StoredDraft> again = {{7, "{}", {9.0f}}};
  f.store.putDrafts(f.problem, again);
  back = f.store.drafts(f.problem);
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[2].partsJson, "{}");
  EXPECT_EQ(back[2].features, std::vector<float>{9.0f});
}

TEST(ResultsStore, ResultsRoundTrip) {
  StoreFixture f;
  std::vector<StoredResult> rs = {
      makeResult(f.problem, 2),           makeResult(f.problem, 1),
      makeResult(f.problem, 1, "vendor"), makeResult(f.problem, 1, "draft", "tREFI=0"),
      makeResult(f.problem, 0, "gpu"),    makeResult(f.problem, 0, "compute-centric")};
  f.store.putResults(rs);
  EXPECT_EQ(f.store.countResults(f.problem), 6);
  EXPECT_EQ(f.store.countResults(f.problem + 1), 0);

  auto one = f.store.result(f.problem, 1, "draft", "tREFI=0");
  ASSERT_TRUE(one);
  expectSameResult(*one, rs[3]);
  EXPECT_GT(one->createdAt, 1600000000);
  EXPECT_FALSE(f.store.result(f.problem, 1, "draft", "other"));
  EXPECT_FALSE(f.store.result(f.problem, 5, "draft", ""));

  auto all = f.store.results(f.problem);
  ASSERT_EQ(all.size(), 6u);
  expectSameResult(all[0], rs[5]);  // (0, compute-centric) < (0, gpu) < (1, draft, "") < ...
  expectSameResult(all[1], rs[4]);
  expectSameResult(all[2], rs[1]);
  expectSameResult(all[3], rs[3]);
  expectSameResult(all[4], rs[2]);
  expectSameResult(all[5], rs[0]);

  // Same key replaces.
  auto changed = makeResult(f.problem, 2);
  changed.totalCycles = 1;
  f.store.putResults(std::span(&changed, 1));
  EXPECT_EQ(f.store.countResults(f.problem), 6);
  EXPECT_EQ(f.store.result(f.problem, 2, "draft", "")->totalCycles, 1);

  // An unknown schedule is refused and nothing of the batch is written.
  std::vector<StoredResult> bad = {makeResult(f.problem, 10), makeResult(f.problem, 11, "magic")};
  expectInputError([&] { f.store.putResults(bad); }, {"putResults", "unknown schedule 'magic'"});
  EXPECT_EQ(f.store.countResults(f.problem), 6);
  // A batch failing half-way (unknown problem: foreign key) is rolled back as a whole.
  std::vector<StoredResult> half = {makeResult(f.problem, 20), makeResult(f.problem + 100, 21)};
  expectInputError([&] { f.store.putResults(half); }, {"putResults", "FOREIGN KEY"});
  EXPECT_EQ(f.store.countResults(f.problem), 6);
}

TEST(ResultsStore, ModelsAndPredictionsRoundTrip) {
  StoreFixture f;
  StoredModel m;
  m.backendHash = "abc123";
  m.name = "xgb-time";
  m.createdAt = 1000;
  m.bytes = {0, 1, 2, 0, 255, 0};
  m.featureSchema = R"(["tiles","banks"])";
  m.metadata = R"({"rmse":0.1})";
  auto id1 = f.store.putModel(m);
  m.createdAt = 2000;
  m.bytes = {};
  m.metadata = "{}";
  auto id2 = f.store.putModel(m);
  m.createdAt = 1500;  // inserted later but older
  auto id3 = f.store.putModel(m);
  EXPECT_NE(id1, id2);

  auto got = f.store.model(id1);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->id, id1);
  EXPECT_EQ(got->backendHash, "abc123");
  EXPECT_EQ(got->name, "xgb-time");
  EXPECT_EQ(got->createdAt, 1000);
  EXPECT_EQ(got->bytes, (std::vector<std::uint8_t>{0, 1, 2, 0, 255, 0}));
  EXPECT_EQ(got->featureSchema, R"(["tiles","banks"])");
  EXPECT_EQ(got->metadata, R"({"rmse":0.1})");
  EXPECT_FALSE(f.store.model(9999));

  auto latest = f.store.latestModel("abc123", "xgb-time");
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->id, id2);
  EXPECT_TRUE(latest->bytes.empty());
  EXPECT_FALSE(f.store.latestModel("abc123", "other"));
  EXPECT_FALSE(f.store.latestModel("zzz", "xgb-time"));
  (void)id3;

  StoredModel now;
  now.backendHash = "abc123";
  now.name = "fresh";
  auto idNow = f.store.putModel(now);
  EXPECT_GT(f.store.model(idNow)->createdAt, 1600000000);  // stamped by the store

  std::vector<std::pair<std::int64_t, double>> preds = {{5, 1.5}, {1, 2.25}, {3, -0.5}};
  f.store.putPredictions(f.problem, id1, preds);
  std::vector<std::pair<std::int64_t, double>> other = {{1, 9.0}};
  f.store.putPredictions(f.problem, id2, other);
  EXPECT_EQ(f.store.predictions(f.problem, id1),
            (std::vector<std::pair<std::int64_t, double>>{{1, 2.25}, {3, -0.5}, {5, 1.5}}));
  EXPECT_EQ(f.store.predictions(f.problem, id2), other);
  std::vector<std::pair<std::int64_t, double>> update = {{3, 7.0}};
  f.store.putPredictions(f.problem, id1, update);
  EXPECT_EQ(f.store.predictions(f.problem, id1)[1], (std::pair<std::int64_t, double>{3, 7.0}));
  expectInputError([&] { f.store.putPredictions(f.problem, 9999, update); },
                   {"putPredictions", "FOREIGN KEY"});
}

TEST(ResultsStore, LookupUpsert) {
  StoreFixture f;
  EXPECT_FALSE(f.store.lookup("abc123", "ir-gemv", "b=1"));
  f.store.putLookup({"abc123", "ir-gemv", "gemv", "b=1", 17, 1234.5, std::nullopt, "simulated"});
  auto e = f.store.lookup("abc123", "ir-gemv", "b=1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->backendHash, "abc123");
  EXPECT_EQ(e->kernel, "gemv");
  EXPECT_EQ(e->shape, "b=1");
  EXPECT_EQ(e->draftId, 17);
  EXPECT_EQ(e->timeNs, 1234.5);
  EXPECT_EQ(e->modelId, std::nullopt);
  EXPECT_EQ(e->source, "simulated");

  StoredModel m;
  m.backendHash = "abc123";
  m.name = "xgb";
  auto mid = f.store.putModel(m);
  f.store.putLookup({"abc123", "ir-gemv", "gemv", "b=1", 3, 999.0, mid, "model"});  // replaces
  f.store.putLookup({"abc123", "ir-gemv", "gemv", "b=2", 4, 5.0, std::nullopt, "manual"});
  e = f.store.lookup("abc123", "ir-gemv", "b=1");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->draftId, 3);
  EXPECT_EQ(e->timeNs, 999.0);
  EXPECT_EQ(e->modelId, mid);
  EXPECT_EQ(e->source, "model");
  EXPECT_EQ(f.store.lookup("abc123", "ir-gemv", "b=2")->draftId, 4);
  expectInputError(
      [&] {
        f.store.putLookup({"abc123", "ir-gemv", "gemv", "b=3", 4, 5.0, 9999, "model"});
      },
      {"putLookup", "FOREIGN KEY"});
}

// A kernel named like another but computing something else must never see the other's results; the same
// computation under another text (comments, layout, name) keeps them.
TEST(ResultsStore, ProblemsAreKeyedByWhatTheKernelComputes) {
  StoreFixture f;
  std::vector<StoredResult> r = {makeResult(f.problem, 1)};
  f.store.putResults(r);
  const std::string shape = "b=1,out=4096,in=4096";
  EXPECT_EQ(f.store.upsertProblem(f.backend, "gemv", "ir-gemv", "# reformatted\nkernel gemv ...", shape),
            f.problem);
  EXPECT_EQ(f.store.countResults(f.problem), 1);
  EXPECT_EQ(f.store.upsertProblem(f.backend, "my_gemv", "ir-gemv", "kernel my_gemv ...", shape), f.problem);
  const auto other = f.store.upsertProblem(f.backend, "gemv", "ir-other", "kernel gemv (other)", shape);
  EXPECT_NE(other, f.problem);
  EXPECT_EQ(f.store.countResults(other), 0);
  EXPECT_EQ(f.store.findProblem(f.backend, "ir-gemv", shape), f.problem);
}

TEST(ResultsStore, TransactionsCommitRollBackAndNest) {
  StoreFixture f;
  {
    ResultsStore::Transaction tx(f.store);
    std::vector<StoredResult> a = {makeResult(f.problem, 1)}, b = {makeResult(f.problem, 2)};
    f.store.putResults(a);
    f.store.putResults(b);
  }  // no commit: both rolled back
  EXPECT_EQ(f.store.countResults(f.problem), 0);
  {
    ResultsStore::Transaction tx(f.store);
    std::vector<StoredResult> a = {makeResult(f.problem, 1)};
    f.store.putResults(a);
    {
      ResultsStore::Transaction inner(f.store);
      std::vector<StoredResult> b = {makeResult(f.problem, 2)};
      f.store.putResults(b);
    }  // inner rolled back only
    {
      ResultsStore::Transaction inner(f.store);
      std::vector<StoredResult> c = {makeResult(f.problem, 3)};
      f.store.putResults(c);
      inner.commit();
    }
    // A failing batch inside the outer transaction rolls back only itself.
    std::vector<StoredResult> bad = {makeResult(f.problem, 4), makeResult(f.problem + 50, 5)};
    EXPECT_THROW(f.store.putResults(bad), InputError);
    tx.commit();
    EXPECT_THROW(tx.commit(), std::logic_error);
  }
  auto all = f.store.results(f.problem);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].draftId, 1);
  EXPECT_EQ(all[1].draftId, 3);
}

TEST(ResultsStore, MoveKeepsTheConnection) {
  StoreFixture f;
  ResultsStore moved = std::move(f.store);
  std::vector<StoredResult> r = {makeResult(f.problem, 1)};
  moved.putResults(r);
  ResultsStore other = ResultsStore::open(":memory:");
  other = std::move(moved);
  EXPECT_EQ(other.countResults(f.problem), 1);
  EXPECT_THROW(moved.countResults(f.problem), std::logic_error);  // NOLINT(bugprone-use-after-move)
}

// ---------------------------------------------------------------------------------------------------------------
// Files: persistence, header, migration

TEST(ResultsStore, FileStorePersistsWithWalAndApplicationId) {
  TempDir dir;
  auto path = dir.file("runs.db");
  std::int64_t problem = 0;
  {
    StoreFixture f(path);
    problem = f.problem;
    std::vector<StoredResult> r = {makeResult(f.problem, 1), makeResult(f.problem, 2)};
    f.store.putResults(r);
    EXPECT_EQ(f.store.path(), path);
  }
  EXPECT_EQ(rawInt(path, "PRAGMA application_id"), ResultsStore::kApplicationId);
  EXPECT_EQ(rawInt(path, "SELECT value FROM meta WHERE key = 'schema_version'"),
            ResultsStore::schemaVersion());
  EXPECT_EQ(rawInt(path, "SELECT value FROM meta WHERE key = 'application_id'"),
            ResultsStore::kApplicationId);
  EXPECT_EQ(readBytes(path).substr(18, 2), std::string("\x02\x02", 2));  // WAL read/write versions
  auto store = ResultsStore::open(path);
  EXPECT_EQ(store.countResults(problem), 2);
  EXPECT_EQ(store.results(problem)[1].draftId, 2);
}

TEST(ResultsStore, MigratesV1ToV2) {
  TempDir dir;
  auto path = dir.file("old.db");
  rawExec(path, kV1Store);
  rawExec(path, R"sql(
    INSERT INTO backends VALUES (1, 'hbm2-pim', 'h1', '{}');
    INSERT INTO problems VALUES (1, 1, 'gemv', 'src', 'b=1');
    INSERT INTO models VALUES (1, 'h1', 'xgb', 100, x'00ff', '[]', '{}');
    INSERT INTO results VALUES (1, 4, 'draft', '', 1, 2, 3, 6, 3.0, 9.0, '{}', '[]', 100);
    INSERT INTO lookup VALUES ('h1', 'gemv', 'b=1', 4, 3.0, NULL);
    INSERT INTO lookup VALUES ('h1', 'gemv', 'b=2', 5, 4.0, 1);
  )sql");
  ASSERT_EQ(rawInt(path, "SELECT value FROM meta WHERE key = 'schema_version'"), 1);
  {
    auto store = ResultsStore::open(path);
    // Rows keyed by name stay (as "name:gemv"), matching no kernel's computation hash.
    EXPECT_FALSE(store.lookup("h1", "ir-gemv", "b=1"));
    auto a = store.lookup("h1", "name:gemv", "b=1");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->draftId, 4);
    EXPECT_EQ(a->source, "simulated");
    auto b = store.lookup("h1", "name:gemv", "b=2");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->modelId, 1);
    EXPECT_EQ(b->source, "model");
    EXPECT_EQ(store.countResults(1), 1);
    EXPECT_EQ(store.result(1, 4, "draft", "")->totalCycles, 6);
    EXPECT_EQ(store.model(1)->bytes, (std::vector<std::uint8_t>{0, 255}));
    // The old problem row's labels go only to a kernel made from exactly its text.
    EXPECT_NE(store.upsertProblem(1, "gemv", "ir-other", "other text", "b=1"), 1);
    EXPECT_EQ(store.upsertProblem(1, "gemv", "ir-gemv", "src", "b=1"), 1);
    EXPECT_EQ(store.countResults(1), 1);
    store.putLookup({"h1", "ir-gemv", "gemv", "b=3", 6, 5.0, std::nullopt, "manual"});
    EXPECT_EQ(store.lookup("h1", "ir-gemv", "b=3")->source, "manual");
  }
  EXPECT_EQ(rawInt(path, "SELECT value FROM meta WHERE key = 'schema_version'"),
            ResultsStore::schemaVersion());
  EXPECT_EQ(rawInt(path, "SELECT count(*) FROM pragma_table_info('lookup') WHERE name = 'source'"), 1);
  // Migrated and freshly created stores have the same schema.
  auto fresh = dir.file("fresh.db");
  { auto s = ResultsStore::open(fresh); }
  auto schemaOf = [](const std::string& p) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(p.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "SELECT name, type FROM sqlite_schema ORDER BY name", -1, &s, nullptr);
    std::string out;
    while (sqlite3_step(s) == SQLITE_ROW)
      out += std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))) + ":" +
             reinterpret_cast<const char*>(sqlite3_column_text(s, 1)) + ";";
    sqlite3_finalize(s);
    sqlite3_close(db);
    return out;
  };
  EXPECT_EQ(schemaOf(path), schemaOf(fresh));
  EXPECT_EQ(rawInt(fresh, "SELECT count(*) FROM pragma_table_info('lookup')"),
            rawInt(path, "SELECT count(*) FROM pragma_table_info('lookup')"));
}
