// SPDX-License-Identifier: Apache-2.0
// The MILP (engine/convmap/mapping_milp) and the `ilp` mapper: with a valid mapping's factors, orders and
// keeps fixed the MILP's optimum is the evaluator's energy, and under latency the evaluator's latency with
// its two relaxed terms (random mappings of several layers on every kind of hierarchy); its energy optimum
// equals the exhaustive walk's on small layers of two hierarchies, and under latency and the blend it never
// claims more than the walk proves; what it refuses. The optimum is checked on every registered solver.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine/convmap/mapper.h"
#include "engine/convmap/mapping_io.h"
#include "engine/convmap/mapping_milp.h"
#include "engine/convmap/mapspace.h"
#include "tests/convmap_fixtures.h"

namespace pim::convmap {
namespace {

using test::tinyHierarchy;

double fixedObjective(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m,
                      const MilpGoal& goal = {}) {
  auto e = buildMappingMilp(layer, h, goal);
  for (const auto& [var, value] : mappingValues(e, m))
    e.model.variables[var].lower = e.model.variables[var].upper = value;
  milp::SolveOptions o;
  o.timeLimitSeconds = 60;
  const auto s = milp::makeSolver("cbc")->solve(e.model, o);
  EXPECT_EQ(s.status, milp::SolveStatus::Optimal) << mappingLabel(h, m);
  const auto back = decodeMapping(e, s.values);
  for (std::size_t lv = 0; lv < m.levels.size(); ++lv) {  // level 0's order is not the model's
    EXPECT_EQ(back.levels[lv].factor, m.levels[lv].factor) << "decoding changed " << mappingLabel(h, m);
    EXPECT_EQ(back.levels[lv].keep, m.levels[lv].keep) << "decoding changed " << mappingLabel(h, m);
    if (lv > 0) {
      EXPECT_EQ(back.levels[lv].order, m.levels[lv].order) << "decoding changed " << mappingLabel(h, m);
    }
  }
  return s.objective;
}

struct FixedCase {
  const char* dims;
  Hierarchy h;
};

std::vector<FixedCase> fixedCases() {
  auto bypass = tinyHierarchy();
  bypass.levels[1].stores = {true, false, true};  // the global buffer cannot keep the weight
  auto noPeOutput = tinyHierarchy();
  noPeOutput.levels[0].stores = {true, true, false};  // partial sums go straight to the global buffer
  noPeOutput.levels[1].bypassFixed = true;
  return {
      {"R=3,S=3,P=4,Q=4,C=4,K=4", tinyHierarchy()},
      {"R=3,P=6,C=2,K=6,stride=2", bypass},
      {"R=3,S=3,P=4,Q=4,C=4,K=8", noPeOutput},
      {"R=3,S=3,P=14,Q=14,C=16,K=32", builtinHierarchy("pimopt-default")},
      {"R=1,S=1,P=7,Q=7,C=32,K=64,stride=2", builtinHierarchy("pimopt-small")},
      {"C=64,K=32,N=4", builtinHierarchy("pimopt-doc")},
      {"R=3,S=3,P=8,Q=8,C=16,K=16,dilation=2", builtinHierarchy("hbm-pim")},
  };
}

TEST(ConvMapMilp, AFixedMappingCostsWhatTheEvaluatorSays) {
  for (const auto& c : fixedCases()) {
    const auto layer = parseLayerDims(c.dims, "exact");
    const auto mappings = randomValidMappings(layer, c.h, 12, 7);
    ASSERT_GE(mappings.size(), 6u) << c.dims;
    for (const auto& m : mappings) {
      const double expected = evaluate(layer, c.h, m).energyPj;
      EXPECT_NEAR(fixedObjective(layer, c.h, m), expected, 1e-9 * expected)
          << c.dims << " on " << c.h.name << ": " << mappingLabel(c.h, m);
    }
  }
}

/// The evaluator's latency with its two relaxed terms (milp_costs.h), from the evaluator's own counts: each
/// tensor's DRAM activations = the rows its touched bytes occupy; the PE buffers' fills over the whole array.
std::int64_t relaxedLatency(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m) {
  const auto c = evaluate(layer, h, m);
  auto ceilDiv = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  const auto pes = spatialProduct(m, SlotH) * spatialProduct(m, SlotW);
  const auto array = h.pe.height * h.pe.width;
  std::int64_t latency = c.computeCycles;
  for (int lv = 0; lv <= h.dramLevel(); ++lv) {
    const auto& l = c.levels[lv];
    const auto& d = h.levels[lv];
    for (int t = 0; t < kTensors; ++t) {
      std::int64_t cycles = 0;
      if (lv == h.dramLevel()) {
        const auto rows = ceilDiv(layer.touchedElements(t) * layer.elementBytes[t], d.rowBytes);
        cycles = ceilDiv(l.bytesRead[t], d.readBandwidth) + ceilDiv(l.bytesWritten[t], d.writeBandwidth) +
                 rows * h.timing.activationCycles();
      } else if (lv == 0) {  // a PE's operands, plus the fills spread over the array: (a + b / array) / bw
        cycles = std::max(
            ceilDiv(l.operandRead[t] / pes * array + l.bytesRead[t], array * d.readBandwidth),
            ceilDiv(l.operandWritten[t] / pes * array + l.bytesWritten[t], array * d.writeBandwidth));
      } else {
        cycles = std::max(ceilDiv(l.operandRead[t] + l.bytesRead[t], d.readBandwidth),
                          ceilDiv(l.operandWritten[t] + l.bytesWritten[t], d.writeBandwidth));
      }
      latency = std::max(latency, cycles);
    }
  }
  EXPECT_LE(latency, c.latencyCycles) << "the relaxation exceeds the evaluator: " << mappingLabel(h, m);
  return latency;
}

// The latency rows are exact but for the two documented lower bounds: a fixed mapping's optimum is the
// evaluator's latency with those two terms relaxed, to the cycle, and so never above the evaluator's.
TEST(ConvMapMilp, UnderLatencyAFixedMappingCostsTheEvaluatorsLatencyWithTwoTermsRelaxed) {
  for (const auto& c : fixedCases()) {
    const auto layer = parseLayerDims(c.dims, "relaxed");
    for (const auto& m : randomValidMappings(layer, c.h, 8, 11))
      EXPECT_EQ(fixedObjective(layer, c.h, m, {{Objective::Latency}, std::nullopt}),
                double(relaxedLatency(layer, c.h, m)))
          << c.dims << " on " << c.h.name << ": " << mappingLabel(c.h, m);
  }
}

TEST(ConvMapMilp, IlpMatchesTheExhaustiveOptimumOnSmallLayers) {
  auto bypassFree = tinyHierarchy();
  bypassFree.levels[1].stores = {true, true, true};
  for (const auto& h : {tinyHierarchy(), builtinHierarchy("hbm2-pim")})
    for (const char* dims :
         {"R=3,P=4,C=2,K=4", "P=4,Q=2,C=4,K=4", "C=16,K=8,N=2", "R=3,P=4,C=2,K=2,stride=2"}) {
      const auto layer = parseLayerDims(dims, "small");
      MapOptions o;
      o.objective = {Objective::Energy};
      o.timeLimitSeconds = 600;
      const auto walk = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
      ASSERT_EQ(walk.status, "optimal") << dims;
      o.start = trivialMapping(layer, h);  // the MILP alone, not the heuristic's mapping first
      for (const std::string& solver : milp::solverNames()) {
        o.solver = solver;
        const auto ilp = makeMapper("ilp")->solve(layer, h, o, nullptr);
        const std::string where = std::string(dims) + " on " + h.name + " with " + solver;
        EXPECT_EQ(ilp.mapper, "ilp (" + solver + ")");
        EXPECT_EQ(ilp.status, "optimal") << where;
        EXPECT_NEAR(ilp.objective, walk.objective, 1e-9 * walk.objective) << where;
        EXPECT_TRUE(violations(layer, h, ilp.mapping).empty()) << where;
      }
    }
}

// Under latency and the blend the MILP is a relaxation: the `ilp` result is a valid mapping no better than
// the walk's optimum, its bound no higher, "optimal" only where it meets the optimum, and no incumbent it
// reports below the optimum (the solver's relaxed objectives are not mappings' costs).
TEST(ConvMapMilp, IlpUnderLatencyAndTheBlendClaimsNoMoreThanTheWalkProves) {
  // Short DRAM rows and slow activations, where the relaxation's row count falls short of the evaluator's.
  const auto rows = test::shortRowsHierarchy();
  for (const auto& h :
       {tinyHierarchy(), rows})  // where the relaxation meets the optimum, and where it does not
    for (const char* dims : {"R=3,P=4,C=2,K=4", "C=16,K=8,N=2", "R=3,P=4,C=2,K=2,stride=2"})
      for (auto kind : {Objective::Latency, Objective::Blended}) {
        const auto layer = parseLayerDims(dims, "relaxed");
        MapOptions o;
        o.objective = normalised({kind}, layer, h);
        o.timeLimitSeconds = 600;
        const auto walk = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
        ASSERT_EQ(walk.status, "optimal") << dims;
        // The MILP alone from the trivial mapping (`ilp` runs the heuristic first, which proves these).
        MapResult trivial;
        trivial.mapping = trivialMapping(layer, h);
        trivial.cost = evaluate(layer, h, trivial.mapping);
        trivial.objective = objectiveValue(o.objective, trivial.cost);
        trivial.status = "feasible";
        for (const std::string& solver : milp::solverNames()) {
          o.solver = solver;
          double leastReported = 1e300;  // an incumbent is a real mapping's objective, never the relaxation's
          const auto ilp = refineWithMilp(trivial, layer, h, o, 600, [&](const MapProgress& p) {
            if (p.incumbent) leastReported = std::min(leastReported, *p.incumbent);
          });
          const std::string where = std::string(dims) + " on " + h.name + " under " +
                                    std::string(objectiveName(kind)) + " with " + solver;
          EXPECT_TRUE(violations(layer, h, ilp.mapping).empty()) << where;
          EXPECT_EQ(ilp.objective, objectiveValue(o.objective, evaluate(layer, h, ilp.mapping))) << where;
          EXPECT_GE(ilp.objective, walk.objective * (1 - 1e-9)) << where;
          ASSERT_TRUE(ilp.bound) << where;
          EXPECT_LE(*ilp.bound, walk.objective * (1 + 1e-9)) << where;
          EXPECT_GE(leastReported, walk.objective * (1 - 1e-9)) << where;
          if (ilp.status == "optimal") {
            EXPECT_NEAR(ilp.objective, walk.objective, 1e-9 * walk.objective) << where;
          }
        }
      }
}

TEST(ConvMapMilp, IlpRefusesWhatItDoesNotModel) {
  const auto layer = parseLayerDims("P=4,C=4,K=4", "refused");
  MapOptions o;
  o.collectFront = true;
  EXPECT_THROW(makeMapper("ilp")->solve(layer, tinyHierarchy(), o, nullptr), InputError);
  o.collectFront = false;
  o.solver = "gurobi";
  EXPECT_THROW(makeMapper("ilp")->solve(layer, tinyHierarchy(), o, nullptr), InputError);
}

// Every stage of `ilp` reports what a person watching the solve needs: the heuristic its incumbent and the
// analytic bound, the MILP its nodes and bound; the time runs on across stages, the incumbent never rises
// and the bound never exceeds it.
// A large model is cancellable while it loads and while its root LP runs, on every solver: ResNet-18's first
// 3 x 3 layer (56 x 56, 64 -> 64 channels: 37,670 columns, 20,155 rows) took CBC 2.1 s to load row by row,
// and neither CBC's nor GLPK's root LP heard a cancel (3.7 s and 2.2 s after one at 0.05 s; now about 20 and
// 60 ms). CBC's preprocessing is still deaf (up to 2.4 s on this model), so solve() leaves it behind when it
// has found nothing better than the start (docs/convmap.md).
TEST(ConvMapMilp, CancelDuringALargeModelsRootReturnsPromptly) {
  const auto layer = parseLayerDims("R=3,S=3,P=56,Q=56,C=64,K=64", "stage1");
  const auto milp = buildMappingMilp(layer, builtinHierarchy("pimopt-default"));
  ASSERT_GT(milp.model.variables.size(), 30000u);
  for (const std::string& solver : milp::solverNames()) {
    for (const double after : {0.05, 0.3, 1.0, 1.6}) {
      std::atomic<bool> cancel{false};
      std::chrono::steady_clock::time_point setAt;
      std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::duration<double>(after));
        setAt = std::chrono::steady_clock::now();
        cancel = true;
      });
      milp::SolveOptions o;
      o.timeLimitSeconds = 60;
      o.cancel = &cancel;
      const auto r = milp::makeSolver(solver)->solve(milp.model, o);
      const auto returned = std::chrono::steady_clock::now();
      canceller.join();
      EXPECT_EQ(r.stop, milp::StopReason::Cancelled) << solver << " " << after;
      // The target is 100 ms; a loaded 2-core machine gets slack. Not in the sanitize pass: ASan slows
      // CBC's preprocessing past this bound (1.01 s on CI's machine), which says nothing of the solver.
      EXPECT_LT(std::chrono::duration<double>(returned - setAt).count(), 1.0) << solver << " " << after;
    }
  }
}

// A layer's energy MILP on pimopt-default, started from the trivial mapping (a partial start: CBC completes
// it), with that mapping's energy.
namespace {
struct StartedMilp {
  MappingMilp milp;
  double startEnergy;
};
StartedMilp fromTheTrivialMapping(const std::string& dims, const std::string& name) {
  const auto layer = parseLayerDims(dims, name);
  const auto h = builtinHierarchy("pimopt-default");
  StartedMilp s{buildMappingMilp(layer, h), 0};
  const auto start = trivialMapping(layer, h);
  s.milp.model.start = mappingValues(s.milp, start);
  s.startEnergy = evaluate(layer, h, start).energyPj;
  return s;
}
}  // namespace

// A cancel keeps what the search found: CBC's LPs after a stop (its post-processing of the incumbent) were
// stopped too, and a cancel at 2.5 s on this FC layer returned no solution where CBC had 709,500 pJ. The
// start here is partial (CBC completes it, then improves on it in its root): a cancel at the first
// improvement once lost it as well (its comparison with an infinite start value was NaN).
TEST(ConvMapMilp, CancelAfterTheSearchImprovedOnTheStartKeepsItsIncumbent) {
  auto [milp, startEnergy] = fromTheTrivialMapping("C=512,K=1000", "fc");
  for (const std::string& solver : milp::solverNames()) {
    std::atomic<bool> cancel{false};
    double seen = milp::kInf;
    milp::SolveOptions o;
    o.timeLimitSeconds = 60;
    o.cancel = &cancel;
    o.onProgress = [&](const milp::SolveProgress& p) {
      if (!cancel && p.nodes > 0 && p.incumbent && *p.incumbent < startEnergy * (1 - 1e-9)) {
        seen = *p.incumbent;
        cancel = true;
      }
    };
    const auto r = milp::makeSolver(solver)->solve(milp.model, o);
    if (r.stop != milp::StopReason::Cancelled) {
      EXPECT_EQ(r.status, milp::SolveStatus::Optimal) << solver;  // solved before any report improved on it
      continue;
    }
    ASSERT_LT(seen, milp::kInf) << solver;
    EXPECT_EQ(r.status, milp::SolveStatus::Feasible) << solver;
    EXPECT_LE(r.objective, seen * (1 + 1e-9)) << solver;
  }
}

// A time limit that falls in the root's LPs stops the search there (CBC's own limit is checked only between
// nodes: it ran 2 s past a short limit on a ResNet-18 3 x 3 layer), says it was the time limit, hands back
// no values of the cut-short LP (before, every factor 1 once, which the evaluator refused) and no bound
// from it.
TEST(ConvMapMilp, ATimeLimitInTheRootStopsThereWithTheStartAndNoFalseBound) {
  auto [milp, startEnergy] = fromTheTrivialMapping("R=3,S=3,P=56,Q=56,C=64,K=64", "stage1");
  const double optimumAtMost = 94'864'280;  // the heuristic's proven optimum at the map defaults (docs)
  for (const std::string& solver : milp::solverNames()) {
    milp::SolveOptions o;
    o.timeLimitSeconds = 0.3;
    const auto began = std::chrono::steady_clock::now();
    const auto r = milp::makeSolver(solver)->solve(milp.model, o);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    EXPECT_EQ(r.stop, milp::StopReason::TimeLimit) << solver;
    EXPECT_LT(took, 5.0) << solver;  // 0.3 s asked; slack for a loaded machine and the sanitizers
    if (r.hasSolution()) {           // the start is partial (the mapping's choices): it may have none yet
      EXPECT_TRUE(milp::evaluate(milp.model, r.values, 1e-4).feasible()) << solver;
      EXPECT_LE(r.objective, startEnergy * (1 + 1e-9)) << solver;
    }
    EXPECT_LE(r.bestBound, optimumAtMost) << solver;
  }
}

TEST(ConvMapMilp, ProgressReportsCarryTheIncumbentTheBoundAndTheNodes) {
  const auto layer = parseLayerDims("C=128,K=64", "fc");
  const auto h = builtinHierarchy("pimopt-default");
  MapOptions o;
  o.objective = {Objective::Energy};
  o.timeLimitSeconds = 30;
  o.maxEvaluations = 50;  // the heuristic stops short of the optimum (given its budget it meets the bound)
  std::vector<MapProgress> reports;
  const auto r = makeMapper("ilp")->solve(layer, h, o, [&](const MapProgress& p) { reports.push_back(p); });
  ASSERT_EQ(r.status, "optimal");
  bool heuristic = false, milp = false;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const MapProgress& p = reports[i];
    heuristic |= p.stage == "heuristic";
    milp |= p.stage == "ilp (cbc)";
    if (p.stage == "ilp (cbc)") {
      EXPECT_TRUE(p.nodes.has_value()) << i;
      EXPECT_EQ(p.evaluated, 0) << i;
    }
    if (p.incumbent && p.bound) {
      EXPECT_LE(*p.bound, *p.incumbent * (1 + 1e-9)) << i;
    }
    if (i == 0) continue;
    EXPECT_GE(p.seconds, reports[i - 1].seconds) << i;
    if (p.incumbent && reports[i - 1].incumbent) {
      EXPECT_LE(*p.incumbent, *reports[i - 1].incumbent * (1 + 1e-9)) << i;
    }
  }
  EXPECT_TRUE(heuristic);
  EXPECT_TRUE(milp);
  ASSERT_FALSE(reports.empty());
  ASSERT_TRUE(reports.back().incumbent && reports.back().bound);
  EXPECT_GE(*reports.back().incumbent, r.objective * (1 - 1e-9));
  EXPECT_LE(*reports.back().bound, r.objective * (1 + 1e-9));
}

TEST(ConvMapProgress, TextReadsFiguresFirst) {
  MapProgress p{0, 0, 46067.58, 1.23, 46021.3, 151, "ilp (cbc)"};
  EXPECT_EQ(progressText({Objective::Energy}, p),
            "ilp (cbc): best 46.0676 nJ, bound 46.0213 nJ, gap 0.1 % · 151 nodes · 1.2 s");
  p = {12000, 9000, 464128, 0.42, 451584, std::nullopt, "heuristic"};
  EXPECT_EQ(progressText({Objective::Latency}, p, 20000),
            "heuristic: best 464,128 cycles, bound 451,584 cycles, gap 2.7 % · 12,000 of 20,000 mappings "
            "evaluated · 0.4 s");
  p = {1024, 0, std::nullopt, 0.05, std::nullopt, std::nullopt, "exhaustive"};
  EXPECT_EQ(progressText({Objective::Blended}, p),
            "exhaustive: no mapping yet · 1,024 mappings evaluated · 0.1 s");
  EXPECT_EQ(objectiveValueText({Objective::Blended}, 0.81234), "0.8123");
}

}  // namespace
}  // namespace pim::convmap
