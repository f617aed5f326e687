// SPDX-License-Identifier: Apache-2.0
// Crash safety of the results store (issue 22 item 9): `train`, `explore --db` and `evaluate --db` killed
// with SIGKILL at moments spread over their run leave a store that opens, passes SQLite's integrity check,
// still holds what was committed before, and on which a rerun completes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "engine/store/store.h"
#include "tests/cli_run.h"
#include "tests/test_util.h"

namespace {

#ifdef PIMSCOPE_CLI
using Clock = std::chrono::steady_clock;
using pim::test::CliRun;

using pim::test::cli;
using pim::test::cliScratch;

/// `pimscope-cli <args>` in a child process (output discarded); its pid.
pid_t startCli(const std::string& args) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string cmd = "exec " + std::string(PIMSCOPE_CLI) + " " + args + " >/dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

/// SIGKILL to `pid`, then its wait status.
int killNow(pid_t pid) {
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

/// Starts `args` and kills it `after` into its run; true when it was killed (not already finished).
bool killAfter(const std::string& args, Clock::duration after) {
  const pid_t pid = startCli(args);
  if (pid < 0) return false;
  std::this_thread::sleep_for(after);
  return WIFSIGNALED(killNow(pid));
}

/// One value of a query on the store, read-only (another process may be writing); -1 when it fails (no such
/// table yet).
long long queryInt(const std::string& db, const char* sql) {
  sqlite3* h = nullptr;
  long long n = -1;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  return n;
}
long long storedResults(const std::string& db) { return queryInt(db, "SELECT count(*) FROM results"); }

/// The store opens (migrations included) and SQLite's integrity check says "ok".
void expectIntact(const std::string& db, const std::string& when) {
  EXPECT_NO_THROW({ pim::ResultsStore::open(db); }) << when;
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK) << when;
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, nullptr), SQLITE_OK) << when;
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW) << when;
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)), "ok") << when;
  sqlite3_finalize(st);
  sqlite3_close(h);
}

/// `args` run to the end (it must succeed) and how long it took: the kills below are spread over this time.
struct TimedRun {
  nlohmann::json out;
  Clock::duration took;
};
TimedRun timedRun(const std::string& args) {
  const auto start = Clock::now();
  const CliRun r = cli(args);
  const auto took = Clock::now() - start;
  EXPECT_EQ(r.code, 0) << args << "\n" << r.err;
  return {r.code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json(), took};
}
Clock::duration moment(const TimedRun& run, double fraction) {
  return std::chrono::duration_cast<Clock::duration>(run.took * fraction);
}

// Fractions of a full run at which the runs are killed: while the store opens, while searching or labelling,
// and near the end, where the lookup entry or the last batch is written.
constexpr double kKillMoments[] = {0.02, 0.15, 0.4, 0.7, 0.9, 0.98};

// The predictor issue's "done means": kill -9 during `train` leaves a store that opens and holds every
// finished batch, and a second `train` on it finishes, reusing them.
TEST(Kill9, TrainLeavesAStoreThatOpensAndResumes) {
  const std::string db = cliScratch().file("killed_train.db");
  const std::string suite = cliScratch().file("kill_suite.json");
  const std::string models = cliScratch().file("killed_models");
  std::ofstream(suite) << R"({"name": "kill", "description": "kill -9 during train",
    "kernels": {"gemv": ["b=1,out=1024,in=1024", "b=2,out=1024,in=2048"]}})";
  const std::string train = "train -b hbm-pim --suite " + suite + " --db " + db + " --out " + models;
  const pid_t pid = startCli(train);
  ASSERT_GE(pid, 0);
  long long before = -1;
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while ((before = storedResults(db)) <= 0 && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const int status = killNow(pid);
  ASSERT_GT(before, 0) << "train stored nothing within two minutes";
  ASSERT_TRUE(WIFSIGNALED(status)) << "train finished before it could be killed";

  expectIntact(db, "after the kill");
  const long long afterKill = storedResults(db);
  EXPECT_GE(afterKill, before);
  const CliRun resumed = cli(train + " --json");
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_GT(storedResults(db), afterKill);
}

// `explore --db` writes its schema on open and its pick at the end. A pick stored before is still served from
// the lookup table after every kill, and the killed query itself completes on a rerun.
TEST(Kill9, ExploreLeavesStoredPicksAndCompletesOnARerun) {
  const std::string db = cliScratch().file("killed_explore.db");
  const std::string stored = "explore -b hbm-pim -k red -d b=1,n=1024 --db " + db + " --json";
  const CliRun first = cli(stored);
  ASSERT_EQ(first.code, 0) << first.err;
  const auto pick = nlohmann::json::parse(first.out)["best"];
  const std::string killed = "explore -b hbm-pim -k gemv -d b=1,out=1024,in=2048 --db " + db + " --json";
  const std::string probe = cliScratch().file("probe.db");
  const TimedRun full = timedRun("explore -b hbm-pim -k gemv -d b=1,out=1024,in=2048 --json --db " + probe);

  int kills = 0;
  for (const double at : kKillMoments) {
    const std::string when = "killed at " + std::to_string(at) + " of a run";
    kills += killAfter(killed, moment(full, at));
    expectIntact(db, when);
    const CliRun again = cli(stored);
    ASSERT_EQ(again.code, 0) << when << "\n" << again.err;
    const auto j = nlohmann::json::parse(again.out);
    EXPECT_EQ(j["served_from"], "lookup table") << when;
    EXPECT_EQ(j["best"]["draft"], pick["draft"]) << when;
  }
  EXPECT_GE(kills, 3) << "most runs must be killed before they finish";
  const CliRun rerun = cli(killed);
  ASSERT_EQ(rerun.code, 0) << rerun.err;
  EXPECT_EQ(nlohmann::json::parse(rerun.out)["best"]["draft"], full.out["best"]["draft"]);
  EXPECT_EQ(nlohmann::json::parse(cli(killed).out)["served_from"], "lookup table");
}

// `evaluate --db` commits each shape's labels as one batch: none is lost or torn by a kill, and a rerun
// finishes on what is stored.
TEST(Kill9, EvaluateKeepsCommittedLabelsAndCompletesOnARerun) {
  const std::string db = cliScratch().file("killed_evaluate.db");
  const std::string suite = cliScratch().file("evaluate_suite.json");
  std::ofstream(suite) << R"({"name": "kill", "description": "kill -9 during evaluate",
    "kernels": {"red": ["b=1,n=1024", "b=2,n=2048", "b=4,n=4096"]}})";
  const std::string evaluate = "evaluate -b hbm-pim -k red --suite " + suite + " --db " + db + " --json";
  const TimedRun full =
      timedRun("evaluate -b hbm-pim -k red --json --suite " + suite + " --db " + cliScratch().file("p.db"));

  long long committed = 0;
  int kills = 0;
  for (const double at : kKillMoments) {
    const std::string when = "killed at " + std::to_string(at) + " of a run";
    kills += killAfter(evaluate, moment(full, at));
    expectIntact(db, when);
    const long long now = std::max(0LL, storedResults(db));
    EXPECT_GE(now, committed) << when << ": committed labels were lost";
    committed = now;
  }
  EXPECT_GE(kills, 3) << "most runs must be killed before they finish";
  const CliRun rerun = cli(evaluate);
  ASSERT_EQ(rerun.code, 0) << rerun.err;
  // The same optimum and pick per shape as a run that was never killed: no label was torn.
  const auto rows = nlohmann::json::parse(rerun.out)["rows"];
  ASSERT_EQ(rows.size(), 3u) << rerun.out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i]["optimum"], full.out["rows"][i]["optimum"]) << rows[i]["shape"];
    EXPECT_EQ(rows[i]["pick"], full.out["rows"][i]["pick"]) << rows[i]["shape"];
  }
  expectIntact(db, "after the rerun");
  EXPECT_GE(storedResults(db), committed);
}
#endif

}  // namespace
