// SPDX-License-Identifier: Apache-2.0
// `networks` and `compile` (issue 19) as a user runs them: the JSON fields the issue names, the MVM invariant
// seen from the command line, both modes' fields, instruction dumps, what-if edits, and every refusal in one
// line with exit code 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_run.h"
#include "tests/test_util.h"

namespace {

#ifdef PIMSCOPE_CLI
using pim::test::cli;
using pim::test::cliJson;
using pim::test::expectCliRefused;

const std::string kResnet = "compile -b crossbar-pimcomp -n resnet18 --json";

TEST(CliCompile, NetworksListsTheShippedOnesWithTheirSizes) {
  const auto j = cliJson("networks --json");
  bool seen = false;
  for (const auto& n : j)
    if (n["name"] == "resnet18") {
      seen = true;
      EXPECT_EQ(n["nodes"], 41);
      EXPECT_EQ(n["conv"], 20);
      EXPECT_EQ(n["fc"], 1);
      EXPECT_EQ(n["weights"], 11678912);  // convs without BN and the FC's 512 x 1000, no biases
    }
  EXPECT_TRUE(seen);
}

TEST(CliCompile, HtReportsTheIssuesFieldsAndTheMvmInvariant) {
  const auto j = cliJson(kResnet);
  for (const char* key :
       {"backend", "network", "mode", "replication_method", "timing", "period_ns", "throughput_per_s",
        "first_batch_latency_ns", "latency_ns", "energy_nj", "mvm_count", "instruction_groups",
        "crossbars_used", "replication", "cores", "layers", "seconds"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["mode"], "ht");
  EXPECT_EQ(j["timing"], "pimcomp-nn");
  EXPECT_EQ(j["mvm_count"], 132500);  // the spec's calibration point at 128 rows
  EXPECT_TRUE(j["latency_ns"].is_null());
  const double period = j["period_ns"].get<double>();
  EXPECT_GT(period, 0);
  EXPECT_NEAR(j["throughput_per_s"].get<double>(), 1e9 / period, 1e-6 * 1e9 / period);
  EXPECT_EQ(j["replication"].size(), 21u);
  EXPECT_EQ(j["cores"].size(), 144u);
  EXPECT_LE(j["crossbars_used"].get<long long>(), 9216);
  long long mvms = 0;
  for (const auto& l : j["layers"]) mvms += l["mvm_count"].get<long long>();
  EXPECT_EQ(mvms, 132500);
}

TEST(CliCompile, IntendedTimingIsSlowerThanPimcompNnsEightHundredNanosecondMvm) {
  const auto compatible = cliJson(kResnet);
  const auto intended = cliJson(kResnet + " --timing intended");
  EXPECT_EQ(intended["timing"], "intended");
  EXPECT_EQ(intended["mvm_count"], compatible["mvm_count"]);
  EXPECT_GT(intended["period_ns"].get<double>(), compatible["period_ns"].get<double>());
}

TEST(CliCompile, WhatIfEditsReachTheProfiler) {
  const auto base = cliJson(kResnet);
  const auto slow = cliJson(kResnet + " --set timing.pimcompNnMvmNs=1600");
  EXPECT_GT(slow["period_ns"].get<double>(), base["period_ns"].get<double>());
  EXPECT_EQ(slow["what_if"]["timing.pimcompNnMvmNs"]["was"], 800);
}

// On LeNet-5 (990 MVMs): ResNet-18's 51 MB JSON dump took 30-40 s to parse in the sanitized, unoptimised
// test code, for the same writer. ResNet-18's MVM count is pinned on its summary above.
TEST(CliCompile, InstructionDumpsAreTextOrJson) {
  const std::string lenet = "compile -b crossbar-pimcomp -n lenet5 --json";
  const std::string text = pim::test::cliScratch().file("lenet5.txt");
  const std::string json = pim::test::cliScratch().file("lenet5.json");
  const auto j = cliJson(lenet + " --dump-instructions " + json);
  ASSERT_EQ(cli(lenet + " --dump-instructions " + text).code, 0);
  std::ifstream in(json);
  const auto dump = nlohmann::json::parse(in);
  ASSERT_EQ(dump["instruction_groups"].size(), j["instruction_groups"].get<std::size_t>());
  long long mvms = 0, instructions = 0;
  for (const auto& ig : dump["instruction_groups"])
    for (const auto& core : ig["cores"])
      for (const auto& i : core["instructions"]) {
        mvms += i["op"] == "MVMUL";
        ++instructions;
      }
  EXPECT_EQ(mvms, j["mvm_count"].get<long long>());
  // 128-row arrays: conv1 28 x 28 pixels x 1 AG (25 rows) + conv2 10 x 10 x 2 AGs (150 rows) + FC 400, 120
  // and 84 inputs in 4, 1 and 1 AGs.
  EXPECT_EQ(mvms, 784 + 200 + 4 + 1 + 1);
  EXPECT_EQ(instructions, j["instructions"].get<long long>());
  const std::string lines = pim::test::readBytes(text);
  EXPECT_EQ(lines.rfind("IG 0\n", 0), 0u);
  EXPECT_NE(lines.find("MVMUL"), std::string::npos);
}

TEST(CliCompile, BadInputIsRefusedInOneLine) {
  expectCliRefused("compile -b hbm-pim -n resnet18", {"hbm-pim", "crossbar"});
  expectCliRefused("compile -b crossbar-pimcomp", {"--network", "--model"});
  expectCliRefused("compile -b crossbar-pimcomp -n resnet18 --model x.json", {"--network", "--model"});
  expectCliRefused("compile -b crossbar-pimcomp -n alexnet", {"alexnet"});
  expectCliRefused("compile -b crossbar-pimcomp -n resnet18 --mode fast", {"--mode", "fast"});
  expectCliRefused("compile -b crossbar-pimcomp -n resnet18 --timing exact", {"--timing", "exact"});
  expectCliRefused("compile -b crossbar-pimcomp -n resnet18 --replication greedy", {"greedy"});
  expectCliRefused("compile -b crossbar-arch-c -n resnet18", {"74 crossbars", "512 x 1024", "64"});
  expectCliRefused("compile -b crossbar-pimcomp -n resnet18 --dump-instructions /nonexistent/dir/x.txt",
                   {"/nonexistent/dir/x.txt"});
  expectCliRefused("compile -b crossbar-pimcomp -n resnet18 --set core.crossbars=0", {"core.crossbars"});
}

// The GA hands over the fastest of its best, its finalists and its seeds, each profiled in full: never slower
// than balance, in either mode; the same seed gives the same period.
TEST(CliCompile, TheGeneticSearchIsNeverSlowerThanBalance) {
  for (const std::string mode : {"ht", "ll"}) {
    const std::string base = "compile -b crossbar-arch-a -n lenet5 --json --mode " + mode;
    const auto balance = cliJson(base);
    const auto ga = cliJson(base + " --replication ga --ga-iterations 10 --ga-population 20 --seed 3");
    const auto again = cliJson(base + " --replication ga --ga-iterations 10 --ga-population 20 --seed 3");
    const char* time = mode == "ht" ? "period_ns" : "latency_ns";
    EXPECT_LE(ga[time].get<double>(), balance[time].get<double>()) << mode;
    EXPECT_EQ(ga[time], again[time]) << mode;
    EXPECT_EQ(ga["mvm_count"], balance["mvm_count"]);
    EXPECT_EQ(ga["ga"]["best_fitness_per_iteration"].size(), 11u);
    EXPECT_FALSE(ga["ga"]["choice"].get<std::string>().empty());
  }
  expectCliRefused("compile -b crossbar-pimcomp -n lenet5 --seed 3", {"--seed", "--replication ga"});
  expectCliRefused("compile -b crossbar-pimcomp -n lenet5 --replication ga --ga-fitness exact",
                   {"--ga-fitness"});
}

// compare --network: crossbar backends compile the network, a conv-mapping hierarchy runs every layer, a
// DRAM-PIM backend runs the FC layers as GEMV and names why it does not run the CONV ones.
TEST(CliCompile, CompareTakesANetwork) {
  const auto j = cliJson("compare --network lenet5 --backends crossbar-arch-a,pimopt-small,hbm-pim --json");
  ASSERT_EQ(j["results"].size(), 3u);
  const auto& crossbar = j["results"][0];
  EXPECT_EQ(crossbar["family"], "crossbar");
  EXPECT_EQ(crossbar["total_ns"],
            cliJson("compile -b crossbar-arch-a -n lenet5 --mode ll --json")["latency_ns"]);
  const auto& hierarchy = j["results"][1];
  EXPECT_EQ(hierarchy["layers_run"], 5);
  double sum = 0;
  for (const auto& l : hierarchy["layers"]) sum += l["ns"].get<double>();
  EXPECT_NEAR(hierarchy["total_ns"].get<double>(), sum, 1e-6 * sum);
  const auto& dram = j["results"][2];
  EXPECT_TRUE(dram["total_ns"].is_null());
  int fcs = 0;
  for (const auto& l : dram["layers"]) {
    if (l["op"] == "FC") {
      ++fcs;
      EXPECT_EQ(l["kernel"], "gemv");
      EXPECT_FALSE(l["ns"].is_null()) << l["reason"];
    } else {
      EXPECT_NE(l["reason"].get<std::string>().find("conv-mapping hierarchy"), std::string::npos);
    }
  }
  EXPECT_EQ(dram["layers_run"], fcs);
  EXPECT_NE(j["verdict"].get<std::string>().find("fastest on lenet5"), std::string::npos);
  expectCliRefused("compare --network lenet5 --backends hbm-pim -k gemv", {"--kernel"});
  expectCliRefused("compare --network lenet5 --backends a,b,c,d,e,f,g", {"1 to 6"});
  expectCliRefused("compare --network lenet5 --backends hbm-pim,hbm-pim", {"twice"});
  expectCliRefused("compare --network alexnet --backends hbm-pim", {"alexnet"});
}

// An ONNX model compiles to the same figures as its node list (tests/fuzz/corpus/onnx/lenet5.onnx is
// datasets/networks/lenet5.json unfolded into ONNX).
TEST(CliCompile, AnOnnxModelCompilesAsItsNodeList) {
  const std::string onnx = std::string(PIMSCOPE_TEST_DATA_DIR) + "/../fuzz/corpus/onnx/lenet5.onnx";
  const auto fromOnnx = cliJson("compile -b crossbar-arch-a --model " + onnx + " --json");
  const auto fromList = cliJson("compile -b crossbar-arch-a -n lenet5 --json");
  EXPECT_EQ(fromOnnx["network"], "lenet5");
  EXPECT_EQ(fromOnnx["period_ns"], fromList["period_ns"]);
  EXPECT_EQ(fromOnnx["mvm_count"], fromList["mvm_count"]);
  const std::string truncated = std::string(PIMSCOPE_TEST_DATA_DIR) + "/../fuzz/corpus/onnx/truncated.onnx";
  expectCliRefused("compile -b crossbar-arch-a --model " + truncated, {"truncated.onnx"});
}

// MobileNet's one replica per layer fits Arch-A's 2,016 crossbars by count (1,796) but not node-order first
// fit (its 4-crossbar AGs fill cores before the 8-crossbar ones come): the compiler packs largest first and
// says so. Every window of every layer still runs once per AG of its replica.
TEST(CliCompile, NetworksNodeOrderFirstFitCannotPlaceArePackedLargestFirst) {
  const auto j = cliJson("compile -b crossbar-arch-a -n mobilenet_v1 --json");
  EXPECT_EQ(j["placement"], "first fit, largest AGs first");
  EXPECT_LE(j["crossbars_used"].get<int>(), 2016);
  std::int64_t mvms = 0;
  for (const auto& l : j["layers"])
    mvms += l["windows"].get<std::int64_t>() * l["ags_per_replica"].get<std::int64_t>();
  EXPECT_EQ(j["mvm_count"].get<std::int64_t>(), mvms);
  EXPECT_EQ(cliJson("compile -b crossbar-arch-a -n resnet34 --json")["placement"], "first fit");
  const CliRun text = cli("compile -b crossbar-arch-a -n mobilenet_v1");
  EXPECT_NE(text.out.find("AGs packed largest first"), std::string::npos) << text.out;
}

// Intended timing bounds LL by the core's 64 kB: ResNet-18 runs by spilling, says how much, and keeps the MVM
// invariant; PIMCOMP-NN's timing (128 M elements) spills nothing.
TEST(CliCompile, IntendedLlSpillsWhatLocalMemoryCannotHold) {
  const auto j = cliJson("compile -b crossbar-pimcomp -n resnet18 --mode ll --timing intended --json");
  EXPECT_EQ(j["mvm_count"], 132500);
  EXPECT_GT(j["spilled_pixels"].get<std::int64_t>(), 0);
  EXPECT_EQ(j["spilled_bytes"].get<std::int64_t>() % 2, 0);
  EXPECT_GE(j["volumes_bytes"]["store"].get<std::int64_t>(), j["spilled_bytes"].get<std::int64_t>());
  // Per core, what each stored and loaded for spills: at least every spilled byte stored once.
  std::int64_t perCore = 0;
  for (const auto& core : j["cores"]) perCore += core["spill_bytes"].get<std::int64_t>();
  EXPECT_GT(perCore, j["spilled_bytes"].get<std::int64_t>());
  EXPECT_EQ(cliJson("compile -b crossbar-pimcomp -n resnet18 --mode ll --json")["spilled_pixels"], 0);
  const CliRun text = cli("compile -b crossbar-pimcomp -n resnet18 --mode ll --timing intended");
  EXPECT_NE(text.out.find("went through global memory for want of local memory"), std::string::npos)
      << text.out;
}

// balance on Arch-A leaves ResNet-34's 4-crossbar AGs no core with room (PIMCOMP-NN drops them): replicas
// are given back until first fit places every AG, and the MVM invariant holds.
TEST(CliCompile, ReplicasFirstFitCannotPlaceAreGivenBack) {
  const auto j = cliJson("compile -b crossbar-arch-a -n resnet34 --json");
  EXPECT_GT(j["replicas_given_back"].get<int>(), 0);
  EXPECT_EQ(j["mvm_count"], 223836);
  EXPECT_LE(j["crossbars_used"].get<int>(), 2016);
  EXPECT_EQ(cliJson("compile -b crossbar-pimcomp -n resnet18 --json")["replicas_given_back"], 0);
}

// auto runs what the greedy would give a scatter format with the best scheduled one and says so per layer:
// LeNet-5's first conv (1 -> 6 channels, 5x5, 28 x 28) is I,OK2,1 by the greedy in HT, I,O,K2 of the three
// the schedules run; its second conv is I,O,K2 by the greedy itself. Both conv layers in I,O,K2: the same
// compile as naming it.
// auto takes tcad's greedy per layer (HT: fewest compute cycles, then least load volume) among the formats
// the layer can run: LeNet-5's first conv in I,OK2,1, its second in I,O,K2. On crossbar-arch-a (12 arrays a
// core) six ResNet-18 layers whose I,OK2,1 band is wider than a core take the next best and say so.
TEST(CliCompile, AutoUnfoldingRunsTheBestScheduledFormatAndNamesTheOneItPassedOver) {
  const auto lenet = cliJson("compile -b crossbar-pimcomp -n lenet5 --json --unfolding auto");
  ASSERT_EQ(lenet["layers"].size(), 5u);  // two CONV, three FC
  EXPECT_EQ(lenet["layers"][0]["unfolding"], "I,OK2,1");
  EXPECT_EQ(lenet["layers"][1]["unfolding"], "I,O,K2");
  for (const auto& layer : lenet["layers"])
    EXPECT_TRUE(!layer.contains("unfolding_passed_over") || layer.at("unfolding_passed_over").is_null());
  const auto resnet = cliJson("compile -b crossbar-arch-a -n resnet18 --json --unfolding auto");
  int passedOver = 0;
  for (const auto& layer : resnet["layers"])
    passedOver += layer.contains("unfolding_passed_over") && layer.at("unfolding_passed_over") == "I,OK2,1";
  EXPECT_EQ(passedOver, 6);
  const std::string text = cli("compile -b crossbar-arch-a -n resnet18 --unfolding auto").out;
  EXPECT_NE(
      text.find("auto unfolding: 6 layers take the best format the schedule runs in place of the greedy's "
                "I,OK2,1 or IK,OK,1"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("I,O,K2 (not I,OK2,1)"), std::string::npos) << text;
}

// `drafts` lists a crossbar layer's compiles under their own title, not DCC's sets and rules, in columns as
// wide as the characters a terminal shows ("·" is two bytes).
TEST(CliCompile, DraftsListsALayersCompiles) {
  const auto r = cli("drafts -b crossbar-pimcomp -k fc --dims n=1,k=1000,c=512 --limit 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("on crossbar-pimcomp: 2 candidates (Mode · unfolding · replication)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("dimension set"), std::string::npos) << r.out;
  const auto header = r.out.find("draft  Mode · unfolding · replication");
  ASSERT_NE(header, std::string::npos) << r.out;
  const std::string title = r.out.substr(header, r.out.find('\n', header) - header);
  const auto dashes = r.out.find('\n', header) + 1;
  const std::string rule = r.out.substr(dashes, r.out.find('\n', dashes) - dashes);
  const auto shown = [](const std::string& s) {
    return std::count_if(s.begin(), s.end(),
                         [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
  };
  EXPECT_EQ(shown(rule), shown(title)) << r.out;
}

// One conv or FC layer runs in the kernel commands as a one-layer network; anything else points to compile.
TEST(CliCompile, KernelCommandsOnACrossbarBackendRunOneLayerOrPointToCompile) {
  expectCliRefused("simulate -b crossbar-pimcomp -k va",
                   {"not a convolution or FC layer", "compile", "networks"});
  const auto j = cliJson("explore -b crossbar-arch-a -k conv2d --dims n=1,k=16,c=8,p=8,q=8,r=3,s=3 --json");
  EXPECT_EQ(j["counts"]["simulated"], j["counts"]["generated"]);  // a few compiles: every one is run
  const std::string label = j["best"]["label"];
  EXPECT_TRUE(label.rfind("HT · ", 0) == 0 || label.rfind("LL · ", 0) == 0) << label;
  EXPECT_GT(j["best"]["time_ns"].get<double>(), 0);
  EXPECT_TRUE(j["baselines"].contains("vendor")) << j["baselines"].dump();
  const auto s =
      cliJson("simulate -b crossbar-arch-a -k fc --dims n=1,k=1000,c=512 --schedule draft:1 --json");
  EXPECT_EQ(s["schedule"]["draft"]["label"], "LL · im2col · balance, uniform, w0h0 (1 replica)");
  EXPECT_EQ(s["crossbar"]["crossbars_used"], 32);  // 4 x 8 arrays of 128 x 128
  EXPECT_EQ(s["cores"].size(), 168u);              // Arch-A: every core, by chip and core
}

// --timing on the kernel commands times the layer as `compile --timing` times its network; families that do
// not read it refuse it, and so does compare when none of its backends is a crossbar one.
TEST(CliCompile, KernelCommandsTakeTheCompilesTimingMode) {
  const std::string fc = "-b crossbar-arch-a -k fc --dims n=1,k=1000,c=512 ";
  const auto s = cliJson("simulate " + fc + "--schedule draft:1 --timing intended --json");
  EXPECT_EQ(s["timing"], "intended");
  EXPECT_EQ(cliJson("simulate " + fc + "--schedule draft:1 --json")["timing"], "pimcomp-nn");
  const auto e = cliJson("explore " + fc + "--timing intended --json");
  EXPECT_EQ(e["timing"], "intended");
  EXPECT_GT(s["cycles"]["total"].get<double>(),
            cliJson("simulate " + fc + "--schedule draft:1 --json")["cycles"]["total"].get<double>());
  const auto n = cliJson("compare --network lenet5 --backends crossbar-arch-a --timing intended --json");
  EXPECT_EQ(n["results"][0]["total_ns"],
            cliJson("compile -b crossbar-arch-a -n lenet5 --mode ll --timing intended --json")["latency_ns"]);
  expectCliRefused("explore -b hbm-pim -k red --timing intended", {"--timing", "hbm-pim", "leave it out"});
  expectCliRefused("compare -k gemv --backends hbm-pim,attacc --timing intended", {"--timing", "crossbar"});
  expectCliRefused("simulate " + fc + "--schedule draft:1 --timing fast", {"--timing", "'fast'", "intended"});
}

// A whole network in place of a kernel (`--network`): explore lists its compiles as candidates, the JSON
// names the network, the CSV export has the family's figures as columns and no DCC part columns, and what a
// network does not take (a shape, a kernel beside it, a kernel family) is refused in one line.
TEST(CliCompile, ANetworkExploresAndExportsLikeAKernel) {
  const auto j = cliJson(
      "explore -b crossbar-pimcomp --network lenet5 --strategy exhaustive --max-simulations 1 --json");
  EXPECT_TRUE(j["kernel"].is_null());
  EXPECT_EQ(j["network"], "lenet5");
  EXPECT_EQ(j["shape"].get<std::string>().rfind("network=lenet5;digest=", 0), 0u);
  EXPECT_EQ(j["counts"]["generated"], 7);  // 4 distinct rule plans, then 3 genetic searches
  const std::string csv = pim::test::cliScratch().file("lenet5.csv");
  const auto r =
      cli("export -b crossbar-pimcomp --network lenet5 --draft 0 --format csv --limit 1 --out " + csv);
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_NE(header.find(",period_ns,throughput_per_s,replicas,crossbars_used,mvms,"), std::string::npos)
      << header;
  EXPECT_EQ(header.find("part1_groups"), std::string::npos) << header;
  const auto ir = cli("ir -b crossbar-pimcomp --network lenet5 --draft 6");  // a candidate past DCC's drafts
  EXPECT_EQ(ir.code, 0) << ir.err;
  EXPECT_EQ(ir.out, "LL · im2col · ga\n");
  expectCliRefused("explore -b crossbar-pimcomp --network lenet5 -d n=2", {"--dims", "network"});
  expectCliRefused("explore -b crossbar-pimcomp --network lenet5 -k gemv", {"--kernel", "--network"});
  expectCliRefused("explore -b hbm-pim --network lenet5", {"lenet5 is a whole network", "compare --network"});
  expectCliRefused("explore -b crossbar-pimcomp --network nosuchnet", {"nosuchnet"});
}
#endif

}  // namespace
