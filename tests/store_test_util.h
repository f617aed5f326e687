// SPDX-License-Identifier: Apache-2.0
// Helpers of the results store's tests (tests/test_store*.cpp, test_malformed_*.cpp): plain SQLite access
// beside PIMScope's, a result of known numbers, and a store holding one backend and one problem.
#pragma once
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <utility>

#include "engine/store/store.h"

namespace pim::test {

/// Runs SQL on the SQLite file `db` through a plain connection, as someone editing the file would.
inline void rawExec(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(h);
}

/// One integer from a plain SQLite connection.
inline std::int64_t rawInt(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::int64_t v = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
      v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return v;
}

inline StoredResult makeResult(std::int64_t problem, std::int64_t draft, std::string schedule = "draft",
                               std::string options = "", std::size_t jsonBytes = 16) {
  StoredResult r;
  r.problem = problem;
  r.draftId = draft;
  r.schedule = std::move(schedule);
  r.options = std::move(options);
  r.inputCycles = 100 + draft;
  r.computeCycles = 2000 + draft;
  r.outputCycles = 30 + draft;
  r.totalCycles = r.inputCycles + r.computeCycles + r.outputCycles;
  r.timeNs = r.totalCycles * 0.5;
  r.energyPj = 1.25e6 + draft;
  r.energyJson = R"({"ACT":1.5,"pad":")" + std::string(jsonBytes, 'e') + "\"}";
  r.banksJson = "[" + std::to_string(draft) + "]";
  return r;
}

inline void expectSameResult(const StoredResult& a, const StoredResult& b) {
  EXPECT_EQ(a.problem, b.problem);
  EXPECT_EQ(a.draftId, b.draftId);
  EXPECT_EQ(a.schedule, b.schedule);
  EXPECT_EQ(a.options, b.options);
  EXPECT_EQ(a.inputCycles, b.inputCycles);
  EXPECT_EQ(a.computeCycles, b.computeCycles);
  EXPECT_EQ(a.outputCycles, b.outputCycles);
  EXPECT_EQ(a.totalCycles, b.totalCycles);
  EXPECT_EQ(a.timeNs, b.timeNs);
  EXPECT_EQ(a.energyPj, b.energyPj);
  EXPECT_EQ(a.energyJson, b.energyJson);
  EXPECT_EQ(a.banksJson, b.banksJson);
}

/// A store with one backend and one problem.
struct StoreFixture {
  ResultsStore store;
  std::int64_t backend;
  std::int64_t problem;
  explicit StoreFixture(const std::string& path = ":memory:")
      : store(ResultsStore::open(path)),
        backend(store.upsertBackend("hbm2-pim", "abc123", R"({"name":"hbm2-pim"})")),
        problem(store.upsertProblem(backend, "gemv", "ir-gemv", "kernel gemv ...", "b=1,out=4096,in=4096")) {}
};

}  // namespace pim::test
