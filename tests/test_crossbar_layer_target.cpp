// SPDX-License-Identifier: Apache-2.0
// The crossbar family in the kernel explorer (engine/target/crossbar/layer_candidates.h, docs/crossbar.md
// "One layer in the kernel explorer"): a conv or FC kernel compiles as a one-layer network, its candidates
// are the compiler's choices, and each evaluation is the compile's, with per-core statistics.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "engine/crossbar/replication.h"
#include "engine/target/crossbar/core_statistics.h"
#include "engine/target/crossbar/crossbar_backend.h"
#include "engine/target/crossbar/layer_candidates.h"
#include "engine/target/crossbar/layer_evaluation.h"
#include "engine/target/crossbar/network_compile.h"
#include "engine/workflow/training.h"
#include "tests/evaluation_facts.h"
#include "tests/test_util.h"

namespace pim {
namespace {

using test::problem;

using test::fact;

Evaluation evaluated(const Problem& p, std::uint64_t id) {
  return targetOf(p.backend()).evaluate(p, Draft{id, {}}, EvalOptions{});
}

/// compileNetwork of a node list written by hand, in PIMCOMP-NN's timing unless told.
NetworkCompileResult compiledByHand(const Backend& b, const std::string& nodes,
                                    const crossbar::CompileOptions& o,
                                    crossbar::TimingMode timing = crossbar::TimingMode::PimcompNn) {
  NetworkCompileRequest r;
  r.compile = o;
  r.timing = timing;
  return compileNetwork(b, parseNetworkJson(R"({"node_list": [)" + nodes + "]}", "by-hand.json"), r);
}

const char* kFcByHand =
    R"({"index":0,"name":"in","operation":"OP_INPUT","provider_num":0,"provider":[],"provider_index":[],)"
    R"("consumer_num":1,"consumer":["fc"],"consumer_index":[1],"input_dim_num":2,"input_dim":[1,512],)"
    R"("output_dim_num":2,"output_dim":[1,512],"bitwidth":16},)"
    R"({"index":1,"name":"fc","operation":"OP_FC","provider_num":1,"provider":["in"],"provider_index":[0],)"
    R"("consumer_num":0,"consumer":[],"consumer_index":[],"input_dim_num":2,"input_dim":[1,512],)"
    R"("output_dim_num":2,"output_dim":[1,1000],"bitwidth":16,"with_bn":0,"with_act":0,"act_type":-1,)"
    R"("param":{"num_input":512,"num_output":1000,"with_bias":0}})";

// FC 512 -> 1000 on 128 x 128 arrays: 4 bands of rows x 8 column arrays = 32 crossbars, one MVMUL per band.
TEST(CrossbarLayerTarget, FcLayerCompilesAsItsOneNodeNetwork) {
  const auto p = problem("crossbar-pimcomp", "fc", "n=1,k=1000,c=512");
  ASSERT_TRUE(targetOf(p->backend()).check(*p).empty());
  const CrossbarLayerContext& c = crossbarLayerContext(*p);
  ASSERT_EQ(c.choices().size(), 2u);  // HT and LL; every replication rule gives one replica
  // Every registered rule (tests may register more) gives one replica: one candidate names them all.
  EXPECT_EQ(c.choice(0).methods, crossbar::replicationMethodNames());
  const std::string text = choiceText(c.choice(0));
  EXPECT_EQ(text.rfind("HT · im2col · balance, ", 0), 0u) << text;
  EXPECT_EQ(text.substr(text.size() - 11), "(1 replica)") << text;
  EXPECT_EQ(c.choice(1).options.mode, crossbar::PipelineMode::Ll);
  for (std::uint64_t id : {0, 1}) {
    const Evaluation e = evaluated(*p, id);
    EXPECT_EQ(fact(e, "crossbars_used"), 32);
    EXPECT_EQ(fact(e, "mvms"), 4);
    EXPECT_EQ(fact(e, "replicas"), 1);
    const NetworkCompileResult hand = compiledByHand(p->backend(), kFcByHand, c.choice(id).options);
    EXPECT_EQ(e.timeNs, id == 0 ? *hand.firstBatchLatencyNs : *hand.latencyNs);
    EXPECT_DOUBLE_EQ(e.energyPj, hand.energyNj * 1000);
    EXPECT_EQ(e.totalCycles, e.cycles[1]);
    EXPECT_EQ(e.unitsUsed, 1);  // 32 crossbars fit one core
  }
}

TEST(CrossbarLayerTarget, ConvCandidatesAreEveryModeUnfoldingAndDistinctReplication) {
  const auto p = problem("crossbar-pimcomp", "conv2d", "n=1,k=16,c=8,p=8,q=8,r=3,s=3");
  const CrossbarLayerContext& c = crossbarLayerContext(*p);
  ASSERT_TRUE(c.reasons().empty());
  EXPECT_EQ(c.choice(0).options.mode, crossbar::PipelineMode::Ht);
  EXPECT_EQ(c.choice(0).options.unfolding.all, "im2col");
  EXPECT_EQ(c.choice(0).methods.front(), "balance");
  std::set<std::tuple<int, std::string, std::int64_t>> seen;
  std::set<std::string> unfoldings;
  for (const LayerCompileChoice& x : c.choices()) {
    EXPECT_TRUE(
        seen.insert({static_cast<int>(x.options.mode), x.options.unfolding.all, x.totalReplicas()}).second)
        << choiceText(x);
    unfoldings.insert(x.options.unfolding.all);
  }
  EXPECT_EQ(unfoldings.size(), 5u);  // im2col and the four other formats of Table IV: each band fits a core
  EXPECT_TRUE(c.leftOut().empty());
  // The padded 10 x 10 input as a node list written by hand compiles to the same figures.
  const std::string conv =
      R"({"index":0,"name":"in","operation":"OP_INPUT","provider_num":0,"provider":[],"provider_index":[],)"
      R"("consumer_num":1,"consumer":["c"],"consumer_index":[1],"input_dim_num":4,"input_dim":[1,8,10,10],)"
      R"("output_dim_num":4,"output_dim":[1,8,10,10],"bitwidth":16},)"
      R"({"index":1,"name":"c","operation":"OP_CONV","provider_num":1,"provider":["in"],"provider_index":[0],)"
      R"("consumer_num":0,"consumer":[],"consumer_index":[],"input_dim_num":4,"input_dim":[1,8,10,10],)"
      R"("output_dim_num":4,"output_dim":[1,16,8,8],"bitwidth":16,"with_bn":0,"with_act":0,"act_type":-1,)"
      R"("param":{"kernel_h":3,"kernel_w":3,"stride_h":1,"stride_w":1,"pad_h0":0,"pad_h1":0,"pad_w0":0,)"
      R"("pad_w1":0,"input_channel":8,"output_channel":16,"with_bias":0}})";
  for (std::uint64_t id = 0; id < c.choices().size(); ++id) {
    const Evaluation e = evaluated(*p, id);
    const NetworkCompileResult hand = compiledByHand(p->backend(), conv, c.choice(id).options);
    EXPECT_EQ(e.timeNs, hand.latencyNs ? *hand.latencyNs : *hand.firstBatchLatencyNs) << id;
    EXPECT_EQ(fact(e, "mvms"), static_cast<double>(hand.mvmCount)) << id;
    EXPECT_EQ(fact(e, "replicas"), static_cast<double>(c.choice(id).totalReplicas())) << id;
    std::int64_t parts = 0;
    for (std::int64_t s : e.subCycles) parts += s;
    EXPECT_LE(parts, e.cycles[1]) << id;
  }
}

TEST(CrossbarLayerTarget, PerCoreStatisticsFollowTheGeometryAndAddUp) {
  const auto p = problem("crossbar-pimcomp", "conv2d", "n=1,k=16,c=8,p=8,q=8,r=3,s=3");
  const ITarget& t = targetOf(p->backend());
  const UnitGeometry g = t.geometry(p->backend());
  const crossbar::Accelerator a = acceleratorOf(p->backend());
  EXPECT_EQ(g.units(), a.cores());
  EXPECT_EQ(g.innerCount, a.coresX);
  ASSERT_EQ(g.bands.size(), 1u);
  EXPECT_EQ(g.unitsPerBand(), a.cores() / a.chips);
  const Evaluation e = evaluated(*p, 0);
  ASSERT_EQ(e.unitStats.statCount, t.statistics().size());
  ASSERT_EQ(e.unitStats.units(), static_cast<std::size_t>(a.cores()));
  double crossbars = 0;
  for (std::size_t u = 0; u < e.unitStats.units(); ++u)
    crossbars += e.unitStats.at(u, static_cast<std::size_t>(CoreStat::CrossbarUse)) / 100.0 *
                 static_cast<double>(a.crossbarsPerCore);
  EXPECT_NEAR(crossbars, fact(e, "crossbars_used"), 1e-9);
  EXPECT_EQ(e.unitStats.notes[0].rfind("core 0 of the accelerator; layer: ", 0), 0u) << e.unitStats.notes[0];
  for (const char* b : {"crossbar-pimcomp", "crossbar-arch-a", "crossbar-arch-b", "crossbar-arch-c"}) {
    const Backend& backend = builtinBackends().get(b);
    EXPECT_EQ(targetOf(backend).geometry(backend).units(), acceleratorOf(backend).cores()) << b;
  }
}

// The run's timing setting (SimSettings::crossbarTiming) times every candidate and the vendor baseline as
// `compile --timing` does; the MVM's parts, which only the intended timing reads, move only its figures.
TEST(CrossbarLayerTarget, TheRunsTimingModeTimesTheCompile) {
  auto p = problem("crossbar-pimcomp", "fc", "n=1,k=1000,c=512");
  const ITarget& t = targetOf(p->backend());
  const CrossbarLayerContext& c = crossbarLayerContext(*p);
  EvalOptions intended;
  intended.sim.crossbarTiming = xbar::TimingModel::Intended;
  for (std::uint64_t id : {0, 1}) {
    const Evaluation e = t.evaluate(*p, Draft{id, {}}, intended);
    const NetworkCompileResult hand =
        compiledByHand(p->backend(), kFcByHand, c.choice(id).options, crossbar::TimingMode::Intended);
    EXPECT_EQ(e.timeNs, id == 0 ? *hand.firstBatchLatencyNs : *hand.latencyNs);
    EXPECT_DOUBLE_EQ(e.energyPj, hand.energyNj * 1000);
    EXPECT_GT(e.timeNs, evaluated(*p, id).timeNs);  // 4,000-ns MVMs against 800
  }
  EXPECT_EQ(t.vendor(*p, intended).eval.timeNs, t.evaluate(*p, Draft{0, {}}, intended).timeNs);
  const std::string listing = t.listing(*p, Draft{1, {}}, intended, 3);
  EXPECT_NE(listing.find("intended timing"), std::string::npos) << listing;
  EXPECT_NE(t.listing(*p, Draft{1, {}}, EvalOptions{}, 3).find("pimcomp-nn timing"), std::string::npos);
  // 200 ns more ADC time: the intended LL latency moves, PIMCOMP-NN's 800-ns MVM does not.
  Backend slower = p->backend();
  slower.setParameter("timing.mvmAdcNs", slower.param("timing.mvmAdcNs")->value + 200);
  const auto q = std::make_unique<Problem>(slower, p->kernel(), p->shape());
  EXPECT_GT(t.evaluate(*q, Draft{1, {}}, intended).timeNs, t.evaluate(*p, Draft{1, {}}, intended).timeNs);
  EXPECT_EQ(evaluated(*q, 1).timeNs, evaluated(*p, 1).timeNs);
  // Stored labels of the two timings never mix; PIMCOMP-NN's keeps the key it had.
  EXPECT_EQ(optionsKey(intended, t), optionsKey(EvalOptions{}, t) + ",intended");
}

TEST(CrossbarLayerTarget, ListingNamesTheCompileAndItsProgram) {
  const auto p = problem("crossbar-pimcomp", "fc", "n=1,k=1000,c=512");
  const std::string text = targetOf(p->backend()).listing(*p, Draft{1, {}}, EvalOptions{}, 12);
  const std::string first = choiceText(crossbarLayerContext(*p).choice(1)) + " on crossbar-pimcomp (";
  EXPECT_EQ(text.rfind(first, 0), 0u) << text;
  EXPECT_NE(text.find("\nIG 0\n  core 0: "), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 12);
}

// A rule that cannot plan the layer leaves it out with its reason; the others still run. The rule refuses
// only while this test runs (registration is for the whole process), else it is balance.
TEST(CrossbarLayerTarget, ARuleThatFailsIsLeftOutWithItsReason) {
  static bool refusing = false;
  crossbar::registerReplicationMethod("refuses-here", [](const crossbar::ReplicationRequest& r) {
    if (refusing) throw InputError("refuses-here: never plans");
    return crossbar::replicationMethod("balance")(r);
  });
  refusing = true;
  const auto p = problem("crossbar-pimcomp", "fc", "n=1,k=1000,c=512");
  const CrossbarLayerContext& c = crossbarLayerContext(*p);
  refusing = false;
  ASSERT_TRUE(c.reasons().empty());
  EXPECT_EQ(c.choices().size(), 2u);
  std::size_t named = 0;
  for (const std::string& why : c.leftOut())
    named += why.find("im2col · refuses-here: refuses-here: never plans") != std::string::npos;
  EXPECT_EQ(named, 2u);  // HT and LL
}

TEST(CrossbarLayerTarget, WhatIsNotOneLayerIsRefusedWithTheReason) {
  const auto red = problem("crossbar-pimcomp", "red", "b=1,n=1024");
  const auto why = targetOf(red->backend()).check(*red);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].find("is not a convolution or FC layer"), std::string::npos) << why[0];
  EXPECT_NE(why[0].find("`pimscope-cli compile --backend crossbar-pimcomp --network resnet18`"),
            std::string::npos);
  const auto batch = problem("crossbar-pimcomp", "fc", "n=2,k=1000,c=512");
  test::expectInputError([&] { evaluated(*batch, 0); }, {"batch 1", "N = 2"});
  const auto large = problem("crossbar-pimcomp", "fc", "n=1,k=16384,c=16384");
  test::expectInputError([&] { evaluated(*large, 0); }, {"16,384 crossbars", "9,216"});
  const auto huge = problem("crossbar-pimcomp", "fc", "n=1,k=65536,c=65536");
  test::expectInputError([&] { evaluated(*huge, 0); },
                         {"kernel 'fc' as a one-layer network", "weights hold more than"});
  const auto fc = problem("crossbar-pimcomp", "fc", "n=1,k=1000,c=512");
  test::expectInputError([&] { evaluated(*fc, 2); }, {"candidate 2: out of range", "ids 0..1"});
}

}  // namespace
}  // namespace pim
