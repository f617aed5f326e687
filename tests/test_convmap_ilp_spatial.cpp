// SPDX-License-Identifier: Apache-2.0
// `ilp-spatial`, the MILP split by spatial assignment (engine/convmap/ilp_spatial_mapper.cpp): with an
// assignment fixed the MILP's optimum is the best mapping of that assignment; from the trivial mapping the
// split proves the exhaustive walk's optimum under energy and never claims more than the walk proves under
// latency and the blend (relaxations); a cancel or a short time limit leaves a proven bound; what it refuses.
#include <gtest/gtest.h>

#include <atomic>

#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapping_io.h"
#include "engine/convmap/mapping_milp.h"
#include "engine/convmap/mapspace.h"
#include "tests/convmap_fixtures.h"

namespace pim::convmap {
namespace {

using test::tinyHierarchy;

// The energy MILP with the walk optimum's spatial assignment fixed finds that optimum; with any other
// assignment fixed, nothing cheaper; and every assignment's own analytic bound is below its MILP optimum.
TEST(ConvMapIlpSpatial, AFixedAssignmentsMilpOptimumIsItsBestMapping) {
  const auto h = tinyHierarchy();
  const auto layer = parseLayerDims("R=3,P=4,C=2,K=4", "split");
  MapOptions o;
  o.objective = {Objective::Energy};
  o.timeLimitSeconds = 600;
  const auto walk = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
  ASSERT_EQ(walk.status, "optimal");
  bool complete = false;
  const auto all = leastBoundSpatials(layer, h, o.objective, 1000, &complete);
  ASSERT_TRUE(complete);
  ASSERT_GT(all.size(), 3u);
  int optimumsAssignment = 0;
  for (const auto& c : all) {
    auto e = buildMappingMilp(layer, h, {o.objective, {}});
    fixSpatial(e, c.factors);
    milp::SolveOptions so;
    so.timeLimitSeconds = 60;
    const auto s = milp::makeSolver("cbc")->solve(e.model, so);
    ASSERT_EQ(s.status, milp::SolveStatus::Optimal);
    const auto m = decodeMapping(e, s.values);
    EXPECT_EQ(spatialOf(m), c.factors);
    EXPECT_GE(s.objective, walk.objective * (1 - 1e-9));
    EXPECT_LE(c.bound, s.objective * (1 + 1e-9));
    if (spatialOf(walk.mapping) == c.factors) {
      ++optimumsAssignment;
      EXPECT_NEAR(s.objective, walk.objective, 1e-9 * walk.objective);
    }
  }
  EXPECT_EQ(optimumsAssignment, 1);  // the walk's optimum has one of the listed assignments
}

// From the trivial mapping (no heuristic first), on small layers of two hierarchies: the energy optimum
// proven; under latency and the blend a valid mapping no better than the optimum, a bound no higher,
// "optimal" only at the optimum, and no reported incumbent below the optimum.
TEST(ConvMapIlpSpatial, ProvesTheWalksOptimumAndNeverClaimsMore) {
  const auto rows = test::shortRowsHierarchy();  // where the relaxation's row count falls short
  for (const auto& h : {tinyHierarchy(), rows})
    for (const char* dims : {"R=3,P=3,C=2,K=4", "C=8,K=8,N=2", "R=3,P=4,C=2,K=2,stride=2"})
      for (auto kind : {Objective::Energy, Objective::Latency, Objective::Blended}) {
        // On the short rows only what the relaxation changes, on two layers (half the test's time).
        if (h.name == rows.name && (kind == Objective::Energy || std::string(dims) == "C=8,K=8,N=2"))
          continue;
        const auto layer = parseLayerDims(dims, "split");
        MapOptions o;
        o.objective = normalised({kind}, layer, h);
        o.timeLimitSeconds = 600;
        const auto walk = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
        ASSERT_EQ(walk.status, "optimal") << dims;
        // The split from the trivial mapping: under energy it starts there, otherwise after a heuristic
        // held to that one proposal.
        o.start = trivialMapping(layer, h);
        o.maxEvaluations = 1;
        // Where the relaxation leaves a gap, the split excludes mapping after mapping until its time is up.
        o.timeLimitSeconds = 3;
        const std::string where =
            std::string(dims) + " on " + h.name + " under " + std::string(objectiveName(kind));
        double leastReported = 1e300, highestBound = 0;
        const auto r = makeMapper("ilp-spatial")->solve(layer, h, o, [&](const MapProgress& p) {
          if (p.incumbent) leastReported = std::min(leastReported, *p.incumbent);
          if (p.bound) highestBound = std::max(highestBound, *p.bound);
        });
        EXPECT_EQ(r.mapper,
                  kind == Objective::Energy ? "start + ilp-spatial (cbc)" : "heuristic + ilp-spatial (cbc)")
            << where;
        EXPECT_TRUE(violations(layer, h, r.mapping).empty()) << where;
        EXPECT_EQ(r.objective, objectiveValue(o.objective, evaluate(layer, h, r.mapping))) << where;
        EXPECT_GE(r.objective, walk.objective * (1 - 1e-9)) << where;
        ASSERT_TRUE(r.bound) << where;
        EXPECT_LE(*r.bound, walk.objective * (1 + 1e-9)) << where;
        EXPECT_LE(highestBound, walk.objective * (1 + 1e-9)) << where;
        EXPECT_GE(leastReported, walk.objective * (1 - 1e-9)) << where;
        if (kind == Objective::Energy || r.status == "optimal") {
          EXPECT_EQ(r.status, "optimal") << where;
          EXPECT_NEAR(r.objective, walk.objective, 1e-9 * walk.objective) << where;
        }
      }
}

// On the short rows the relaxed latency optimum decodes to a mapping of 818 cycles where the walk's takes
// 624: excluded, and the assignment solved again, the next one is the optimum, which closes the split.
TEST(ConvMapIlpSpatial, ExcludingAMappingTheRelaxationMisjudgesProvesTheOptimum) {
  const auto h = test::shortRowsHierarchy();
  const auto layer = parseLayerDims("R=3,P=3,C=2,K=4", "exclude");
  MapOptions o;
  o.objective = {Objective::Latency};
  o.timeLimitSeconds = 600;
  const auto walk = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
  ASSERT_EQ(walk.status, "optimal");
  EXPECT_EQ(walk.objective, 624);
  o.start = trivialMapping(layer, h);
  o.maxEvaluations = 1;
  const auto r = makeMapper("ilp-spatial")->solve(layer, h, o, nullptr);
  EXPECT_EQ(r.status, "optimal");
  EXPECT_EQ(r.objective, walk.objective);
}

// Energy under a latency bound (an epsilon point), where the MILP sees the latency only in part: a mapping
// within the bound, no cheaper than the walk's least energy within it, a bound no higher, "optimal" only
// there.
TEST(ConvMapIlpSpatial, EnergyUnderALatencyBoundClaimsNoMoreThanTheWalkProves) {
  const auto rows = test::shortRowsHierarchy();
  for (const auto& h : {tinyHierarchy(), rows})
    for (const char* dims : {"R=3,P=3,C=2,K=4", "R=3,P=4,C=2,K=2,stride=2"}) {
      const auto layer = parseLayerDims(dims, "epsilon");
      MapOptions o;
      o.timeLimitSeconds = 600;
      o.objective = {Objective::Latency};
      const auto fastest = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
      o.objective = {Objective::Energy};
      const auto cheapest = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
      o.maxLatencyCycles = (fastest.cost.latencyCycles + cheapest.cost.latencyCycles) / 2;
      const auto walk = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
      ASSERT_EQ(walk.status, "optimal") << dims;
      o.start = fastest.mapping;  // within every bound; the heuristic held to it
      o.maxEvaluations = 1;
      const auto r = makeMapper("ilp-spatial")->solve(layer, h, o, nullptr);
      const std::string where =
          std::string(dims) + " on " + h.name + " within " + std::to_string(*o.maxLatencyCycles) + " cycles";
      EXPECT_TRUE(violations(layer, h, r.mapping).empty()) << where;
      EXPECT_LE(r.cost.latencyCycles, *o.maxLatencyCycles) << where;
      EXPECT_GE(r.objective, walk.objective * (1 - 1e-9)) << where;
      ASSERT_TRUE(r.bound) << where;
      EXPECT_LE(*r.bound, walk.objective * (1 + 1e-9)) << where;
      if (r.status == "optimal") {
        EXPECT_NEAR(r.objective, walk.objective, 1e-9 * walk.objective) << where;
      }
    }
}

// Stopped before every assignment is closed, the result keeps a valid mapping and a proven bound below it.
TEST(ConvMapIlpSpatial, ACancelLeavesTheIncumbentAndAProvenBound) {
  const auto h = builtinHierarchy("pimopt-default");
  const auto layer = parseLayerDims("R=3,S=3,P=7,Q=7,C=512,K=512", "resnet18-stage4");
  MapOptions o;
  o.objective = {Objective::Energy};
  o.timeLimitSeconds = 600;
  o.start = trivialMapping(layer, h);
  std::atomic<bool> cancel{false};
  o.cancel = &cancel;
  const auto r = makeMapper("ilp-spatial")->solve(layer, h, o, [&](const MapProgress& p) {
    if (p.nodes && *p.nodes >= 50) cancel = true;
  });
  EXPECT_EQ(r.status, "feasible");
  EXPECT_TRUE(violations(layer, h, r.mapping).empty());
  ASSERT_TRUE(r.bound);
  EXPECT_LT(*r.bound, r.objective);
  EXPECT_GE(*r.bound, objectiveBound(o.objective, lowerBound(layer, h)) * (1 - 1e-9));
}

TEST(ConvMapIlpSpatial, RefusesAFrontAndAnUnknownSolver) {
  const auto layer = parseLayerDims("P=4,C=4,K=4", "refused");
  MapOptions o;
  o.collectFront = true;
  EXPECT_THROW(makeMapper("ilp-spatial")->solve(layer, tinyHierarchy(), o, nullptr), InputError);
  o.collectFront = false;
  o.solver = "gurobi";
  EXPECT_THROW(makeMapper("ilp-spatial")->solve(layer, tinyHierarchy(), o, nullptr), InputError);
}

}  // namespace
}  // namespace pim::convmap
