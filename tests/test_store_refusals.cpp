// SPDX-License-Identifier: Apache-2.0
// Results store: refusal of foreign, corrupt and newer files (left byte-for-byte untouched), a full disk, and
// durability across kill -9.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/store/store.h"
#include "tests/store_test_util.h"
#include "tests/test_util.h"

using pim::InputError;
using pim::ResultsStore;
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

namespace fs = std::filesystem;

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Refusals: the file is left byte-for-byte untouched

TEST(ResultsStore, RefusesRandomBytes) {
  TempDir dir;
  auto path = dir.file("random.db");
  std::mt19937 rng(42);
  std::string bytes(8192, '\0');
  for (auto& c : bytes) c = static_cast<char>(rng());
  writeBytes(path, bytes);
  expectInputError([&] { ResultsStore::open(path); }, {path + ": file is not a database"});
  EXPECT_EQ(readBytes(path), bytes);

  auto text = dir.file("notes.txt");
  writeBytes(text, "hello\n");
  expectInputError([&] { ResultsStore::open(text); }, {text + ": file is not a database"});
  EXPECT_EQ(readBytes(text), "hello\n");
}

TEST(ResultsStore, RefusesTruncatedDatabase) {
  TempDir dir;
  auto path = dir.file("truncated.db");
  {
    StoreFixture f(path);
    std::vector<StoredResult> rs;
    for (int i = 0; i < 2000; ++i) rs.push_back(makeResult(f.problem, i, "draft", "", 200));
    f.store.putResults(rs);
  }
  auto full = readBytes(path);
  ASSERT_GT(full.size(), 100'000u);
  fs::resize_file(path, full.size() / 2);
  auto bytes = readBytes(path);
  expectInputError([&] { ResultsStore::open(path); }, {path + ": database is corrupt: "});
  EXPECT_EQ(readBytes(path), bytes);
}

TEST(ResultsStore, RefusesForeignSqliteDatabase) {
  TempDir dir;
  auto path = dir.file("foreign.db");
  rawExec(path, "CREATE TABLE foo(x INTEGER); INSERT INTO foo VALUES (1), (2);");
  auto bytes = readBytes(path);
  expectInputError([&] { ResultsStore::open(path); },
                   {path + ": not a PIMScope store (application id 0x00000000)"});
  EXPECT_EQ(readBytes(path), bytes);

  auto other = dir.file("other-app.db");
  rawExec(other, "PRAGMA application_id = 305419896; CREATE TABLE foo(x);");
  bytes = readBytes(other);
  expectInputError([&] { ResultsStore::open(other); },
                   {other + ": not a PIMScope store (application id 0x12345678)"});
  EXPECT_EQ(readBytes(other), bytes);
}

TEST(ResultsStore, RefusesNewerSchema) {
  TempDir dir;
  auto path = dir.file("newer.db");
  { auto s = ResultsStore::open(path); }
  rawExec(path, "UPDATE meta SET value = 99 WHERE key = 'schema_version'");
  auto bytes = readBytes(path);
  expectInputError([&] { ResultsStore::open(path); },
                   {path + ": written by a newer PIMScope (schema 99, this build reads up to " +
                    std::to_string(ResultsStore::schemaVersion()) + ")"});
  EXPECT_EQ(readBytes(path), bytes);
}

TEST(ResultsStore, RefusesUnopenablePath) {
  TempDir dir;
  expectInputError([&] { ResultsStore::open(dir.file("no/such/dir/x.db")); }, {"no/such/dir/x.db", "open"});
}

// ---------------------------------------------------------------------------------------------------------------
// Failure and crash safety

TEST(ResultsStore, DiskFullKeepsCommittedBatches) {
  TempDir dir;
  auto path = dir.file("full.db");
  std::int64_t problem = 0;
  constexpr int kBatch = 50;
  auto batch = [&](int b) {
    std::vector<StoredResult> rs;
    for (int i = 0; i < kBatch; ++i) rs.push_back(makeResult(problem, b * kBatch + i, "draft", "", 1000));
    return rs;
  };
  {
    StoreFixture f(path);
    problem = f.problem;
    for (int b = 0; b < 3; ++b) f.store.putResults(batch(b));
    auto pages = rawInt(path, "PRAGMA page_count");
    ASSERT_GT(pages, 0);
    // WAL frames count towards the size: allow only a few more pages than the committed data needs.
    f.store.setMaxPageCount(pages + 4);
    expectInputError([&] { f.store.putResults(batch(3)); }, {path + ": putResults: disk full"});
    // The connection stays usable and holds exactly the committed batches.
    EXPECT_EQ(f.store.countResults(problem), 3 * kBatch);
    // Small writes that fit still work.
    std::vector<StoredResult> small = {makeResult(problem, 9999)};
    f.store.putResults(small);
  }
  auto store = ResultsStore::open(path);
  EXPECT_EQ(store.countResults(problem), 3 * kBatch + 1);
  auto all = store.results(problem);
  for (int i = 0; i < 3 * kBatch; ++i) {
    ASSERT_EQ(all[i].draftId, i);
    expectSameResult(all[i], makeResult(problem, i, "draft", "", 1000));
  }
}

TEST(ResultsStore, CommittedBatchesSurviveKill9) {
  TempDir dir;
  auto path = dir.file("killed.db");
  constexpr int kBatch = 40;
  constexpr int kWaitFor = 200;
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(fds[0]);
    try {
      auto store = ResultsStore::open(path);
      auto b = store.upsertBackend("hbm2-pim", "h", "{}");
      auto p = store.upsertProblem(b, "gemv", "ir-gemv", "src", "b=1");
      for (std::int32_t n = 0; n < 1'000'000; ++n) {
        std::vector<StoredResult> rs;
        for (int i = 0; i < kBatch; ++i)
          rs.push_back(makeResult(p, std::int64_t{n} * kBatch + i, "draft", "", 300));
        store.putResults(rs);
        std::int32_t done = n + 1;
        if (write(fds[1], &done, sizeof done) != sizeof done) _exit(3);
      }
    } catch (...) {
      _exit(2);
    }
    _exit(0);
  }
  close(fds[1]);
  std::int32_t committed = 0;
  while (committed < kWaitFor) {
    std::int32_t n = 0;
    ssize_t got = read(fds[0], &n, sizeof n);
    if (got != sizeof n) break;
    committed = n;
  }
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  close(fds[0]);
  ASSERT_GE(committed, kWaitFor) << "writer stopped early, status " << status;
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
  // The writer never closed: its committed batches are (at least partly) still only in the write-ahead log.
  EXPECT_TRUE(fs::exists(path + "-wal"));

  auto store = ResultsStore::open(path);
  auto b = store.upsertBackend("hbm2-pim", "h", "{}");
  auto p = store.findProblem(b, "ir-gemv", "b=1");
  ASSERT_TRUE(p);
  auto all = store.results(*p);
  std::map<std::int64_t, int> perBatch;
  for (const auto& r : all) ++perBatch[r.draftId / kBatch];
  ASSERT_GE(static_cast<std::int64_t>(perBatch.size()), committed);
  std::int64_t expectBatch = 0;
  for (const auto& [batchNo, count] : perBatch) {
    EXPECT_EQ(batchNo, expectBatch++) << "batches are committed in order";
    EXPECT_EQ(count, kBatch) << "partial batch " << batchNo;
  }
  for (const auto& r : all) expectSameResult(r, makeResult(*p, r.draftId, "draft", "", 300));
}
