// SPDX-License-Identifier: Apache-2.0
// The exhaustive walk's bounds (engine/convmap/mapping_bound, exhaustive_mapper.cpp): the walk that passes
// over what they show cannot matter ends where the walk that evaluates every mapping ends, under every
// objective, under latency bounds, and on the Pareto front; each bound is below every mapping it covers; and
// the spec's K = C = 8, P = Q = 4, R = S = 3 layer, which the plain walk cannot finish, is walked whole and
// its energy optimum is the MILP's.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <set>
#include <tuple>

#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapping_bound.h"
#include "engine/convmap/mapping_io.h"
#include "engine/convmap/mapspace.h"
#include "engine/milp/milp.h"
#include "tests/convmap_fixtures.h"

namespace pim::convmap {
namespace {

/// Small layers on hierarchies of every kind of keep (free, fixed, a level that cannot keep a tensor), short
/// DRAM rows and a derived one, each walked whole without the bounds in well under a second or two.
std::vector<std::pair<Hierarchy, const char*>> smallCases() {
  auto fixedGb = test::tinyHierarchy();
  fixedGb.levels[1].bypassFixed = true;
  auto noPeOutput = test::tinyHierarchy();
  noPeOutput.levels[0].stores = {true, true, false};
  auto noGbWeight = test::tinyHierarchy();
  noGbWeight.levels[1].stores = {true, false, true};
  const auto tiny = test::tinyHierarchy(), rows = test::shortRowsHierarchy();
  const auto hbm2 = builtinHierarchy("hbm2-pim");
  const char* strided = "R=3,P=4,C=2,K=2,stride=2";
  return {{tiny, "R=3,P=4,C=2,K=4"},    {tiny, "C=16,K=8,N=2"}, {tiny, strided},
          {fixedGb, "P=4,Q=2,C=4,K=4"}, {fixedGb, strided},     {noPeOutput, "R=3,P=4,C=2,K=4"},
          {noPeOutput, "C=16,K=8,N=2"}, {noGbWeight, strided},  {noGbWeight, "R=3,P=4,C=2,K=4"},
          {rows, "C=16,K=8,N=2"},       {rows, strided},        {hbm2, strided},
          {hbm2, "R=3,P=4,C=2,K=4"}};
}

MapResult walk(const ConvLayer& layer, const Hierarchy& h, MapOptions o, bool prune) {
  o.pruneByBounds = prune;
  o.timeLimitSeconds = 600;
  return makeMapper("exhaustive")->solve(layer, h, o, nullptr);
}

std::set<std::tuple<std::int64_t, double, std::int64_t>> costsOf(const ParetoFront& f) {
  std::set<std::tuple<std::int64_t, double, std::int64_t>> out;
  for (const auto& p : f.points()) out.insert({p.latencyCycles, p.energyPj, p.rowActivations});
  return out;
}

/// The least objective over a front's points within a latency bound: every objective is non-decreasing in
/// latency and energy, so a mapping off the front is never better than the point that dominates it.
double leastOnFront(const ParetoFront& f, const MapOptions& o) {
  double least = std::numeric_limits<double>::infinity();
  for (const auto& p : f.points()) {
    if (o.maxLatencyCycles && p.latencyCycles > *o.maxLatencyCycles) continue;
    ConvCost c;
    c.latencyCycles = p.latencyCycles;
    c.energyPj = p.energyPj;
    least = std::min(least, objectiveValue(o.objective, c));
  }
  return least;
}

// The plain walk's front (every mapping evaluated) holds every objective's optimum, also within a latency
// bound; the walk with bounds meets each, and its own front has the same costs.
TEST(ConvMapExhaustive, TheBoundsPassOverNothingThatMatters) {
  std::int64_t walked = 0, passedOver = 0;  // mappings the plain walks evaluate, and those the bounds spare
  for (const auto& [h, dims] : smallCases()) {
    const auto layer = parseLayerDims(dims, "small");
    const std::string where = std::string(dims) + " on " + h.name;
    MapOptions all;
    all.collectFront = true;
    const auto plain = walk(layer, h, all, false);
    ASSERT_EQ(plain.status, "optimal") << where;
    const auto pruned = walk(layer, h, all, true);
    EXPECT_EQ(costsOf(pruned.front), costsOf(plain.front)) << where;
    EXPECT_LE(pruned.evaluated, plain.evaluated) << where;
    walked += plain.evaluated;
    passedOver += plain.evaluated - pruned.evaluated;
    const auto points = plain.front.points();
    const auto fastest = points.front().latencyCycles, slowest = points.back().latencyCycles;
    std::vector<MapOptions> goals;
    for (auto kind : {Objective::Latency, Objective::Energy, Objective::Blended}) {
      goals.emplace_back();
      goals.back().objective = normalised({kind}, layer, h);
    }
    for (int i = 0; i < 3; ++i) {  // energy within latency bounds between the fastest and the cheapest
      goals.emplace_back();
      goals.back().objective = {Objective::Energy};
      goals.back().maxLatencyCycles = fastest + (slowest - fastest) * i / 3;
    }
    for (const auto& o : goals) {
      const auto r = walk(layer, h, o, true);
      const auto what =
          where + " under " + std::string(objectiveName(o.objective.kind)) +
          (o.maxLatencyCycles ? " within " + std::to_string(*o.maxLatencyCycles) + " cycles" : "");
      EXPECT_EQ(r.status, "optimal") << what;
      const double least = leastOnFront(plain.front, o);
      EXPECT_NEAR(r.objective, least, 1e-9 * least) << what;
      EXPECT_EQ(r.objective, objectiveValue(o.objective, evaluate(layer, h, r.mapping))) << what;
    }
  }
  EXPECT_GT(passedOver, walked * 9 / 10);  // the fronts' own walks evaluate under a tenth
}

// Each bound is below every mapping it covers: the factors' over their keeps, the keeps' over their orders,
// the orders' over their layouts (random valid mappings, each with the layouts of fewest activations).
TEST(ConvMapExhaustive, EachBoundIsBelowTheMappingsItCovers) {
  for (const auto& [dims, hierarchy] : std::vector<std::pair<const char*, const char*>>{
           {"R=3,S=3,P=14,Q=14,C=16,K=32", "pimopt-default"},
           {"R=1,S=1,P=7,Q=7,C=32,K=64,stride=2", "pimopt-small"},
           {"C=64,K=32,N=4", "pimopt-doc"},
           {"R=3,S=3,P=8,Q=8,C=16,K=16,bytes=2", "hbm-pim"},
           {"R=3,S=3,P=4,Q=4,C=8,K=8,bytes=2", "hbm2-pim"}}) {
    const auto h = builtinHierarchy(hierarchy);
    const auto layer = parseLayerDims(dims, "bounded");
    MappingBound bound(layer, h);
    int checked = 0;
    for (auto m : randomValidMappings(layer, h, 60, 7)) {
      chooseFewestActivationLayouts(layer, h, m);
      const auto c = evaluate(layer, h, m);
      const std::string where = std::string(dims) + " on " + hierarchy + ": " + mappingLabel(h, m);
      EXPECT_TRUE(bound.mayFit(m)) << where;
      for (const auto& b : {bound.ofFactors(m), bound.ofKeeps(m), bound.ofOrders(m)}) {
        EXPECT_LE(b.latencyCycles, c.latencyCycles) << where;
        EXPECT_LE(b.energyPj, c.energyPj * (1 + 1e-12)) << where;
      }
      EXPECT_NEAR(bound.ofOrders(m).energyPj, c.energyPj, 1e-9 * c.energyPj) << where;  // energy has no rows
      EXPECT_LE(bound.leastRowActivations(), c.rowActs.total()) << where;
      ++checked;
    }
    EXPECT_GT(checked, 30) << dims;
  }
}

// The spec's small layer (K = C = 8, P = Q = 4, R = S = 3): the walk without bounds refuses it (over 5 * 10^6
// mappings), the walk with them proves each objective's optimum. Under energy the MILP alone, from the
// trivial mapping, meets it on every solver; under latency and the blend, where the MILP is a relaxation,
// `ilp` (CBC) claims no more than the walk proves.
TEST(ConvMapExhaustive, TheSpecsSmallLayerIsWalkedWholeAndTheMilpMeetsItsOptimum) {
  for (const char* hierarchy : {"hbm2-pim", "pimopt-small"}) {
    const auto h = builtinHierarchy(hierarchy);
    const auto layer =
        parseLayerDims("R=3,S=3,P=4,Q=4,C=8,K=8,bytes=" + std::to_string(h.elementBytes), "spec");
    EXPECT_THROW(walk(layer, h, {}, false), InputError);
    for (auto kind : {Objective::Latency, Objective::Energy, Objective::Blended}) {
      MapOptions o;
      o.objective = normalised({kind}, layer, h);
      const auto exact = walk(layer, h, o, true);
      const std::string where = std::string(hierarchy) + " under " + std::string(objectiveName(kind));
      ASSERT_EQ(exact.status, "optimal") << where;
      ASSERT_TRUE(exact.bound);
      EXPECT_EQ(*exact.bound, exact.objective) << where;
      o.timeLimitSeconds = 600;
      if (kind == Objective::Energy) o.start = trivialMapping(layer, h);  // the MILP alone
      auto solvers = milp::solverNames();  // under latency and the blend one suffices: it claims no optimum
      if (kind != Objective::Energy) solvers.resize(1);
      for (const std::string& solver : solvers) {
        o.solver = solver;
        const auto ilp = makeMapper("ilp")->solve(layer, h, o, nullptr);
        const auto with = where + " with " + solver;
        EXPECT_TRUE(violations(layer, h, ilp.mapping).empty()) << with;
        EXPECT_GE(ilp.objective, exact.objective * (1 - 1e-9)) << with;
        ASSERT_TRUE(ilp.bound) << with;
        EXPECT_LE(*ilp.bound, exact.objective * (1 + 1e-9)) << with;
        if (kind == Objective::Energy) {
          EXPECT_EQ(ilp.status, "optimal") << with;
        }
        if (ilp.status == "optimal") {
          EXPECT_NEAR(ilp.objective, exact.objective, 1e-9 * exact.objective) << with;
        }
      }
    }
  }
}

// A walk cancelled part way has walked every array use of lower bound than the one it was in: it proves the
// lesser of its incumbent and that use's bound, never above the optimum the whole walk proves and never
// below the analytic bound. Cancelled after a fixed number of progress reports (one per 1,024 steps: the
// same on every machine), with and without the bounds (without them every array use is walked whole, so
// the walk gets past the first).
TEST(ConvMapExhaustive, AWalkStoppedPartWayIsBoundedByTheArrayUseItWasIn) {
  int walkedPastTheAnalyticBound = 0;
  for (const auto& [h, dims] : smallCases()) {
    const auto layer = parseLayerDims(dims, "small");
    for (auto kind : {Objective::Latency, Objective::Energy, Objective::Blended}) {
      MapOptions o;
      o.objective = normalised({kind}, layer, h);
      const auto whole = walk(layer, h, o, true);
      const double analytic = objectiveLowerBound(layer, h, o.objective);
      if (analytic >= whole.objective * (1 - 1e-9)) continue;  // the analytic bound proves it: nothing to see
      const std::string where =
          std::string(dims) + " on " + h.name + " under " + std::string(objectiveName(kind));
      for (bool prune : {false, true})
        for (int reports : {4, 64}) {
          std::atomic<bool> cancel{false};
          o.cancel = &cancel;
          o.pruneByBounds = prune;
          int seen = 0;
          const auto part = makeMapper("exhaustive")->solve(layer, h, o, [&](const MapProgress&) {
            if (++seen == reports) cancel = true;
          });
          if (!cancel) continue;  // the walk ended before that many reports
          ASSERT_TRUE(part.bound) << where;
          EXPECT_GE(*part.bound, analytic) << where;
          EXPECT_LE(*part.bound, whole.objective * (1 + 1e-12)) << where << ", " << part.boundSource;
          EXPECT_GE(part.objective, whole.objective * (1 - 1e-12)) << where;
          if (*part.bound > analytic) {
            ++walkedPastTheAnalyticBound;
            EXPECT_NE(part.boundSource.find("array uses of least bound"), std::string::npos)
                << part.boundSource;
          }
        }
    }
  }
  EXPECT_GT(walkedPastTheAnalyticBound, 0);
}

}  // namespace
}  // namespace pim::convmap
