// SPDX-License-Identifier: Apache-2.0
// The analytic lower bound (engine/convmap/lower_bound): a hand-counted case, never above any valid
// mapping's cost (random walks on every shipped hierarchy, the exhaustive optimum), and the gap it gives a
// heuristic result.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <random>
#include <utility>

#include "engine/convmap/extent_lattice.h"
#include "engine/convmap/fill_bound.h"
#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapping_io.h"
#include "engine/convmap/mapspace.h"
#include "tests/convmap_fixtures.h"

namespace pim::convmap {
namespace {

using test::tinyHierarchy;

// The lattice's covers reach every strict multiple: over the entries written from the largest tuple down,
// the least over a tuple's covers is the least over its strict multiples (checked against every pair, on
// bounds with repeated and distinct primes), which the nested fills' walk relies on to skip extents.
TEST(ConvMapBound, TheLeastOverCoversIsTheLeastOverStrictMultiples) {
  const auto layer = parseLayerDims("R=3,S=1,P=12,Q=4,C=8,K=6", "lattice");
  const ExtentLattice lattice(layer);
  std::vector<DimFactors> tuples;
  lattice.forEach([&](std::size_t, const DimFactors& e) { tuples.push_back(e); });
  std::mt19937 rng(5);
  std::vector<double> own(tuples.size()), least(tuples.size());
  for (auto& v : own) v = static_cast<double>(rng() % 1000);
  for (std::size_t i = tuples.size(); i-- > 0;)
    least[i] = std::min(own[i], lattice.leastOverCovers(least, i));
  for (std::size_t i = 0; i < tuples.size(); ++i) {
    double strict = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < tuples.size(); ++j) {
      bool multiple = j != i;
      for (int d = 0; d < kDims; ++d) multiple = multiple && tuples[j][d] % tuples[i][d] == 0;
      if (multiple) strict = std::min(strict, least[j]);
    }
    EXPECT_EQ(lattice.leastOverCovers(least, i), strict) << i;
  }
  auto viaPasses = own;
  lattice.leastOverMultiples(viaPasses, 1);
  EXPECT_EQ(least, viaPasses);
}

TEST(ConvMapBound, AHandCountedCase) {
  ConvLayer l;  // K = C = 4, P = 2: 32 MACs
  l.bound = {1, 1, 2, 1, 4, 4, 1};
  const auto b = lowerBound(l, tinyHierarchy());
  // Compute 32 / 4 PEs = 8; DRAM per tensor: input N*C*P*Q = 8 B, weight 16 B, output 8 B, each in one row:
  // the weight's 16 transfer cycles + 20 for its row.
  EXPECT_EQ(b.latencyCycles, 36);
  EXPECT_EQ(b.latencyBy, "DRAM (weight)");
  // MACs 32; DRAM 8 + 16 + 8 = 32. Per tensor the cheaper of its two keepers: a PE buffer shares nothing
  // (no Internal lanes: input 8 + 32, weight 16 + 32, output 8 + 2 * 32), the global buffer shares by the
  // spatial factors irrelevant to it (input 8 + 32 / sK, weight 16 + 32 / sP, output 8 + 64 / sC). The 2 x 2
  // array unrolls two of K, P, C by 2 (one per slot): {K, C} gives 24 + 48 + 40 = 112, {P, C} 40 + 32 + 40 =
  // 112, {K, P} 24 + 32 + 72 = 128; sharing each tensor's operands by its own best factor at once (the
  // 16 + 32 + 24 a per-tensor bound would allow) is no mapping.
  EXPECT_DOUBLE_EQ(b.energyPj, 32 + 32 + 112);
  ObjectiveSpec o{Objective::Blended, 0.25, 36, 176};
  EXPECT_DOUBLE_EQ(objectiveBound(o, b), 1.0);
}

void expectBelowEveryMapping(const std::string& dims, const Hierarchy& h, std::uint64_t seed) {
  const auto layer = parseLayerDims(dims, "bound");
  const auto b = lowerBound(layer, h);
  const auto sample = randomValidMappings(layer, h, 150, seed);
  ASSERT_GT(sample.size(), 20u) << dims;
  for (const auto& m : sample) {
    const auto c = evaluate(layer, h, m);
    EXPECT_GE(c.latencyCycles, b.latencyCycles) << dims << " on " << h.name << ": " << mappingLabel(h, m);
    EXPECT_GE(c.energyPj * (1 + 1e-12), b.energyPj) << dims << " on " << h.name << ": " << mappingLabel(h, m);
  }
}

TEST(ConvMapBound, NoValidMappingCostsLess) {
  for (const auto& name : builtinHierarchyNames()) {
    const auto h = builtinHierarchy(name);
    expectBelowEveryMapping("R=3,S=3,P=28,Q=28,C=16,K=32", h, 1);
    expectBelowEveryMapping("R=1,S=1,P=14,Q=14,C=64,K=32,stride=2", h, 2);
    expectBelowEveryMapping("C=512,K=250,N=2", h, 3);
    expectBelowEveryMapping("R=5,S=3,P=12,Q=10,C=6,K=8,stride_w=2,dilation_h=2", h, 4);
    expectBelowEveryMapping("R=7,S=7,P=16,Q=16,C=3,K=16,stride=2", h, 5);
  }
}

// Each spatial assignment's own bound (what ilp-spatial closes assignments by) is below every valid mapping
// with that assignment, with buffers small enough that the fills coupled to the array extents bind.
TEST(ConvMapBound, NoMappingCostsLessThanItsSpatialAssignmentsBound) {
  for (const char* name : {"pimopt-default", "pimopt-small"}) {
    auto h = builtinHierarchy(name);
    for (auto& l : h.levels)
      if (&l != &h.levels.front() && &l != &h.levels.back())
        l.entries = std::min<std::int64_t>(l.entries, 96);
    for (const char* dims : {"R=3,S=3,P=14,Q=14,C=32,K=32", "R=1,S=1,P=7,Q=7,C=64,K=128,stride=2"}) {
      const auto layer = parseLayerDims(dims, "coupled");
      for (auto kind : {Objective::Latency, Objective::Energy, Objective::Blended}) {
        const auto o = normalised(ObjectiveSpec{kind}, layer, h);
        bool complete = false;
        const auto all = leastBoundSpatials(layer, h, o, 1'000'000, &complete);
        ASSERT_TRUE(complete);
        std::map<SpatialFactors, double> boundOf;
        for (const auto& c : all) boundOf[c.factors] = c.bound;
        const auto sample = randomValidMappings(layer, h, 200, 11);
        ASSERT_GT(sample.size(), 50u) << dims << " on " << name;
        for (const auto& m : sample) {
          const auto at = boundOf.find(spatialOf(m));
          ASSERT_NE(at, boundOf.end())
              << "an assignment of a valid mapping has no bound: " << mappingLabel(h, m);
          EXPECT_GE(objectiveValue(o, evaluate(layer, h, m)) * (1 + 1e-12), at->second)
              << dims << " on " << name << ": " << mappingLabel(h, m);
        }
      }
    }
  }
}

// Under the blend each spatial assignment is bounded per choice of lowest keepers: a tensor kept in the PE
// buffers is read fast (each PE its own share) but unshared, in the global buffer shared by the spatial
// factors irrelevant to it but read by one port. FC C = K = 4 on the tiny 2 x 2 array unrolling K2 x C2,
// DRAM free in time (64 B/cycle, no activation time), every level 1 pJ/B, room for every tile: per tensor
// (PE buffers | global buffer) the input reads 16 B / 4 PEs = 4 cycles for 16 + 4 pJ | 16 / 2 = 8 B in 8
// cycles for 8 + 4 (its fill), the weight 4 cycles for 16 + 16 | 16 cycles for 16 + 16, the output's partial
// sums (16 + 4) / 4 = 5 cycles for 32 + 4 | 8 + 4 read in 12 cycles for 16 + 4; MACs and one DRAM pass
// 16 + 24 pJ. The choices' (latency, energy): all in the PE buffers (5, 128), the input in the global
// buffer (8, 120), the input and output there (12, 104); the least latency 5 and least energy 104 are two
// choices', whose blend 0.5 x 5 + 0.5 x 104 = 54.5 no mapping with these factors costs.
TEST(ConvMapBound, TheBlendIsBoundedPerChoiceOfKeepers) {
  auto h = tinyHierarchy();
  h.timing.tRCD = h.timing.tRP = 0;
  h.levels[2].readBandwidth = h.levels[2].writeBandwidth = 64;
  const auto l = parseLayerDims("C=4,K=4", "fc");
  SpatialFactors kc;
  for (auto& slot : kc) slot.fill(1);
  kc[SlotH][K] = 2;
  kc[SlotW][C] = 2;
  const auto boundOfKc = [&](Objective kind) {
    const ObjectiveSpec o{kind, 0.5, 1, 1};
    for (const auto& c : leastBoundSpatials(l, h, o, 100))
      if (c.factors == kc) return c.bound;
    ADD_FAILURE() << "no bound for H:K2 W:C2";
    return 0.0;
  };
  EXPECT_EQ(boundOfKc(Objective::Latency), 5);
  EXPECT_DOUBLE_EQ(boundOfKc(Objective::Energy), 104);
  // (5, 128): 66.5; (8, 120): 64; (12, 104): 58.
  EXPECT_DOUBLE_EQ(boundOfKc(Objective::Blended), 58);
  const ObjectiveSpec blend{Objective::Blended, 0.5, 1, 1};
  double least = std::numeric_limits<double>::infinity();
  for (const auto& m : randomValidMappings(l, h, 3000, 5))
    if (spatialOf(m) == kc) least = std::min(least, objectiveValue(blend, evaluate(l, h, m)));
  EXPECT_GE(least, 58);
  EXPECT_LT(least, 70);  // the sample holds mappings of this assignment
}

TEST(ConvMapBound, TheExhaustiveOptimumIsAboveItAndAHeuristicReportsItsGap) {
  auto h = tinyHierarchy();
  h.levels[1].bypassFixed = true;
  ConvLayer l;
  l.bound = {1, 1, 2, 1, 4, 2, 1};
  for (auto kind : {Objective::Latency, Objective::Energy}) {
    MapOptions o;
    o.objective.kind = kind;
    const double bound = objectiveBound(o.objective, lowerBound(l, h));
    o.collectFront = true;  // the whole walk, no early stop
    const auto whole = makeMapper("exhaustive")->solve(l, h, o, nullptr);
    ASSERT_EQ(whole.status, "optimal");
    EXPECT_EQ(whole.boundSource, "exhaustive walk");
    EXPECT_LE(bound, whole.objective * (1 + 1e-12));
    // Stopping at the bound loses nothing: it stops only on a mapping no other can beat.
    o.collectFront = false;
    const auto early = makeMapper("exhaustive")->solve(l, h, o, nullptr);
    EXPECT_EQ(early.status, "optimal");
    EXPECT_EQ(early.objective, whole.objective);
    EXPECT_LE(early.evaluated, whole.evaluated);
    if (early.boundSource == "analytic lower bound") {
      EXPECT_DOUBLE_EQ(early.objective, bound);
    }
    o.maxEvaluations = 300;
    const auto r = makeMapper("heuristic")->solve(l, h, o, nullptr);
    ASSERT_TRUE(r.bound && r.gap);
    EXPECT_EQ(r.boundSource, "analytic lower bound");
    EXPECT_DOUBLE_EQ(*r.bound, bound);
    EXPECT_NEAR(*r.gap, (r.objective - bound) / r.objective, 1e-12);
  }
}

// A spatial assignment whose smallest tiles overflow a level that must keep them has no valid mapping: the
// bound leaves it out. FC C = K = 4 (16 MACs) on the tiny 2 x 2 array, DRAM made free (64 B/cycle, no
// activation time), the global buffer keeping every tensor (bypass fixed) in 6 B: unrolling K2 x C2 needs
// input 2 + weight 4 + output 2 = 8 B there, so only K2 or C2 (5 B) fit. Under K2, the output's partial sums
// are the busiest: in a PE buffer (16 operands + 4 outputs read out) / 2 PEs = 10 cycles, in the global
// buffer 16 + 4 = 20; under C2 the same 10 (the global buffer: 16 / 2 + 4 = 12). With room for K2 x C2 the
// bound would be (16 + 4) / 4 = 5.
TEST(ConvMapBound, ArrayUsesNoMappingCanHoldAreLeftOut) {
  auto h = tinyHierarchy();
  h.timing.tRCD = h.timing.tRP = 0;
  h.levels[2].readBandwidth = h.levels[2].writeBandwidth = 64;
  h.levels[1].bypassFixed = true;
  const auto l = parseLayerDims("C=4,K=4", "fc");
  h.levels[1].entries = 6;
  EXPECT_EQ(lowerBound(l, h).latencyCycles, 10);
  MapOptions o;
  o.collectFront = true;  // the whole walk
  const auto whole = makeMapper("exhaustive")->solve(l, h, o, nullptr);
  ASSERT_EQ(whole.status, "optimal");
  EXPECT_GE(whole.cost.latencyCycles, 10);
  h.levels[1].entries = 256;
  EXPECT_EQ(lowerBound(l, h).latencyCycles, 5);
}

// The fill term (engine/convmap/fill_bound). FC C = K = 4 (input 4 B, weight 16 B, output 4 B touched), the
// global buffer 8 B at 1 pJ/B, DRAM at 0.5 pJ/B. All three lowest kept there fit only extents (C, K) of
// (1,1), (1,2), (2,1) or (2,2): L = 16 / (C K) refills of all but the one tensor the innermost loop spares.
// (2,2), sparing the input: input 4, weight 4 x 4 = 16, output 4 x 2 = 8 B in, the output's 8 - 4 B beyond
// its one DRAM pass costing 0.5 more each: 4 + 16 + 10 = 30 pJ; sparing the output the same; (1,2) sparing
// the output or (2,1) sparing the input also 30; (1,1) 42. "Each byte once" would say 24.
TEST(ConvMapBound, FillsOfTensorsSharingASmallBufferAreCountedByTheirRefills) {
  auto h = tinyHierarchy();
  h.levels[1].entries = 8;
  h.levels[2].accessEnergyPj = 0.5;
  const auto l = parseLayerDims("C=4,K=4", "fc");
  const FillBound fill(l, h);
  EXPECT_DOUBLE_EQ(fill.energyPj(1, 0b111), 30);
  EXPECT_DOUBLE_EQ(fill.energyPj(1, 0b101), 8);  // input and output: extents (4, 4) fit, no refill
  EXPECT_DOUBLE_EQ(fill.energyPj(1, 0b010), 16);
  EXPECT_DOUBLE_EQ(fill.energyPj(0, 0b111), 0);  // level 0 is counted per PE elsewhere
  // Per array extents (bounds R, S, P, Q, C, K, N): an array that unrolls C by 2 leaves (2, 1) and (2, 2),
  // 30 as above; one that unrolls C by 4 leaves (4, 1), (4, 2), (4, 4), whose three tiles take 9, 14 and
  // 24 B: none fits 8 B, so no mapping with that array keeps all three there.
  EXPECT_DOUBLE_EQ(fill.energyPj(1, 0b111, {1, 1, 1, 1, 2, 1, 1}), 30);
  EXPECT_EQ(fill.energyPj(1, 0b111, {1, 1, 1, 1, 4, 1, 1}), std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(fill.energyPj(1, 0b111, {1, 1, 1, 1, 1, 1, 1}), 30);  // the least over every extent
  h.levels[1].entries = 2;  // the three tensors' smallest tiles take 3 B
  EXPECT_EQ(FillBound(l, h).energyPj(1, 0b111), std::numeric_limits<double>::infinity());
}

// With small buffers the bound rises above "each byte once" and stays under the exhaustive optimum, on layers
// whose every mapping the walk sees. With a 4-B global buffer it rises (FC: 92 -> 98 pJ, which is the
// optimum; the 3 x 1 conv: 210 -> 222 pJ under an optimum of 240, and 228 with the fills taken at extents
// that are multiples of each spatial assignment's array extents).
TEST(ConvMapBound, TheFillTermKeepsTheBoundUnderTheExhaustiveOptimum) {
  for (const char* dims : {"C=4,K=4", "P=2,C=4,K=2", "R=3,P=4,C=2,K=2"}) {
    const auto l = parseLayerDims(dims, "small");
    auto h = tinyHierarchy();
    h.levels[2].accessEnergyPj = 0.5;
    const double roomy = lowerBound(l, h).energyPj;
    for (std::int64_t entries : {16, 8, 6, 4}) {
      h.levels[1].entries = entries;
      const auto b = lowerBound(l, h);
      EXPECT_GE(b.energyPj, roomy) << dims;
      MapOptions o;
      o.objective.kind = Objective::Energy;
      o.collectFront = true;  // the whole walk
      o.timeLimitSeconds =
          600;  // not the map default's 10 s: under the sanitizers on a busy machine it ran out
      const auto whole = makeMapper("exhaustive")->solve(l, h, o, nullptr);
      ASSERT_EQ(whole.status, "optimal") << dims;
      EXPECT_LE(b.energyPj, whole.cost.energyPj * (1 + 1e-12)) << dims << ", " << entries << " B";
      if (entries == 4 && std::string(dims) == "C=4,K=4") {
        EXPECT_DOUBLE_EQ(b.energyPj, 98);
        EXPECT_DOUBLE_EQ(whole.cost.energyPj, 98);
      }
      if (entries == 4 && std::string(dims) == "R=3,P=4,C=2,K=2") {
        EXPECT_DOUBLE_EQ(b.energyPj, 228);
      }
    }
  }
}

// Where the PE buffers are dear (4 pJ/B) the tensors are kept in a small global buffer, and an output that
// cannot be spared is refilled: its partial sums cross the buffer and DRAM (2 L - distinct) tiles each way
// (every fill written back, every fill but each tile's first read back). Counting both directions, the
// bound meets the exhaustive optimum on these layers; counting 2 L + distinct tiles it passes it (456 >
// 448 pJ at 6 B).
TEST(ConvMapBound, AnOutputsRefillsAreCountedBothWays) {
  const auto l = parseLayerDims("P=4,C=4,K=4", "refilled");
  auto h = tinyHierarchy();
  h.levels[0].accessEnergyPj = 4;
  h.levels[2].accessEnergyPj = 0.5;
  for (const auto& [entries, optimum] : {std::pair<std::int64_t, double>{6, 448}, {8, 368}}) {
    h.levels[1].entries = entries;
    MapOptions o;
    o.objective.kind = Objective::Energy;
    o.collectFront = true;
    o.timeLimitSeconds = 600;
    const auto whole = makeMapper("exhaustive")->solve(l, h, o, nullptr);
    ASSERT_EQ(whole.status, "optimal");
    EXPECT_DOUBLE_EQ(whole.cost.energyPj, optimum) << entries << " B";
    EXPECT_DOUBLE_EQ(lowerBound(l, h).energyPj, optimum) << entries << " B";
  }
}

// Nested fills (engine/convmap/fill_bound.h). ResNet-18's stage-2 3 x 3 layer on pimopt-default with the
// array unrolling P2 Q4 C8 K4, the input and output lowest kept in the global buffer and the weight in the
// row buffer above it. Counted apart, the global buffer spares the input (a K loop innermost above it:
// 1,379.84 nJ) while the row buffer spares the weight (a P or Q loop innermost above it: 92.16 nJ), which
// no loop order does at once: those K loops would lie between the two levels, where they are loops relevant
// to the weight. Nested, 3,324.2 nJ, which a brute force over every pair of extents and spared tensors,
// written apart from the engine for this check, also gave.
TEST(ConvMapBound, TwoBufferLevelsFillsAreCountedNested) {
  const auto h = builtinHierarchy("pimopt-default");
  const auto layer = parseLayerDims("R=3,S=3,P=28,Q=28,C=128,K=128", "resnet18-stage2");
  const FillBound fill(layer, h);
  const DimFactors array{1, 1, 2, 4, 8, 4, 1};  // R, S, P, Q, C, K, N
  const unsigned inputAndOutput = 0b101, weight = 0b010;
  EXPECT_NEAR(fill.energyPj(1, inputAndOutput, array), 1'379'840, 1e-6);
  EXPECT_NEAR(fill.energyPj(2, weight, array), 92'160, 1e-6);
  EXPECT_NEAR(fill.energyPj(1, inputAndOutput, 2, weight, array), 3'324'200, 1e-6);
  EXPECT_NEAR(fill.energyPj(2, weight, 1, inputAndOutput, array), 3'324'200, 1e-6);  // either order
}

// The spatial assignments the bound ranks least start the heuristic: on a ResNet-18 3 x 3 layer it reaches
// the bound (the whole array busy, every buffer within its time), which proves the mapping optimal.
TEST(ConvMapBound, TheHeuristicStartingFromTheBoundsArrayUseProvesAResNetLayer) {
  const auto h = builtinHierarchy("pimopt-default");
  const auto layer = parseLayerDims("R=3,S=3,P=28,Q=28,C=128,K=128", "resnet18-stage2");
  MapOptions o;
  o.timeLimitSeconds = 120;
  const auto starts = leastBoundSpatials(layer, h, o.objective, 4);
  ASSERT_EQ(starts.size(), 4u);
  const auto r = makeMapper("heuristic")->solve(layer, h, o, nullptr);
  EXPECT_EQ(r.status, "optimal");
  EXPECT_EQ(r.cost.latencyCycles, layer.macs() / h.peCount());
  EXPECT_LT(r.evaluated, o.maxEvaluations);
  // The starts count against the proposals: a small budget holds.
  o.maxEvaluations = 100;
  EXPECT_LE(makeMapper("heuristic")->solve(layer, h, o, nullptr).evaluated, 102);
}

// `auto` under latency alone runs the heuristic again with the next seed while each run spends its proposals
// without meeting the bound and time is left: on ResNet-18's stage-4 shortcut a run of 5,000 proposals from
// seed 1 stays far above the bound, and seed 8's reaches it (each run's outcome depends on its seed and
// budget only, not on the machine, while the time limit is far).
TEST(ConvMapBound, AutoUnderLatencyRunsTheHeuristicAgainWithTheNextSeed) {
  const auto h = builtinHierarchy("pimopt-default");
  const auto layer = parseLayerDims("R=1,S=1,P=7,Q=7,C=256,K=512,stride=2", "resnet18-stage4-shortcut");
  MapOptions o;
  o.maxEvaluations = 5000;
  o.timeLimitSeconds = 600;
  const auto once = makeMapper("heuristic")->solve(layer, h, o, nullptr);
  EXPECT_EQ(once.status, "feasible");
  std::vector<std::string> stages;
  const auto r = makeMapper("auto")->solve(layer, h, o, [&](const MapProgress& p) {
    if (stages.empty() || stages.back() != p.stage) stages.push_back(p.stage);
  });
  EXPECT_EQ(r.mapper, "auto (heuristic)");
  EXPECT_EQ(r.status, "optimal");
  EXPECT_EQ(r.cost.latencyCycles, layer.macs() / h.peCount());
  EXPECT_GT(r.evaluated, o.maxEvaluations);
  EXPECT_EQ(r.bestSoFar.back(), r.objective);
  ASSERT_GE(stages.size(), 2u);
  EXPECT_EQ(stages[0], "heuristic");
  EXPECT_EQ(stages[1], "heuristic, seed 2");
  // A front's collection needs one whole search: nothing runs again.
  o.collectFront = true;
  EXPECT_EQ(makeMapper("auto")->solve(layer, h, o, nullptr).evaluated, once.evaluated);
}

// `auto` under the blend runs the heuristic with up to three more seeds, then, where it takes the layer on,
// the exhaustive walk from the best mapping: the FC layer's first run of 2,000 proposals stays above the
// bound, so seeds 2, 3 and 4 run, and no fifth; the walk after them proves the optimum.
TEST(ConvMapBound, AutoUnderTheBlendRunsThreeMoreSeedsThenTheWalk) {
  const auto h = builtinHierarchy("pimopt-default");
  const auto layer = parseLayerDims("C=32,K=64", "fc");
  MapOptions o;
  o.objective.kind = Objective::Blended;
  o.maxEvaluations = 2000;
  o.timeLimitSeconds = 120;  // far above what the runs need: the same seeds run on every machine
  const auto once = makeMapper("heuristic")->solve(layer, h, o, nullptr);
  ASSERT_EQ(once.status, "feasible");
  std::vector<std::string> stages;
  const auto r = makeMapper("auto")->solve(layer, h, o, [&](const MapProgress& p) {
    if (stages.empty() || stages.back() != p.stage) stages.push_back(p.stage);
  });
  const auto seedRuns = [&](const std::string& s) { return std::count(stages.begin(), stages.end(), s); };
  EXPECT_EQ(seedRuns("heuristic, seed 2"), 1);
  EXPECT_EQ(seedRuns("heuristic, seed 4"), 1);
  EXPECT_EQ(seedRuns("heuristic, seed 5"), 0);
  const auto walk = std::find(stages.begin(), stages.end(), "exhaustive");
  EXPECT_GT(walk - std::find(stages.begin(), stages.end(), "heuristic, seed 4"), 0)
      << "the walk runs after the seeds";
  EXPECT_EQ(r.mapper, "auto (heuristic + exhaustive)");
  EXPECT_EQ(r.status, "optimal");
  EXPECT_EQ(r.objective, makeMapper("exhaustive")->solve(layer, h, o, nullptr).objective);
}

// A 3 x 3 layer on pimopt-default searched with a 50 % gap, within a budget it does not need.
struct GapCase {
  Hierarchy h = builtinHierarchy("pimopt-default");
  ConvLayer layer = parseLayerDims("R=3,S=3,P=28,Q=28,C=64,K=64", "gap");
  MapOptions o;
  explicit GapCase(Objective objective) {
    o.objective.kind = objective;
    o.maxEvaluations = 100000;
    o.timeLimitSeconds = 60;
    o.gap = 0.5;
  }
  MapResult solve(const std::string& mapper) const { return makeMapper(mapper)->solve(layer, h, o, nullptr); }
};

// --gap: a search stops as soon as its incumbent is proven within the gap, and says how close it is.
TEST(ConvMapBound, ASearchStopsOnceProvenWithinTheGap) {
  GapCase c(Objective::Latency);
  const auto r = c.solve("heuristic");
  ASSERT_TRUE(r.gap);
  EXPECT_LE(*r.gap, 0.5 + 1e-12);
  EXPECT_LT(r.evaluated, c.o.maxEvaluations);
  c.o.gap = 0;
  const auto full = c.solve("heuristic");
  EXPECT_GT(full.evaluated, r.evaluated);
  EXPECT_LE(full.objective, r.objective);
}

// `auto` under energy hands a heuristic mapping that is not proven optimal to the MILP, but not one already
// proven within the gap asked for: the MILP would spend the rest of the time limit on it.
TEST(ConvMapBound, AutoStopsAtTheHeuristicOnceItIsProvenWithinTheGap) {
  const auto r = GapCase(Objective::Energy).solve("auto");
  ASSERT_TRUE(r.gap);
  EXPECT_LE(*r.gap, 0.5 + 1e-12);
  EXPECT_EQ(r.mapper, "auto (heuristic)");
  EXPECT_LT(r.seconds, 30);
}

}  // namespace
}  // namespace pim::convmap
