// SPDX-License-Identifier: Apache-2.0
// `map`, `rowtrace` and `hierarchies` as a user runs them: results, JSON fields the issue names, the trace
// check, saved mappings read back, and one clear line for bad input.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/cli_run.h"

namespace pim::test {
namespace {

TEST(CliMap, MapsALayerAndItsTraceAgrees) {
  const auto j = cliJson(
      "map -b pimopt-small -k conv2d --dims R=3,S=3,P=14,Q=14,C=16,K=16 --mapper heuristic --max-evaluations "
      "3000 --trace "
      "--json");
  ASSERT_TRUE(j.is_object());
  for (const char* key :
       {"layer", "mapping", "latency_cycles", "energy_pj", "row_activations", "trace", "solver"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["solver"]["name"], "heuristic");
  EXPECT_TRUE(j["solver"]["gap"].is_null());  // a heuristic proves nothing
  EXPECT_EQ(j["row_activations"]["total"], j["trace"]["row_activations"]["total"]);
  EXPECT_EQ(j["trace"]["error_pct"], 0.0);
  EXPECT_GE(j["latency_cycles"].get<std::int64_t>(), 3 * 3 * 14 * 14 * 16 * 16 / 64);  // 64 PEs at best
}

TEST(CliMap, AutoWalksASmallSpaceWholeAndSaysItIsOptimal) {
  const auto j = cliJson("map -b pimopt-small -k fc --dims C=4,K=4 --json");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["solver"]["name"], "auto (exhaustive)");
  EXPECT_EQ(j["solver"]["status"], "optimal");
  EXPECT_EQ(j["solver"]["gap"], 0.0);
}

TEST(CliMap, ASavedMappingIsTracedAgainPerBank) {
  const auto file = cliScratch().file("fc.json");
  const auto j = cliJson(
      "map -b pimopt-small -k fc --dims C=256,K=128 --objective energy --max-evaluations 2000 "
      "--json --out " +
      file);
  ASSERT_TRUE(j.is_object());
  const auto t = cliJson("rowtrace -b pimopt-small --mapping " + file + " --slices 4 --json");
  ASSERT_TRUE(t.is_object());
  EXPECT_EQ(t["model"]["total"], j["row_activations"]["total"]);
  std::int64_t perBank = 0;
  for (const auto& b : t["banks"]) perBank += b["activations"].get<std::int64_t>();
  EXPECT_EQ(perBank, t["row_activations"]["total"]);
  EXPECT_LE(t["slices"].size(), 4u);
}

TEST(CliMap, ANetworkIsMappedLayerByLayerAndDepthwiseLayersAreRefusedByName) {
  const auto j = cliJson("map -b pimopt-default --network mobilenet_v1 --max-evaluations 300 --json");
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["layers"].size(), 28u);  // 27 convs and the FC
  EXPECT_NE(j["layers"][1]["refused"].get<std::string>().find("depthwise convolution (group 32)"),
            std::string::npos);
  EXPECT_TRUE(j["layers"][0].contains("latency_cycles"));
  EXPECT_GT(j["totals"]["latency_cycles"].get<std::int64_t>(), 0);
}

TEST(CliMap, BadInputGetsOneClearLine) {
  expectCliRefused("map -b pimopt-small -k conv2d --dims R=3,P=0", {"--dims: P: 0 is not a valid size"});
  expectCliRefused("map -b nowhere -k fc --dims C=8,K=8", {"hierarchy 'nowhere'", "pimopt-default"});
  expectCliRefused("map -b pimopt-small -k gemv --dims C=8",
                   {"--kernel: 'gemv' is not a conv-mapping kernel"});
  expectCliRefused("map -b pimopt-small -k fc --dims R=3,C=8,K=8", {"an FC layer has R = S = P = Q = 1"});
  expectCliRefused("map -b pimopt-small -k fc --dims C=8,K=8 --time-limit 0", {"--time-limit"});
  expectCliRefused("map -b pimopt-small -k fc --dims C=8,K=8 --mapper ilp",
                   {"mapper 'ilp'", "auto, exhaustive, heuristic"});
  expectCliRefused("map -b pimopt-small -k conv2d --dims R=3,S=3,P=56,Q=56,C=64,K=64 --mapper exhaustive",
                   {"has more than 5000000 mappings to walk on pimopt-small"});
  expectCliRefused("map -b pimopt-small --network resnet18 --layer nope", {"--layer: 'nope'"});
  expectCliRefused("map -b pimopt-small --network alexnet", {"alexnet"});
  const auto bad = cliScratch().file("bad_mapping.json");
  std::ofstream(bad) << R"({"shape": {"K": 8, "C": 8}, "mapping": {"levels": []}})";
  expectCliRefused("rowtrace -b pimopt-small --mapping " + bad,
                   {bad, "levels: 0 levels, pimopt-small has 4"});
}

}  // namespace
}  // namespace pim::test
