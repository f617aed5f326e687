// SPDX-License-Identifier: Apache-2.0
// The crossbar compiler (engine/crossbar): partitioning, replication and first-fit layout against
// ../shared/specs/crossbar.md ("Layer partitioning", "Weight replication", "AG to core mapping") and
// hand-worked cases. The HT schedule's tests are in test_crossbar_ht.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "engine/crossbar/replication.h"
#include "tests/crossbar_tiny_network.h"

namespace pim::crossbar::compile_tests {

// ---------------------------------------------------------------------------------------------------------
// Partitioning
// ---------------------------------------------------------------------------------------------------------

TEST(CrossbarPartition, TableIvShapesAndValidity) {
  const Network net = tinyNetwork();
  for (int node : {1, 2}) {
    const ConvGeometry g = convGeometry(net.nodes[node]);
    for (const Unfolding& u : kUnfoldings) {
      EXPECT_TRUE(isValidUnfolding(u)) << u.name;
      const MatrixShape m = unfoldedShape(u, g);
      EXPECT_EQ(m.h * m.w * m.p, g.inChannels * g.outChannels * g.kernelH * g.kernelW) << u.name;
    }
  }
  // A 1x3 kernel (K_h 1, K_w 3), 4 -> 8 channels: IK,O,K is one kernel row of 3 pixels (H 12, P 1), IK,OK,1
  // a kernel column of 1 pixel (H 4) against 3 output columns (W 24); each holds the 96 weights once.
  ConvGeometry row;
  row.inChannels = 4, row.outChannels = 8, row.kernelH = 1, row.kernelW = 3;
  const std::vector<MatrixShape> rowShapes = {{4, 8, 3}, {4, 24, 1}, {12, 8, 1}, {4, 24, 1}, {12, 8, 1}};
  for (std::size_t i = 0; i < kUnfoldings.size(); ++i) {
    const MatrixShape m = unfoldedShape(kUnfoldings[i], row);
    EXPECT_EQ(std::tie(m.h, m.w, m.p), std::tie(rowShapes[i].h, rowShapes[i].w, rowShapes[i].p))
        << kUnfoldings[i].name;
  }
  // Extra memory: IK,O,K keeps K_h = 1 partial output, IK,OK,1 a column of K_h inputs and K_w partials.
  EXPECT_EQ(unfoldingCost(kUnfoldings[2], row).extraMemory, 3 * 4 + 1 * 8);
  EXPECT_EQ(unfoldingCost(kUnfoldings[3], row).extraMemory, 1 * 4 + 3 * 8);
  // Output channels in H (accumulation would mix outputs), a channel in P, or K^3 are not unfoldings.
  EXPECT_FALSE(isValidUnfolding({"O,I,K2", {false, true, 0}, {true, false, 0}, {false, false, 2}}));
  EXPECT_FALSE(isValidUnfolding({"IO,K,K", {true, true, 0}, {false, false, 1}, {false, false, 1}}));
  EXPECT_FALSE(isValidUnfolding({"I,K,O", {true, false, 0}, {false, false, 2}, {false, true, 0}}));
  EXPECT_FALSE(isValidUnfolding({"IK2,OK,1", {true, false, 2}, {false, true, 1}, {false, false, 0}}));
  EXPECT_EQ(parseUnfolding("im2col"), kIm2col);
  EXPECT_EQ(parseUnfolding("(I, O, K^2)"), kUnfoldings[0]);
  EXPECT_EQ(parseUnfolding("ik,ok,1"), kUnfoldings[3]);
  EXPECT_FALSE(parseUnfolding("O,I,K2"));
}

TEST(CrossbarPartition, TableIvQuantitiesOnHandWorkedLayers) {
  const Network net = tinyNetwork();
  // c1: I 4, O 16, K 3, 8x8 -> 8x8.
  const ConvGeometry c1 = convGeometry(net.nodes[1]);
  const std::vector<MatrixShape> shapes = {{4, 16, 9}, {4, 144, 1}, {12, 16, 3}, {12, 48, 1}, {36, 16, 1}};
  const std::vector<UnfoldingCost> costs = {
      {64, 768, 180}, {64, 256, 148}, {64, 768, 84}, {64, 768, 60}, {64, 2304, 52}};
  for (std::size_t i = 0; i < kUnfoldings.size(); ++i) {
    const MatrixShape m = unfoldedShape(kUnfoldings[i], c1);
    const UnfoldingCost c = unfoldingCost(kUnfoldings[i], c1);
    EXPECT_EQ(std::tie(m.h, m.w, m.p), std::tie(shapes[i].h, shapes[i].w, shapes[i].p))
        << kUnfoldings[i].name;
    EXPECT_EQ(std::tie(c.computeCycles, c.loadVolume, c.extraMemory),
              std::tie(costs[i].computeCycles, costs[i].loadVolume, costs[i].extraMemory))
        << kUnfoldings[i].name;
  }
  // All five take 64 cycles: HT picks the least load (I,OK^2,1), LL the least extra memory (IK^2,O,1).
  EXPECT_EQ(greedyUnfolding(c1, PipelineMode::Ht), kUnfoldings[1]);
  EXPECT_EQ(greedyUnfolding(c1, PipelineMode::Ll), kIm2col);
  // c2 (stride 2, 16->32, 8x8 -> 4x4): 16 cycles for (I,O,K^2), (IK,O,K), im2col; HT load 1,536 for the
  // first two (Table IV order wins), LL extra memory 432 / 240 / 176.
  const ConvGeometry c2 = convGeometry(net.nodes[2]);
  EXPECT_EQ(unfoldingCost(kUnfoldings[1], c2).computeCycles, 64);
  EXPECT_EQ(unfoldingCost(kUnfoldings[3], c2).computeCycles, 32);
  EXPECT_EQ(greedyUnfolding(c2, PipelineMode::Ht), kUnfoldings[0]);
  EXPECT_EQ(greedyUnfolding(c2, PipelineMode::Ll), kIm2col);
}

// `auto` takes the greedy's best among the formats the schedules run and names the one it passed over. On
// c1, HT's greedy picks I,OK^2,1 (all five take 64 cycles; load 256); of the scheduled three, I,O,K^2 and
// IK,O,K load 768 and Table IV order keeps I,O,K^2. c2's greedy choice (I,O,K^2) is scheduled: nothing
// passed over. In LL a 3x3 layer of 64 -> 64 channels on 8x8 ties at 64 cycles in I,O,K^2, IK,O,K, IK,OK,1
// and im2col; extra memory 1,152 / 768 / 384 / 640: IK,OK,1, not scheduled, so im2col.
TEST(CrossbarPartition, AutoTakesTheGreedysBestScheduledFormatAndNamesTheOneItPassedOver) {
  const Network net = tinyNetwork();
  UnfoldingChoice choice;
  choice.all = "auto";
  const std::vector<LayerPartition> ht =
      partitionNetwork(net, tinyAccelerator(2, 2, 8), choice, PipelineMode::Ht);
  EXPECT_EQ(ht[0].unfolding, kUnfoldings[0]);
  EXPECT_EQ(ht[0].greedyPassedOver, "I,OK2,1");
  EXPECT_EQ(ht[1].unfolding, kUnfoldings[0]);
  EXPECT_EQ(ht[1].greedyPassedOver, "");
  for (const LayerPartition& l : partitionNetwork(net, tinyAccelerator(2, 2, 8), choice, PipelineMode::Ll))
    EXPECT_EQ(l.greedyPassedOver, "") << l.name;
  ConvGeometry wide;
  wide.inChannels = wide.outChannels = 64;
  wide.kernelH = wide.kernelW = 3;
  wide.inH = wide.inW = wide.outH = wide.outW = 8;
  EXPECT_EQ(unfoldingCost(kUnfoldings[3], wide).extraMemory, 384);
  EXPECT_EQ(greedyUnfolding(wide, PipelineMode::Ll), kUnfoldings[3]);
  EXPECT_EQ(greedyUnfolding(wide, PipelineMode::Ll, multipliesWholeWindows), kIm2col);
  // A named format is taken as named, scheduled or not (the schedules refuse it by layer).
  choice.all = "I,OK2,1";
  const std::vector<LayerPartition> named =
      partitionNetwork(net, tinyAccelerator(2, 2, 8), choice, PipelineMode::Ht);
  EXPECT_EQ(named[0].unfolding, kUnfoldings[1]);
  EXPECT_EQ(named[0].greedyPassedOver, "");
}

TEST(CrossbarPartition, ArrayGroupsAgpAndChoices) {
  const Network net = tinyNetwork();
  const std::vector<LayerPartition> im2col =
      partitionNetwork(net, tinyAccelerator(2, 2, 8), {}, PipelineMode::Ht);
  ASSERT_EQ(im2col.size(), 4u);
  EXPECT_EQ(im2col[1].name, "c2");
  EXPECT_EQ(im2col[1].matrix.h, 144);
  EXPECT_EQ(im2col[1].agsPerReplica, 3);
  EXPECT_EQ(im2col[1].columnArrays, 2);
  EXPECT_EQ(im2col[1].crossbarsPerReplica, 6);
  EXPECT_EQ(im2col[1].windows, 16);
  EXPECT_EQ(im2col[3].op, NetworkOp::Fc);
  EXPECT_EQ(im2col[3].windows, 1);
  EXPECT_EQ(im2col[3].crossbarsPerReplica, 1);
  // (IK,O,K) on c1: three 12 x 16 matrices, one band each, so three AGs per replica.
  UnfoldingChoice choice;
  choice.perLayer["c1"] = "IK,O,K";
  const std::vector<LayerPartition> mixed =
      partitionNetwork(net, tinyAccelerator(2, 2, 8), choice, PipelineMode::Ht);
  EXPECT_EQ(mixed[0].unfolding, kUnfoldings[2]);
  EXPECT_EQ(mixed[0].agsPerReplica, 3);
  EXPECT_EQ(mixed[1].unfolding, kIm2col);
  // A core of one crossbar splits c2's 2-array bands in two AGP parts, each a replica of its own.
  const std::vector<LayerPartition> narrow =
      partitionNetwork(net, tinyAccelerator(8, 8, 1), {}, PipelineMode::Ht);
  EXPECT_EQ(narrow[1].agp, 2);
  const std::vector<ArrayGroup> ags = arrayGroups(narrow, {1, 2, 1, 1}, tinyAccelerator(8, 8, 1));
  ASSERT_EQ(ags.size(), 1u + 6u + 1u + 1u);
  EXPECT_EQ(std::tie(ags[1].part, ags[1].colStart, ags[1].cols, ags[1].crossbars),
            std::make_tuple(0, 0, 16, 1));
  EXPECT_EQ(std::tie(ags[4].part, ags[4].colStart, ags[4].cols, ags[4].rows), std::make_tuple(1, 16, 16, 64));
  EXPECT_EQ(ags[6].rows, 16);  // the last band: 144 - 128
  choice.perLayer["nope"] = "im2col";
  EXPECT_NE(errorOf([&] {
              partitionNetwork(net, tinyAccelerator(2, 2, 8), choice, PipelineMode::Ht);
            }).find("unfolding for 'nope': no CONV node of that name"),
            std::string::npos);
  UnfoldingChoice bad;
  bad.all = "O,I,K2";
  EXPECT_NE(errorOf([&] {
              partitionNetwork(net, tinyAccelerator(2, 2, 8), bad, PipelineMode::Ht);
            }).find("node 1 'c1': unfolding: unknown format 'O,I,K2'"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------------------
// Replication
// ---------------------------------------------------------------------------------------------------------

// balance on 32 crossbars: FC 1, available 31, margin 15. c1 climbs to 4 replicas (16 windows each) and then
// ties c2 (16): libstdc++'s heap has c2 on top, so c2 gets its second replica before c1 its fifth; c1 reaches
// 8 and ties c2 (8) again, c2 wins again (3 replicas) and 12 crossbars are left: stop.
TEST(CrossbarReplication, BalanceFollowsTheHeapOrder) {
  const CompilePlan p = tinyPlan("balance");
  EXPECT_EQ(p.replicas, (std::vector<std::int64_t>{8, 3, 1, 1}));
  EXPECT_EQ(p.crossbarsUsed(), 8 + 18 + 1 + 1);
}

// w0h0: windows {64, 16, 4}, baseline 16 (second smallest): ratios 4, 1, 1, 11 crossbars a step,
// t = floor(31 / 11 / 1.2) = 2. uniform: 8 crossbars a step, t = floor(31 / 8 / 1.2) = 3. FC keeps 1.
TEST(CrossbarReplication, W0H0AndUniform) {
  EXPECT_EQ(tinyPlan("w0h0").replicas, (std::vector<std::int64_t>{8, 2, 2, 1}));
  EXPECT_EQ(tinyPlan("W0H0").replicas, (std::vector<std::int64_t>{8, 2, 2, 1}));
  EXPECT_EQ(tinyPlan("uniform").replicas, (std::vector<std::int64_t>{3, 3, 3, 1}));
  // 12 crossbars: 9 fit at one replica, but w0h0 has floor(11 / 11 / 1.2) = 0 steps; uniform still has 1.
  const std::string w0h0 = errorOf([] { tinyPlan("w0h0", tinyAccelerator(1, 3, 4)); });
  EXPECT_NE(
      w0h0.find(
          "tiny: replication w0h0: 11 crossbars per replication step with a 1.2 margin leave no step in "
          "11 crossbars of tiny-acc"),
      std::string::npos)
      << w0h0;
  EXPECT_EQ(tinyPlan("uniform", tinyAccelerator(1, 3, 4)).replicas, (std::vector<std::int64_t>{1, 1, 1, 1}));
  // The known methods are listed sorted; tests that register their own may have run in this process.
  const std::string unknown = errorOf([] { tinyPlan("genetic"); });
  EXPECT_NE(unknown.find("replication: unknown method 'genetic' (known: balance, "), std::string::npos)
      << unknown;
  for (const char* method : {", uniform", ", w0h0"})
    EXPECT_NE(unknown.find(method), std::string::npos) << unknown;
}

TEST(CrossbarReplication, WindowCapAndPluggableMethods) {
  // 512 crossbars: balance keeps adding replicas after every conv is down to one window each ...
  const Network net = tinyNetwork();
  const Accelerator big = tinyAccelerator(8, 8, 8);
  const std::vector<LayerPartition> layers = partitionNetwork(net, big, {}, PipelineMode::Ht);
  const std::vector<std::int64_t> raw = replicateBalance({layers, big, "tiny"});
  EXPECT_GT(raw[2], layers[2].windows);
  // ... and the plan caps each at its windows.
  const CompilePlan p = tinyPlan("balance", big);
  for (std::size_t i = 0; i < p.layers.size(); ++i)
    EXPECT_LE(p.replicas[i], p.layers[i].windows) << p.layers[i].name;
  EXPECT_EQ(p.replicas[2], 4);
  registerReplicationMethod("two-each", [](const ReplicationRequest& r) {
    std::vector<std::int64_t> reps;
    for (const LayerPartition& l : r.layers) reps.push_back(l.op == NetworkOp::Fc ? 1 : 2);
    return reps;
  });
  EXPECT_EQ(tinyPlan("two-each").replicas, (std::vector<std::int64_t>{2, 2, 2, 1}));
}

TEST(CrossbarReplication, DoesNotFitNamesTheNumbers) {
  EXPECT_EQ(errorOf([] { tinyPlan("balance", tinyAccelerator(1, 2, 4)); }),
            "tiny needs 9 crossbars of 64 x 16; tiny-acc has 8");
  Accelerator archA;
  archA.name = "crossbar-arch-a";
  archA.coresX = 12;
  archA.coresY = 14;
  archA.crossbarsPerCore = 12;
  const Network vgg = loadNetworkFile(builtinNetworkPath("vgg16"));
  EXPECT_EQ(errorOf([&] { compilePlan(vgg, archA, {}); }),
            "vgg16 needs 8,454 crossbars of 128 x 128; crossbar-arch-a has 2,016");
}

// ---------------------------------------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------------------------------------

// uniform (3 replicas each) on 4 cores of 8: c1's three 1-crossbar AGs and c2 replica 0's first two
// 2-crossbar AGs fill core 0 to 7; c2's later AGs go to cores 1 and 2; c3's 1-crossbar AGs take core 0's last
// crossbar, then core 2; the FC lands on core 3.
TEST(CrossbarLayout, FirstFitTakesTheLowestCoreWithRoom) {
  const CompilePlan p = tinyPlan("uniform");
  std::vector<std::int64_t> cores;
  for (const ArrayGroup& ag : p.layout.ags) cores.push_back(ag.core);
  EXPECT_EQ(cores, (std::vector<std::int64_t>{0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 0, 2, 2, 3}));
  EXPECT_EQ(p.layout.usedCrossbars, (std::vector<std::int64_t>{8, 8, 8, 1}));
  EXPECT_EQ(p.layout.coreAgs[0], (std::vector<int>{0, 1, 2, 3, 4, 12}));
  EXPECT_EQ(identityPlacement(p.accelerator), (std::vector<std::int64_t>{0, 1, 2, 3}));
}

// Each AG reads a slice of the window (im2col) vector: matrix m of I,O,K2 is kernel position m (elements
// [16m, 16m + 16) of c2's 144), matrix m of IK,O,K is kernel row m ([48m, 48m + 48), cut in bands of 32).
// Every format's AGs of one replica cover the window exactly once.
TEST(CrossbarLayout, AgsReadTheirSliceOfTheWindow) {
  Accelerator acc = tinyAccelerator(2, 2, 16);
  acc.rows = 32;
  const auto rowsOf = [&](const std::string& format) {
    UnfoldingChoice choice;
    choice.perLayer["c2"] = format;
    const std::vector<LayerPartition> layers = partitionNetwork(tinyNetwork(), acc, choice, PipelineMode::Ht);
    std::vector<std::pair<std::int64_t, std::int64_t>> rows;
    for (const ArrayGroup& ag : arrayGroups(layers, {1, 1, 1, 1}, acc))
      if (ag.layer == 1) rows.emplace_back(ag.rowStart, ag.rows);
    return rows;
  };
  using Rows = std::vector<std::pair<std::int64_t, std::int64_t>>;
  EXPECT_EQ(rowsOf("im2col"), (Rows{{0, 32}, {32, 32}, {64, 32}, {96, 32}, {128, 16}}));
  EXPECT_EQ(rowsOf("IK,O,K"), (Rows{{0, 32}, {32, 16}, {48, 32}, {80, 16}, {96, 32}, {128, 16}}));
  Rows kernelPositions;
  for (std::int64_t m = 0; m < 9; ++m) kernelPositions.emplace_back(16 * m, 16);
  EXPECT_EQ(rowsOf("I,O,K2"), kernelPositions);
}

TEST(CrossbarLayout, AnAgThatFitsNowhereIsAnError) {
  // 5 cores of 3 hold the 15 crossbars of c2 at two replicas by count, but each core takes only one of c2's
  // 2-crossbar AGs, and the sixth has no core (PIMCOMP-NN would leave it unmapped).
  CompileOptions o;
  o.replication = "c2-twice";
  registerReplicationMethod("c2-twice", [](const ReplicationRequest& r) {
    std::vector<std::int64_t> reps(r.layers.size(), 1);
    reps[1] = 2;
    return reps;
  });
  const Accelerator acc = tinyAccelerator(1, 5, 3);
  registerReplicationMethod(
      "one-each", [](const ReplicationRequest& r) { return std::vector<std::int64_t>(r.layers.size(), 1); });
  CompileOptions once;
  once.replication = "one-each";
  const CompilePlan onePerLayer = compilePlan(tinyNetwork(), acc, once);
  std::vector<std::int64_t> twice = onePerLayer.replicas;
  twice[1] *= 2;
  const std::string e = errorOf(
      [&] { placeFirstFit(arrayGroups(onePerLayer.layers, twice, acc), onePerLayer.layers, acc, "tiny"); });
  EXPECT_EQ(
      e,
      "tiny: layer 'c2' replica 1 AG 2 needs 2 crossbars; no core of tiny-acc has them free (first fit, 6 "
      "of 9 AGs placed)");
  // compilePlan gives the replica back rather than fail (or drop the AG, as PIMCOMP-NN would).
  const CompilePlan p = compilePlan(tinyNetwork(), acc, o);
  EXPECT_EQ(p.replicasGivenBack, 1);
  EXPECT_EQ(p.replicas, onePerLayer.replicas);
  // A layout chosen elsewhere is checked core by core.
  const std::string over = errorOf([&] {
    assemblePlan(tinyNetwork(), tinyAccelerator(2, 2, 8), {}, {1, 1, 1, 1}, std::vector<std::int64_t>(6, 0));
  });
  EXPECT_NE(over.find("core 0 holds more than its 8 crossbars"), std::string::npos) << over;
}

// Two 1x1 convolutions of the same input on 2 cores of 3 crossbars: a's two 1-crossbar AGs come first, so
// node-order first fit puts both on core 0 and b's 2-crossbar AGs need three cores. Largest first pairs each
// of b's AGs with one of a's: one replica per layer fits, and compilePlan says how it was packed.
TEST(CrossbarLayout, LargestFirstPacksWhatNodeOrderFirstFitCannot) {
  const std::string none = R"(,"with_bn":0,"with_act":0,"act_type":-1)";
  const Network net = parseNetworkJson(
      networkJson(
          {{"data", "OP_INPUT", {}, {1, 128, 8, 8}, {1, 128, 8, 8}, "", ""},
           {"a", "OP_CONV", {0}, {1, 128, 8, 8}, {1, 16, 8, 8}, convParam(1, 1, 0, 128, 16, 0), none},
           {"b", "OP_CONV", {0}, {1, 128, 8, 8}, {1, 32, 8, 8}, convParam(1, 1, 0, 128, 32, 0), none}}),
      "pair.json");
  const Accelerator acc = tinyAccelerator(1, 2, 3);
  CompileOptions once;
  once.replication = "one-each";
  registerReplicationMethod(
      "one-each", [](const ReplicationRequest& r) { return std::vector<std::int64_t>(r.layers.size(), 1); });
  const CompilePlan p = compilePlan(net, acc, once);
  EXPECT_EQ(p.placement, "first fit, largest AGs first");
  EXPECT_EQ(p.replicasGivenBack, 0);
  ASSERT_EQ(p.layout.ags.size(), 4u);
  std::vector<std::int64_t> cores;
  for (const ArrayGroup& ag : p.layout.ags) cores.push_back(ag.core);
  EXPECT_EQ(cores, (std::vector<std::int64_t>{0, 1, 0, 1}));  // a's bands, then b's, in network order
  EXPECT_EQ(p.layout.usedCrossbars, (std::vector<std::int64_t>{3, 3}));
  const std::string e =
      errorOf([&] { placeFirstFit(arrayGroups(p.layers, p.replicas, acc), p.layers, acc, "pair"); });
  EXPECT_EQ(
      e,
      "pair: layer 'b' replica 0 AG 1 needs 2 crossbars; no core of tiny-acc has them free (first fit, 3 "
      "of 4 AGs placed)");
  // An AG that fits nowhere under largest first is named with the rule (here b's two AGs fill both cores).
  const Accelerator small = tinyAccelerator(1, 2, 2);
  EXPECT_EQ(
      errorOf([&] { placeLargestFirst(arrayGroups(p.layers, p.replicas, small), p.layers, small, "pair"); }),
      "pair: layer 'a' replica 0 AG 0 needs 1 crossbars; no core of tiny-acc has them free (first fit, "
      "largest AGs first, 2 of 4 AGs placed)");
  // PIMCOMP-NN's node order stays wherever it places one replica per layer.
  EXPECT_EQ(compilePlan(net, tinyAccelerator(1, 3, 3), once).placement, "first fit");
}

}  // namespace pim::crossbar::compile_tests
