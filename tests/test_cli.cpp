// SPDX-License-Identifier: Apache-2.0
// The CLI end to end: every command answers on every shipped backend, and bad input gets one line naming what
// and where, with exit code 2, never a crash.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_run.h"
#include "tests/test_util.h"

namespace {

#ifdef PIMSCOPE_CLI
using pim::test::cli;
using pim::test::CliRun;
using pim::test::cliScratch;

void expectInputError(const std::string& args, const std::string& mentions) {
  const CliRun r = cli(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(mentions), std::string::npos) << args << "\n" << r.err;
}

TEST(Cli, ListsBackendsAndKernelsAsJson) {
  const auto backends = nlohmann::json::parse(cli("backends --json").out);
  EXPECT_EQ(backends.size(), 16u);
  const auto kernels = nlohmann::json::parse(cli("kernels --json").out);
  EXPECT_EQ(kernels.size(), 20u);
}

TEST(Cli, DraftsWhyAndIrWorkOnEveryBackend) {
  for (const char* b : {"hbm2-pim", "hbm-pim", "attacc", "gddr6-aim", "upmem"}) {
    const CliRun d = cli(std::string("drafts -b ") + b + " -k red -d b=2,n=2048 --limit 3 --json");
    ASSERT_EQ(d.code, 0) << d.err;
    const auto j = nlohmann::json::parse(d.out);
    EXPECT_GT(j["generated"].get<std::uint64_t>(), j["remaining"].get<std::uint64_t>());
    EXPECT_EQ(j["generated"].get<std::uint64_t>(),
              j["remaining"].get<std::uint64_t>() + j["pruned"]["rule1"].get<std::uint64_t>() +
                  j["pruned"]["rule2"].get<std::uint64_t>() + j["pruned"]["rule3"].get<std::uint64_t>());
    ASSERT_EQ(j["drafts"].size(), 3u);
    const std::string id = std::to_string(j["drafts"][0]["id"].get<std::uint64_t>());
    EXPECT_EQ(cli(std::string("why -b ") + b + " -k red -d b=2,n=2048 --draft " + id).code, 0);
    const CliRun ir = cli(std::string("ir -b ") + b + " -k red -d b=2,n=2048 --draft " + id);
    EXPECT_NE(ir.out.find("parallel_PIM"), std::string::npos) << ir.err;
  }
}

TEST(Cli, SimulateJsonHasTheBreakdown) {
  const CliRun r = cli("simulate -b hbm2-pim -k va -d b=1,n=65536 --channels 8 --schedule vendor --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& c = j["cycles"];
  EXPECT_EQ(c["total"].get<std::int64_t>(), c["input_rearrangement"].get<std::int64_t>() +
                                                c["compute"].get<std::int64_t>() +
                                                c["output_rearrangement"].get<std::int64_t>());
  EXPECT_EQ(j["banks"].size(), 8u * 32u);
  EXPECT_TRUE(j["banks"][0].contains("busy_cycles"));
}

// `explore --estimate` says what the window asks with before a long run, without exploring.
TEST(Cli, ExploreEstimateCountsThePlannedSimulationsAndExploresNothing) {
  const CliRun d = cli("drafts -b hbm-pim -k red -d b=1,n=4096 --limit 1 --json");
  ASSERT_EQ(d.code, 0) << d.err;
  const std::uint64_t kept = nlohmann::json::parse(d.out)["remaining"].get<std::uint64_t>();
  const CliRun r =
      cli("explore -b hbm-pim -k red -d b=1,n=4096 --strategy exhaustive --threads 2 --estimate --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["strategy"], "exhaustive");
  EXPECT_EQ(j["kept"].get<std::uint64_t>(), kept);
  EXPECT_EQ(j["simulations"].get<std::uint64_t>(), kept);
  EXPECT_EQ(j["workers"].get<unsigned>(), 2u);
  EXPECT_GT(j["seconds_per_simulation"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(j["seconds"].get<double>(),
                   static_cast<double>(kept) * j["seconds_per_simulation"].get<double>() / 2);
  EXPECT_FALSE(j.contains("best"));
  const CliRun text = cli("explore -b hbm-pim -k red -d b=1,n=4096 --strategy exhaustive --estimate");
  EXPECT_NE(text.out.find("red[b=1,n=4096] on hbm-pim by exhaustive: about "), std::string::npos) << text.out;
}

TEST(Cli, RepeatedExploreIsServedFromTheLookupTable) {
  const std::string db = cliScratch().file("lookup.db");
  std::remove(db.c_str());
  const std::string args = "explore -b hbm-pim -k red -d b=1,n=1024 --db " + db + " --json";
  const auto first = nlohmann::json::parse(cli(args).out);
  const auto second = nlohmann::json::parse(cli(args).out);
  EXPECT_EQ(first["served_from"], "search");
  EXPECT_EQ(second["served_from"], "lookup table");
  EXPECT_EQ(first["best"]["draft"], second["best"]["draft"]);
  EXPECT_EQ(first["best"]["cycles"], second["best"]["cycles"]);
  EXPECT_TRUE(first["speedup"].contains("vs_gpu"));
  // Where the search spent its time; a lookup-table hit has no stages.
  for (const char* stage : {"generating", "screening", "loading model", "predicting", "simulating"})
    EXPECT_TRUE(first["stage_seconds"].contains(stage)) << stage;
  EXPECT_TRUE(second["stage_seconds"].empty());
}

// A pick at other kernel-level choices than the backend's (here the predictor's, on VA) has an id beyond the
// draft space's size; the lookup table serves it again.
TEST(Cli, APickAtOtherKernelLevelChoicesIsServedFromTheLookupTable) {
  const std::string db = cliScratch().file("lookup-choices.db");
  std::remove(db.c_str());
  const std::string args = "explore -b upmem -k va -d b=1,n=2621440 --dtype i32 --db " + db + " --json";
  const CliRun first = cli(args), second = cli(args);
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_EQ(second.err.find("ignored"), std::string::npos) << second.err;
  const auto a = nlohmann::json::parse(first.out), b = nlohmann::json::parse(second.out);
  ASSERT_NE(a["best"]["label"].get<std::string>().find(" tasklets"), std::string::npos) << a["best"].dump();
  EXPECT_EQ(a["served_from"], "search");
  EXPECT_EQ(b["served_from"], "lookup table");
  EXPECT_EQ(a["best"]["draft"], b["best"]["draft"]);
  EXPECT_EQ(a["best"]["time_ns"], b["best"]["time_ns"]);
}

// The shipped model is found by the backend's name: when the backend file under that name no longer has the
// parameters the model was trained on, explore says its predictions are extrapolated (stderr, not stdout).
TEST(Cli, ExploreWarnsWhenTheShippedModelWasTrainedOnOtherParameters) {
  namespace fs = std::filesystem;
  const pim::test::TempDir data;
  const fs::path shipped = PIMSCOPE_DATA_DIR;
  for (const char* d : {"kernels", "models", "suites"})
    fs::create_directory_symlink(shipped / d, fs::path(data.path()) / d);
  fs::create_directory(fs::path(data.path()) / "backends");
  for (const auto& f : fs::directory_iterator(shipped / "backends")) {
    nlohmann::json j = nlohmann::json::parse(std::ifstream(f.path()));
    if (j["name"] == "hbm-pim")
      j["system"]["hostTflops"]["value"] = j["system"]["hostTflops"]["value"].get<double>() * 2;
    std::ofstream(fs::path(data.path()) / "backends" / f.path().filename()) << j.dump(2);
  }
  const std::string args = "explore -b hbm-pim -k red -d b=1,n=4096 --json";
  const CliRun asShipped = cli(args);
  ASSERT_EQ(asShipped.code, 0) << asShipped.err;
  EXPECT_EQ(asShipped.err.find("trained on other parameters"), std::string::npos) << asShipped.err;
  const CliRun edited =
      pim::test::runCli(args, cliScratch().file("edited_err.txt"), "PIMSCOPE_DATA=" + data.path());
  ASSERT_EQ(edited.code, 0) << edited.err;
  EXPECT_NE(edited.err.find("the shipped model of hbm-pim was trained on other parameters"),
            std::string::npos)
      << edited.err;
  EXPECT_FALSE(nlohmann::json::parse(edited.out).empty());
}

TEST(Cli, BadInputGetsOneLineAndExitCode2) {
  expectInputError("drafts -b nope -k gemv", "unknown backend 'nope'");
  expectInputError("drafts -b attacc -k nope", "nope");
  expectInputError("drafts -b attacc -k gemv -d in=0", "dimension 'in'");
  expectInputError("drafts -b attacc -k gemv -d in=2000000000000", "2^40");
  expectInputError("drafts -b attacc -k gemv -d foo=3", "foo");
  expectInputError("why -b attacc -k gemv --draft 999999999999", "no such draft");
  expectInputError("simulate -b attacc -k va -d b=1,n=1024", "element-wise");
  expectInputError("simulate -b hbm-pim -k attn -s draft:0", "softmax");
  expectInputError("simulate -b hbm2-pim -k gemv --channels 65", "--channels");
  expectInputError("simulate -b hbm2-pim -k gemv -s draft:x", "draft:<id>");
  // Built from the strategy registry; the same words as when the list was written out by hand.
  expectInputError("explore -b hbm-pim -k red -d b=1,n=64 --strategy nope",
                   "--strategy: 'nope' is not predictor, exhaustive, compute-centric, imtp, vendor or gpu");
  expectInputError("explore -b gddr6-aim -k red -d b=1,n=64 --strategy vendor",
                   "vendor strategy: no vendor schedule is modelled for gddr6-aim");
  const std::string bad = cliScratch().file("bad.pim");
  std::ofstream(bad) << "kernel k(n = 4)\n  input x: f16[n]\n  for i < n: y[i] = x[i]\nend\n";
  expectInputError("drafts -b attacc --kernel-file " + bad, "bad.pim:3:");
}
#else
TEST(Cli, NeedsTheCliBinary) { GTEST_SKIP() << "built without the pimscope-cli target"; }
#endif

}  // namespace
