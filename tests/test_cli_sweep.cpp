// SPDX-License-Identifier: Apache-2.0
// `pimscope-cli sweep` and `merge` as a user runs them: one process, then two MPI ranks under the launcher
// CMake found (oversubscribed, or placed by a hostfile), give the same labels; a rank killed mid-sweep loses
// at most its unit in flight and the same command resumes; merging is idempotent; bad options are refused by
// name. Under Slurm, srun's tasks are the ranks; srun's tasks without a PMI are refused.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "engine/store/store.h"
#include "engine/target/registry.h"
#include "engine/workflow/suite.h"
#include "tests/cli_run.h"
#include "tests/store_labels.h"

namespace pim {
namespace {

using test::cli;
using test::cliJson;
using test::expectCliRefused;

std::string quickSuite() { return std::string(PIMSCOPE_TEST_DATA_DIR) + "/../../datasets/suites/quick.json"; }

std::vector<test::Label> labelsIn(const std::string& db) {
  auto store = ResultsStore::open(db);
  return test::labelsOf(store, builtinBackend("hbm-pim"), loadSuite(quickSuite()));
}

TEST(CliSweep, OneProcessLabelsTheSampleAndResumesToNothing) {
  const test::TempDir dir;
  const std::string args = "sweep -b hbm-pim --suite " + quickSuite() + " --db " + dir.file("s.db") +
                           " --unit-drafts 64 --threads 1 --json";
  const auto first = cliJson(args);
  ASSERT_TRUE(first.is_object());
  EXPECT_EQ(first["ranks"], 1);
  EXPECT_EQ(first["units_run"], first["units"]);
  EXPECT_EQ(first["units_complete"], first["units"]);
  EXPECT_EQ(first["simulated"], first["drafts"]);
  EXPECT_EQ(first["merge"]["results"], first["labelled"]);
  EXPECT_FALSE(std::filesystem::exists(dir.file("s.db.shards")));  // merged, then removed
  const auto again = cliJson(args);
  EXPECT_EQ(again["units_resumed"], first["units"]);
  EXPECT_EQ(again["units_run"], 0);
  EXPECT_EQ(again["simulated"], 0);
  EXPECT_EQ(labelsIn(dir.file("s.db")).size(), first["labelled"].get<std::size_t>());
}

TEST(CliSweep, MergeIsIdempotent) {
  const test::TempDir dir;
  cliJson("sweep -b hbm-pim --suite " + quickSuite() + " --db " + dir.file("a.db") + " --threads 1 --json");
  const auto once = cliJson("merge --db " + dir.file("m.db") + " " + dir.file("a.db") + " --json");
  EXPECT_GT(once["results"].get<int>(), 0);
  const auto twice = cliJson("merge --db " + dir.file("m.db") + " " + dir.file("a.db") + " --json");
  EXPECT_EQ(twice["results"], 0);
  EXPECT_EQ(twice["disagreements"], 0);
  EXPECT_EQ(labelsIn(dir.file("m.db")), labelsIn(dir.file("a.db")));
}

TEST(CliSweep, RefusesBadOptionsByName) {
  const test::TempDir dir;
  const std::string base = "sweep -b hbm-pim --suite " + quickSuite() + " --db " + dir.file("x.db");
  expectCliRefused(base + " --labels every", {"--labels", "'every'", "sample, all"});
  expectCliRefused(base + " --unit-drafts 0", {"--unit-drafts"});
  expectCliRefused("merge --db " + dir.file("m.db") + " " + dir.file("missing.db"), {"missing.db"});
  std::ofstream(dir.file("empty.db")).flush();
  expectCliRefused("merge --db " + dir.file("m.db") + " " + dir.file("empty.db"),
                   {"empty.db", "an empty file"});
  EXPECT_EQ(std::filesystem::file_size(dir.file("empty.db")), 0u);
}

TEST(CliTrainActive, PrintsItsRoundsAndRefusesBadSettings) {
  const test::TempDir dir;
  std::ofstream(dir.file("one.json")) << R"({"name": "one", "kernels": {"red": ["b=1,n=1024"]}})";
  const std::string base = "train -b hbm-pim --suite " + dir.file("one.json") + " --out " + dir.file("m") +
                           " --active --max-rounds 20 --threads 1";
  const auto j = cliJson(base + " --active-rounds 3 --json");
  ASSERT_TRUE(j.is_object());
  ASSERT_TRUE(j["active"].is_object());
  const auto& rounds = j["active"]["rounds"];
  ASSERT_GE(rounds.size(), 1u);
  EXPECT_LE(rounds.size(), 3u);
  EXPECT_EQ(j["samples"].get<std::size_t>() + j["validation_samples"].get<std::size_t>(),
            rounds.back()["labels"].get<std::size_t>());
  EXPECT_LT(rounds.back()["labels"].get<double>(), 0.15 * j["active"]["drafts"].get<double>());
  expectCliRefused(base + " --active-seed 2", {"--active-seed"});
  expectCliRefused(base + " --active-batch 0", {"--active-batch"});
}

// srun's tasks without a PMI (srun --mpi=none, or a site whose default is none) are not ranks of one job:
// each would run the whole plan into the same shards and store. They are refused before any work.
TEST(CliSweep, SrunTasksThatAreNotMpiRanksAreRefused) {
  const test::TempDir dir;
  const test::CliRun r =
      test::runCli("sweep -b hbm-pim --suite " + quickSuite() + " --db " + dir.file("s.db"),
                   test::cliScratch().file("srun_refused.txt"), "SLURM_STEP_NUM_TASKS=2");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("srun started 2 tasks"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("same store"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("s.db")));
  // One task of a step (or a batch script's own step) runs as one process.
  const test::CliRun one =
      test::runCli("sweep -b hbm-pim --suite " + quickSuite() + " --db " + dir.file("one.db") + " --json",
                   test::cliScratch().file("srun_one.txt"), "SLURM_STEP_NUM_TASKS=1");
  EXPECT_EQ(one.code, 0) << one.err;
}

#ifdef PIMSCOPE_MPIEXEC
// The launcher line: oversubscribed (CI has 2 cores), allowed as root (CI containers), and under the
// sanitizers without leak reports (MPI's own allocations at exit are not ours).
// `placement` says where the ranks go (default: all on this machine, more ranks than cores allowed).
std::string launcher(int ranks, const std::string& placement = "--oversubscribe") {
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
         "ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" " +
         std::string(PIMSCOPE_MPIEXEC) + " " + placement + " -n " + std::to_string(ranks);
}

test::CliRun runRanks(int ranks, const std::string& args, const std::string& placement = "--oversubscribe") {
  return test::runCli(args, test::cliScratch().file("mpi_err.txt"), launcher(ranks, placement));
}

TEST(CliSweepMpi, TwoRanksGiveTheSingleProcessStore) {
  const test::TempDir dir;
  const std::string common = "sweep -b hbm-pim --suite " + quickSuite() + " --unit-drafts 32 --json --db ";
  cliJson(common + dir.file("one.db") + " --threads 1");
  const test::CliRun two = runRanks(2, common + dir.file("two.db"));
  ASSERT_EQ(two.code, 0) << two.err;
  const auto j = nlohmann::json::parse(two.out);
  EXPECT_EQ(j["ranks"], 2);
  EXPECT_EQ(j["threads_per_rank"], 1);  // the machine's threads shared by its two ranks
  EXPECT_EQ(j["units_complete"], j["units"]);
  EXPECT_EQ(labelsIn(dir.file("two.db")), labelsIn(dir.file("one.db")));
  auto store = ResultsStore::open(dir.file("two.db"));
  EXPECT_EQ(store.sweepUnits(j["plan"].get<std::string>()).size(), j["units"].get<std::size_t>());
  // train from either store: the same labels, and the byte-identical model.
  for (const char* db : {"one.db", "two.db"}) {
    const auto t = cliJson("train -b hbm-pim --suite " + quickSuite() + " --max-rounds 20 --threads 1 --db " +
                           dir.file(db) + " --out " + dir.file(std::string("m_") + db) + " --json");
    EXPECT_EQ(t["samples"].get<std::size_t>() + t["validation_samples"].get<std::size_t>(),
              j["labelled"].get<std::size_t>());
  }
  std::ifstream a(dir.file("m_one.db/hbm-pim.model"), std::ios::binary),
      b(dir.file("m_two.db/hbm-pim.model"), std::ios::binary);
  const std::string modelOne{std::istreambuf_iterator<char>(a), {}},
      modelTwo{std::istreambuf_iterator<char>(b), {}};
  EXPECT_FALSE(modelOne.empty());
  EXPECT_EQ(modelOne, modelTwo);
}

// Branch and bound across ranks: two ranks share each shape's incumbent through rank 0 and prove the same
// optima as one process and as `evaluate` (whose branch and bound runs in one process), in the same store
// format; the labels themselves differ (which drafts finish depends on when the incumbent arrives).
TEST(CliSweepMpi, TwoRanksProveTheOptimaOfOneProcess) {
  const test::TempDir dir;
  // Three small shapes: the sanitizers' run of it (three sweeps or evaluations) stays within a minute.
  const std::string suite = dir.file("small.json");
  std::ofstream(suite) << R"({"name": "small", "description": "three small shapes",
                              "kernels": {"red": ["b=1,n=1024", "b=2,n=2048"], "va": ["b=1,n=1024"]}})";
  const std::string common =
      "sweep -b hbm-pim --suite " + suite + " --labels optimum --unit-drafts 128 --json --db ";
  const auto one = cliJson(common + dir.file("one.db") + " --threads 1");
  const test::CliRun two = runRanks(2, common + dir.file("two.db"));
  ASSERT_EQ(two.code, 0) << two.err;
  const auto j = nlohmann::json::parse(two.out);
  EXPECT_EQ(j["ranks"], 2);
  EXPECT_EQ(j["units_complete"], j["units"]);
  ASSERT_EQ(j["optima"].size(), one["optima"].size());
  EXPECT_FALSE(j["optima"].empty());
  EXPECT_LT(j["labelled"].get<std::size_t>(), j["drafts"].get<std::size_t>() / 2);
  // Running units traded incumbents with rank 0 (every 10 ms; these units take tens of ms).
  EXPECT_GT(j["shares"].get<std::size_t>(), 0u);
  for (std::size_t i = 0; i < j["optima"].size(); ++i) {
    EXPECT_EQ(j["optima"][i]["draft"], one["optima"][i]["draft"]) << j["optima"][i]["shape"];
    EXPECT_EQ(j["optima"][i]["cycles"], one["optima"][i]["cycles"]) << j["optima"][i]["shape"];
  }
  const auto red = cliJson("evaluate -b hbm-pim -k red --suite " + suite + " --threads 1 --json");
  for (const auto& row : red["rows"]) {
    bool found = false;
    for (const auto& o : j["optima"])
      if (o["kernel"] == "red" && o["shape"] == row["shape"]) {
        EXPECT_EQ(o["draft"], row["optimum"]) << row["shape"];
        found = true;
      }
    EXPECT_TRUE(found) << row["shape"];
  }
}

// Ranks placed by a hostfile, as on a cluster (here one machine with two slots, so without oversubscribing).
TEST(CliSweepMpi, RanksPlacedByAHostfileGiveTheSingleProcessStore) {
  const test::TempDir dir;
  std::ofstream(dir.file("hosts")) << "localhost slots=2\n";
  const std::string common = "sweep -b hbm-pim --suite " + quickSuite() + " --unit-drafts 64 --json --db ";
  cliJson(common + dir.file("one.db") + " --threads 1");
  const test::CliRun two = runRanks(2, common + dir.file("two.db"), "--hostfile " + dir.file("hosts"));
  ASSERT_EQ(two.code, 0) << two.err;
  const auto j = nlohmann::json::parse(two.out);
  EXPECT_EQ(j["ranks"], 2);
  EXPECT_EQ(j["units_complete"], j["units"]);
  EXPECT_EQ(labelsIn(dir.file("two.db")), labelsIn(dir.file("one.db")));
}

// The number of units of `plan` recorded complete in the shards of `dir` so far.
std::size_t unitsInShards(const std::string& dir, const std::string& plan) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".db") continue;
    try {
      auto s = ResultsStore::open(e.path().string());
      n += s.sweepUnits(plan).size();
    } catch (const InputError&) {
    }
  }
  return n;
}

TEST(CliSweepMpi, AKilledRankLosesAtMostItsUnitAndTheSameCommandResumes) {
  const test::TempDir dir;
  const std::string common = "sweep -b hbm-pim --suite " + quickSuite() + " --unit-drafts 2 --json --db ";
  const std::string plan = cliJson(common + dir.file("one.db") + " --threads 1")["plan"];
  const std::string args = common + dir.file("two.db");
  // Start two ranks in the background, and kill one of them (a child of the launcher) once units complete.
  const std::string pidFile = dir.file("mpirun.pid");
  const std::string start = launcher(2) + " " + std::string(PIMSCOPE_CLI) + " " + args + " >" +
                            dir.file("killed.out") + " 2>" + dir.file("killed.err") + " & echo $! >" +
                            pidFile;
  ASSERT_EQ(std::system(start.c_str()), 0);
  std::ifstream pidIn(pidFile);
  long launcherPid = 0;
  pidIn >> launcherPid;
  ASSERT_GT(launcherPid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (unitsInShards(dir.file("two.db.shards"), plan) < 20 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::string kill = "pkill -KILL -n -P " + std::to_string(launcherPid);
  ASSERT_EQ(std::system(kill.c_str()), 0) << "no rank to kill: the sweep ended before 20 units";
  // The launcher takes the other rank down and exits.
  for (int i = 0; i < 600 && ::kill(static_cast<pid_t>(launcherPid), 0) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const std::size_t survived = unitsInShards(dir.file("two.db.shards"), plan);
  EXPECT_GE(survived, 20u);
  const test::CliRun resumed = runRanks(2, args);
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  const auto j = nlohmann::json::parse(resumed.out);
  EXPECT_GE(j["units_resumed"].get<std::size_t>(), survived);
  EXPECT_EQ(j["units_complete"], j["units"]);
  EXPECT_EQ(labelsIn(dir.file("two.db")), labelsIn(dir.file("one.db")));
}
// Under Slurm, srun's tasks are the ranks (PMIx): the same store as one process. Run where a Slurm controller
// answers `sinfo` (checked on a one-node Slurm 22.05 from Debian); skipped elsewhere, CI included.
TEST(CliSweepMpi, TwoSrunTasksGiveTheSingleProcessStore) {
  if (std::system("sinfo -h >/dev/null 2>&1") != 0) GTEST_SKIP() << "no Slurm controller answers sinfo here";
  const test::TempDir dir;
  const std::string common = "sweep -b hbm-pim --suite " + quickSuite() + " --unit-drafts 32 --json --db ";
  cliJson(common + dir.file("one.db") + " --threads 1");
  const test::CliRun two = test::runCli(common + dir.file("two.db"), test::cliScratch().file("srun_err.txt"),
                                        "ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" srun --mpi=pmix -n 2");
  ASSERT_EQ(two.code, 0) << two.err;
  const auto j = nlohmann::json::parse(two.out);
  EXPECT_EQ(j["ranks"], 2);
  EXPECT_EQ(j["units_complete"], j["units"]);
  EXPECT_EQ(labelsIn(dir.file("two.db")), labelsIn(dir.file("one.db")));
}
#else
TEST(CliSweepMpi, SkippedWithoutMpi) {
  GTEST_SKIP() << "built without MPI: the multi-rank sweep is not tested";
}
#endif

}  // namespace
}  // namespace pim
