// SPDX-License-Identifier: Apache-2.0
// The conv mapper's model (engine/convmap): hierarchies, mapping verdicts, the reuse rule, traffic, cycles,
// energy and row activations on cases counted by hand (docs/convmap.md), and the heuristic mapper.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "engine/common/error.h"
#include "engine/convmap/evaluator.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapping_io.h"
#include "engine/convmap/mapspace.h"
#include "engine/convmap/trace_bridge.h"
#include "tests/convmap_fixtures.h"

namespace pim::convmap {
namespace {

using test::tinyHierarchy;

ConvLayer layerKCP() {  // K = C = P = 4
  ConvLayer l;
  l.name = "kcp";
  l.bound = {1, 1, 4, 1, 4, 4, 1};
  return l;
}

/// H: K2, W: P2; PE temporal C4; GB temporal K2; DRAM temporal P2 (the nest: P2 > K2 > [K2 x P2 PEs] > C4).
ConvMapping handMapping(const Hierarchy& h) {
  ConvMapping m;
  m.levels.resize(3);
  for (auto& l : m.levels)
    for (auto& f : l.factor) f.fill(1);
  setFactor(m, 0, SlotH, K, 2);
  setFactor(m, 0, SlotW, P, 2);
  setFactor(m, 0, SlotTemporal, C, 4);
  setFactor(m, 1, SlotTemporal, K, 2);
  setFactor(m, 2, SlotTemporal, P, 2);
  for (std::size_t lv = 0; lv < 3; ++lv) m.levels[lv].keep = h.levels[lv].stores;
  return m;
}

TEST(ConvMap, ReuseRuleCountsFillsByTheInnermostRelevantLoop) {
  const auto h = tinyHierarchy();
  const auto m = handMapping(h);
  // Above the PEs, inner to outer: K2 (GB), P2 (DRAM). The input ignores K, so K2 reuses its tile: 2 fills.
  EXPECT_EQ(fills(m, 0, Input), 2);
  EXPECT_EQ(fills(m, 0, Weight), 4);
  EXPECT_EQ(fills(m, 0, Output), 4);
  EXPECT_EQ(distinctTiles(m, 0, Weight), 2);
  // Above the GB only P2: the weight never changes there.
  EXPECT_EQ(fills(m, 1, Weight), 1);
  EXPECT_EQ(fills(m, 1, Input), 2);
}

TEST(ConvMap, TrafficCyclesAndEnergyOfAHandCountedMapping) {
  const auto h = tinyHierarchy();
  const auto layer = layerKCP();
  const auto m = handMapping(h);
  ASSERT_TRUE(violations(layer, h, m).empty());
  const auto c = evaluate(layer, h, m);
  EXPECT_EQ(c.macs, 64);
  EXPECT_EQ(c.computeCycles, 16);  // 64 MACs on 4 PEs
  // Per-PE tiles: input C4 (4 B), weight C4 (4 B), output 1 B. The array's tiles: input C4 x P2 = 8 B,
  // weight K2 x C4 = 8 B, output K2 x P2 = 4 B.
  const auto& pe = c.levels[0];
  const auto& gb = c.levels[1];
  const auto& dram = c.levels[2];
  EXPECT_EQ(pe.tileBytes, (std::array<std::int64_t, 3>{4, 4, 1}));
  EXPECT_EQ(pe.bytesWritten[Input], 2 * 4 * 4);   // 2 fills x 4 B x 4 PEs
  EXPECT_EQ(pe.bytesWritten[Weight], 4 * 4 * 4);  // 4 fills
  EXPECT_EQ(pe.bytesWritten[Output], 0);          // every output tile is filled once: nothing read back
  EXPECT_EQ(pe.bytesRead[Output], 4 * 1 * 4);     // 4 write-backs of 1 B from 4 PEs
  EXPECT_EQ(gb.bytesRead[Input], 2 * 8);
  EXPECT_EQ(gb.bytesRead[Weight], 4 * 8);
  EXPECT_EQ(gb.bytesWritten[Output], 4 * 4);  // the array's 4-B output tile, 4 times
  // GB tiles: input C4 x P2 = 8, weight K4 x C4 = 16, output K4 x P2 = 8; above it only P2.
  EXPECT_EQ(dram.bytesRead, (std::array<std::int64_t, 3>{16, 16, 0}));
  EXPECT_EQ(dram.bytesWritten[Output], 16);
  EXPECT_EQ(gb.bytesRead[Output], 16);
  // Every tensor fits in one 1,024-B row: 1 activation each. DRAM cycles per tensor: bytes + 20 per
  // activation.
  EXPECT_EQ(c.rowActs.count, (std::array<std::int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(c.dramCycles, (std::array<std::int64_t, 3>{16 + 20, 16 + 20, 16 + 20}));
  // PE level per PE: the output's 16 B of write-backs and 64 B of partial-sum reads over 4 PEs = 20 cycles
  // (the MACs read every operand here: no Internal lanes share one); GB: weight 32 B read = 32 cycles.
  EXPECT_EQ(pe.cycles, 20);
  EXPECT_EQ(gb.cycles, 32);
  EXPECT_EQ(c.latencyCycles, 36);
  EXPECT_EQ(c.boundBy, "DRAM (input)");
  // Energy: 64 MACs x 1 pJ + every byte read, written or served to a MAC at 1 pJ.
  double bytes = 0;
  for (const auto& l : c.levels)
    for (int t = 0; t < kTensors; ++t)
      bytes += l.bytesRead[t] + l.bytesWritten[t] + l.operandRead[t] + l.operandWritten[t];
  EXPECT_DOUBLE_EQ(c.energyPj, 64 + bytes);
  EXPECT_EQ(pe.operandRead, (std::array<std::int64_t, 3>{64, 64, 64}));
  EXPECT_EQ(pe.operandWritten, (std::array<std::int64_t, 3>{0, 0, 64}));
}

TEST(ConvMap, VerdictsNameWhatIsBroken) {
  const auto h = tinyHierarchy();
  const auto layer = layerKCP();
  auto m = handMapping(h);
  setFactor(m, 0, SlotH, K, 4);  // K factors now 4 x 2 = 8, and H unrolls 4 on a 2-row array
  auto v = violations(layer, h, m);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].limit, "factorisation");
  EXPECT_NE(v[0].message.find("dimension K: factors multiply to 8, not its bound 4"), std::string::npos);
  m = handMapping(h);
  setFactor(m, 1, SlotTemporal, K, 1);
  setFactor(m, 0, SlotH, K, 4);
  v = violations(layer, h, m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "H unrolls 4 but the array has 2");
  m = handMapping(h);
  m.levels[1].keep = {false, false, false};  // the GB bypassed: the PEs fill from DRAM
  v = violations(layer, h, m);
  EXPECT_TRUE(v.empty()) << LimitError(v).what();
  m.levels[0].keep[Output] = false;
  v = violations(layer, h, m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "no level below DRAM keeps the output (the PEs read operands from a buffer)");
  m = trivialMapping(layer, h);
  m.layout[Input] = Layout::RowAligned;
  m.blockH = 1;
  m.blockW = 3;
  v = violations(layer, h, m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "a row-aligned input needs a block dividing its 1 x 4 plane (got 1 x 3)");
}

TEST(ConvMap, IsValidAgreesWithTheVerdictsOnRandomMoves) {
  // The mappers ask isValid() of every candidate; it must give violations()'s verdict on valid and broken
  // mappings alike (random moves break the capacity, the PE array and the layout on this layer).
  const auto h = builtinHierarchy("pimopt-small");
  const auto layer = parseLayerDims("R=3,S=3,P=8,Q=8,C=16,K=16,N=1", "moves");
  std::mt19937_64 rng(7);
  ConvMapping m = trivialMapping(layer, h);
  int valid = 0, broken = 0;
  for (int i = 0; i < 3000; ++i) {
    ConvMapping next = m;
    if (!randomMove(layer, h, next, rng)) continue;
    const bool ok = violations(layer, h, next).empty();
    ASSERT_EQ(isValid(layer, h, next), ok) << mappingJson(h, next).dump();
    (ok ? valid : broken) += 1;
    if (ok) m = next;
  }
  EXPECT_GT(valid, 100);
  EXPECT_GT(broken, 100);
  auto bad = trivialMapping(layer, h);
  bad.levels.pop_back();
  EXPECT_FALSE(isValid(layer, h, bad));
}

TEST(ConvMap, CapacityCountsEachKeptTileAndPerPeAtLevelZero) {
  auto h = tinyHierarchy();
  h.levels[0].entries = 8;  // 8 B per PE: input 4 + weight 4 + output 1 do not fit
  const auto v = violations(layerKCP(), h, handMapping(h));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "PE holds 9 B (input 4 + weight 4 + output 1) of 8 B per PE");
}

/// A weight of K = 4,096 one-byte elements streamed through a GB tile of 1,024, `repeats` times by an
/// irrelevant N loop outermost: the spec's "stream" (4) and "large reuse" (12) cases.
ConvCost streamedWeight(std::int64_t repeats, Layout layout) {
  auto h = tinyHierarchy();
  h.levels[1].entries = 4096;
  ConvLayer layer;
  layer.bound = {1, 1, 1, 1, 1, 4096, repeats};
  ConvMapping m = trivialMapping(layer, h);
  setFactor(m, 2, SlotTemporal, K, 4);
  setFactor(m, 1, SlotTemporal, K, 1024);
  m.levels[2].order = {K};
  if (repeats > 1) m.levels[2].order.push_back(N);  // N outermost
  m.layout[Weight] = layout;
  return evaluate(layer, h, m);
}

TEST(ConvMap, RowActivationsOfStreamingAndRepeatedTraversals) {
  EXPECT_EQ(streamedWeight(1, Layout::Sequential).rowActs.count[Weight], 4);
  EXPECT_EQ(streamedWeight(1, Layout::Sequential).rowActs.regime[Weight], "streaming");
  EXPECT_EQ(streamedWeight(3, Layout::Sequential).rowActs.count[Weight], 12);
  // Row-aligned: each 1,024-B tile in its own row, 12 fetches.
  EXPECT_EQ(streamedWeight(3, Layout::RowAligned).rowActs.count[Weight], 12);
}

TEST(ConvMap, GcdCrossingCountsTheSpecCases) {
  // pim-optimizer.md: height 14, blocks of 8, extent 3, step 2: 6 tiles, one crossing (the one at row 6).
  EXPECT_EQ(crossingTiles(6, 2, 3, 8), 1);
  // Height 34, blocks of 8, extent 4, step 3: 11 tiles, 4 crossing.
  EXPECT_EQ(crossingTiles(11, 3, 4, 8), 4);
  EXPECT_EQ(crossingTiles(5, 1, 9, 8), 5);  // a tile taller than a block crosses always
  // Against counting offsets one by one.
  for (std::int64_t step = 1; step <= 9; ++step)
    for (std::int64_t extent = 1; extent <= 9; ++extent)
      for (std::int64_t block : {4, 6, 8}) {
        std::int64_t n = 23, count = 0;
        for (std::int64_t k = 0; k < n; ++k) count += (k * step) / block != (k * step + extent - 1) / block;
        EXPECT_EQ(crossingTiles(n, step, extent, block), count) << step << " " << extent << " " << block;
      }
}

TEST(ConvMap, ShippedHierarchiesLoadAndBadOnesAreNamed) {
  for (const auto& name : builtinHierarchyNames()) {
    const auto h = builtinHierarchy(name);
    EXPECT_GE(h.levels.size(), 3u) << name;
    EXPECT_GT(h.dram().rowBytes, 0) << name;
  }
  EXPECT_EQ(builtinHierarchy("pimopt-default").pe.height, 16);
  EXPECT_EQ(builtinHierarchy("pimopt-doc").pe.internal, 8);
  auto error = [](std::string_view text) {
    try {
      parseHierarchyJson(text, "h.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string pe = R"("pe_array": {"height": 2, "width": 2, "mac_energy_pj": 1}, )";
  const std::string timing = R"("dram_timing": {"tRCD": 1, "tRP": 1}, )";
  EXPECT_EQ(error(R"({"name": "x", )" + pe + timing + R"("levels": []})"),
            "h.json: levels: needs at least a PE buffer and DRAM (got 0)");
  EXPECT_EQ(
      error(
          R"({"name": "x", )" + pe + timing +
          R"("levels": [{"name": "PE", "entries": 0, "block_bytes": 1, "latency": 1, "access_energy_pj": 1}]})"),
      "h.json: levels[0].entries: 0 is out of range [1, 1e+15] elements");
  EXPECT_EQ(
      error(R"({"name": "x", )" + pe + timing +
            R"("levels": [{"name": "PE", "entries": 4, "block_bytes": 1, "latency": 1, "access_energy_pj": 1,
                     "instances": 4}, {"name": "D", "entries": 4, "block_bytes": 1, "latency": 1,
                     "access_energy_pj": 1}]})"),
      "h.json: levels[1].row_bytes: missing: DRAM needs its row size");
  EXPECT_EQ(error(R"({"name": "x", "pe_array": {"height": 2}, )" + timing + R"("levels": []})"),
            "h.json: pe_array.width: missing (PE columns: the W spatial slot's limit (eq. 19), PEs)");
  EXPECT_NE(error("{\"name\": \"x\", \"name\": \"y\"}").find("duplicate key"), std::string::npos);
}

TEST(ConvMap, MappingJsonRoundTripsAndDimsAreParsed) {
  const auto h = tinyHierarchy();
  const auto m = handMapping(h);
  EXPECT_EQ(parseMappingJson(mappingJson(h, m), h, "m.json"), m);
  const auto layer = parseLayerDims("R=3,S=3,P=56,Q=56,C=64,K=128,stride=2", "conv2d");
  EXPECT_EQ(layer.bound, (std::array<std::int64_t, 7>{3, 3, 56, 56, 64, 128, 1}));
  EXPECT_EQ(layer.inputWidth(), 2 * 55 + 2 + 1);
  EXPECT_EQ(parseLayerJson(layerJson(layer), "l.json").bound, layer.bound);
  EXPECT_THROW(parseLayerDims("R=0", "x"), InputError);
  EXPECT_THROW(parseLayerDims("P=1099511627776", "x"), InputError);
  EXPECT_THROW(parseLayerDims("Z=3", "x"), InputError);
  try {
    parseLayerDims("K=2,C", "x");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--dims: 'C' is not name=whole number");
  }
  // A layout that is not a name is refused with its place (fuzz_convmap found nlohmann's type_error here).
  auto bad = mappingJson(h, m);
  bad["layout"]["input"] = 8;
  try {
    parseMappingJson(bad, h, "m.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "m.json: mapping.layout.input: 8 (sequential or row-aligned)");
  }
}

TEST(ConvMap, HeuristicMapperBeatsTheTrivialMappingAndRepeatsWithItsSeed) {
  const auto h = builtinHierarchy("pimopt-default");
  const auto layer = parseLayerDims("R=3,S=3,P=14,Q=14,C=32,K=32", "conv");
  MapOptions o;
  o.maxEvaluations = 20000;
  o.timeLimitSeconds = 60;
  const auto mapper = makeMapper("heuristic");
  const auto a = mapper->solve(layer, h, o, nullptr);
  const auto b = mapper->solve(layer, h, o, nullptr);
  const auto trivial = evaluate(layer, h, trivialMapping(layer, h));
  EXPECT_TRUE(violations(layer, h, a.mapping).empty());
  EXPECT_LT(a.cost.latencyCycles * 10, trivial.latencyCycles);
  EXPECT_EQ(a.mapping, b.mapping);
  // Its gap is to the analytic bound; meeting the bound proves it optimal (this layer is DRAM-bound there).
  ASSERT_TRUE(a.gap.has_value());
  EXPECT_EQ(a.boundSource, "analytic lower bound");
  EXPECT_EQ(a.status, *a.gap == 0 ? "optimal" : "feasible");
  EXPECT_THROW(makeMapper("gurobi"), InputError);
}

/// The model against the trace simulator on mappings reached by a random walk of valid moves (layouts,
/// bypass and the input's block included): docs/convmap.md "Validation so far".
void expectModelEqualsTrace(std::string_view dims, std::string_view hierarchy, std::uint64_t seed) {
  const auto h = builtinHierarchy(hierarchy);
  const auto layer = parseLayerDims(dims, "walk");
  std::mt19937_64 rng(seed);
  ConvMapping m = trivialMapping(layer, h);
  int checked = 0;
  for (int i = 0; i < 20000 && checked < 40; ++i) {
    ConvMapping next = m;
    if (!randomMove(layer, h, next, rng) || !violations(layer, h, next).empty()) continue;
    m = next;
    if (i % 25) continue;
    ++checked;
    const auto c = checkAgainstTrace(layer, h, m);
    EXPECT_EQ(c.model, c.trace) << dims << " on " << hierarchy << ": " << mappingJson(h, m).dump();
  }
  EXPECT_EQ(checked, 40);
}

TEST(ConvMap, ModelRowActivationsEqualTheTraceOnRandomMappings) {
  expectModelEqualsTrace("R=3,S=3,P=28,Q=28,C=16,K=32", "pimopt-default", 1);
  expectModelEqualsTrace("R=1,S=1,P=14,Q=14,C=64,K=32,stride=2", "pimopt-small", 2);
  expectModelEqualsTrace("C=512,K=250,N=2", "pimopt-doc", 3);
  expectModelEqualsTrace("R=5,S=3,P=12,Q=10,C=6,K=8,stride_w=2,dilation_h=2", "pimopt-small", 4);
  expectModelEqualsTrace("C=512,K=256,bytes=2", "hbm2-pim", 5);
  expectModelEqualsTrace("R=3,S=3,P=14,Q=14,C=32,K=32,bytes=2", "hbm-pim", 6);
}

TEST(ConvMap, ExhaustiveIsOptimalAgainstTheHeuristicAndRandomMappings) {
  auto h = tinyHierarchy();
  h.levels[1].bypassFixed = true;  // a space of about 10^5 mappings: the GB keeps every tensor
  auto layer = layerKCP();
  layer.bound[P] = 2;
  layer.bound[K] = 2;
  for (auto objective : {Objective::Latency, Objective::Energy}) {
    MapOptions o;
    o.objective.kind = objective;
    o.maxEvaluations = 20000;
    const auto best = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
    EXPECT_EQ(best.status, "optimal");
    EXPECT_EQ(best.gap, 0.0);
    EXPECT_EQ(best.objective, objectiveValue(o.objective, evaluate(layer, h, best.mapping)));
    EXPECT_LE(best.objective, makeMapper("heuristic")->solve(layer, h, o, nullptr).objective);
    // No mapping a random walk reaches (layouts included) beats it.
    std::mt19937_64 rng(11);
    ConvMapping m = trivialMapping(layer, h);
    for (int i = 0; i < 5000; ++i) {
      ConvMapping next = m;
      if (!randomMove(layer, h, next, rng) || !violations(layer, h, next).empty()) continue;
      m = next;
      EXPECT_GE(objectiveValue(o.objective, evaluate(layer, h, m)), best.objective);
    }
    const auto viaAuto = makeMapper("auto")->solve(layer, h, o, nullptr);
    EXPECT_EQ(viaAuto.mapper, "auto (exhaustive)");
    EXPECT_EQ(viaAuto.objective, best.objective);
  }
  EXPECT_FALSE(exhaustiveFits(layer, h, 1000.0));
}

TEST(ConvMap, TheExhaustiveFrontHoldsBothOptimaAndNoMappingDominatesIt) {
  auto h = tinyHierarchy();
  h.levels[1].bypassFixed = true;
  auto layer = layerKCP();
  layer.bound[P] = 2;
  layer.bound[K] = 2;
  MapOptions o;
  o.collectFront = true;
  const auto walk = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
  const auto front = walk.front.points();
  ASSERT_FALSE(front.empty());
  EXPECT_EQ(front.front().latencyCycles, walk.cost.latencyCycles);  // the latency optimum is on it
  o.objective.kind = Objective::Energy;
  const auto energy = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
  EXPECT_TRUE(std::any_of(front.begin(), front.end(),
                          [&](const FrontPoint& p) { return p.energyPj == energy.cost.energyPj; }));
  for (std::size_t i = 0; i < front.size(); ++i)
    for (std::size_t j = 0; j < front.size(); ++j) EXPECT_FALSE(front[i].dominates(front[j]));
  for (const auto& m : randomValidMappings(layer, h, 200, 5)) {
    const auto c = evaluate(layer, h, m);
    const FrontPoint p{c.latencyCycles, c.energyPj, c.rowActs.total(), m};
    for (const auto& q : front) EXPECT_FALSE(p.dominates(q));
  }
}

TEST(ConvMap, ExhaustiveRefusesASpaceTooLargeByItsSize) {
  const auto layer = parseLayerDims("R=3,S=3,P=56,Q=56,C=64,K=64", "big");
  try {
    makeMapper("exhaustive")->solve(layer, builtinHierarchy("pimopt-default"), {}, nullptr);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has more than 10^9 choices of factors to walk on pimopt-default"),
              std::string::npos)
        << e.what();
  }
}

/// The numbers a mapping's cost reports, for comparing two mappings' costs.
auto costFigures(const ConvCost& c) {
  std::vector<std::int64_t> v = {c.latencyCycles, c.rowActs.count[0], c.rowActs.count[1], c.rowActs.count[2]};
  for (const auto& l : c.levels)
    for (int t = 0; t < kTensors; ++t)
      v.insert(v.end(), {l.fills[t], l.bytesRead[t], l.bytesWritten[t], l.operandRead[t], l.cycles});
  return std::make_pair(v, c.energyPj);
}

// The exhaustive walk's second equivalence (exhaustive_mapper.cpp): where orderSetsOnlyReuse holds, every
// order of a level costs what the first order of its reuse class costs, in every figure; where it does not
// (DRAM, or a level above a tensor's DRAM child), some orders of one class cost differently.
TEST(ConvMap, OrdersOfOneReuseClassCostTheSameWhereTheModelReadsOnlyTheirReuse) {
  auto bypassing = tinyHierarchy();  // its global buffer may be bypassed: levels above a DRAM child
  int same = 0, classesDiffer = 0, unreadDiffers = 0;
  for (const auto& h : {builtinHierarchy("pimopt-default"), builtinHierarchy("hbm2-pim"),
                        builtinHierarchy("pimopt-small"), bypassing})
    for (const auto& dims :
         {"R=3,S=3,P=4,Q=4,C=8,K=8", "R=3,S=3,P=4,Q=4,C=4,K=8,stride=2", "C=32,K=16,N=4"}) {
      const auto layer = parseLayerDims(dims, "l");
      for (const auto& m : randomValidMappings(layer, h, 150, 7))
        for (int lv = 1; lv < static_cast<int>(m.levels.size()); ++lv) {
          if (m.levels[lv].order.size() < 2) continue;
          const bool reuseOnly = orderSetsOnlyReuse(m, lv);
          std::map<int, decltype(costFigures(ConvCost{}))> byClass;
          std::vector<int> order = m.levels[lv].order;
          std::sort(order.begin(), order.end());
          do {
            ConvMapping p = m;
            p.levels[lv].order = order;
            const auto figures = costFigures(evaluate(layer, h, p));
            const auto [it, first] = byClass.emplace(reuseClass(order), figures);
            if (first) continue;
            if (reuseOnly) {
              EXPECT_EQ(it->second, figures)
                  << h.name << " " << dims << " level " << lv << ": " << mappingLabel(h, p);
              ++same;
            } else {
              unreadDiffers += it->second != figures;
            }
          } while (std::next_permutation(order.begin(), order.end()));
          if (reuseOnly)
            for (const auto& [c, f] : byClass) classesDiffer += f != byClass.begin()->second;
        }
    }
  EXPECT_GT(same, 1000);
  EXPECT_GT(classesDiffer, 10);                                               // the classes themselves matter
  EXPECT_GT(unreadDiffers, 10);                                               // and the condition does
  EXPECT_EQ(ordersOfDistinctReuse({R, S, P, Q, C, K}).size(), 1u + 3u + 7u);  // K; P, Q; C, R, S spared
}

TEST(ConvMap, OperandsServedByASharedLevelAreMulticastAcrossTheArray) {
  // The PE buffers bypass the weight: the GB serves every MAC's weight, once for the PEs of the W slot that
  // unrolls P (irrelevant to the weight).
  const auto h = tinyHierarchy();
  auto m = handMapping(h);
  m.levels[0].keep[Weight] = false;
  const auto c = evaluate(layerKCP(), h, m);
  EXPECT_EQ(c.levels[1].operandRead[Weight], 64 / 2);
  EXPECT_EQ(c.levels[0].operandRead[Weight], 0);
}

}  // namespace
}  // namespace pim::convmap
