// SPDX-License-Identifier: Apache-2.0
// The epsilon-constraint sweep (engine/convmap/epsilon_sweep): with the exhaustive mapper every point it
// keeps lies on the exact latency-energy front of the whole walk, with its ends; with the heuristic each
// point respects its bound and carries its gap; with the MILP each point's proven energy bound lies at or
// below the exact front's under its latency bound; and the latency bound itself
// (MapOptions::maxLatencyCycles).
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/convmap/epsilon_sweep.h"
#include "engine/convmap/mapping_io.h"
#include "tests/convmap_fixtures.h"

namespace pim::convmap {
namespace {

using test::tinyHierarchy;

/// The (latency, energy) pairs no mapping of the walk beats in both. The walk must complete: with the map
/// default's 10 s it was cut short under the sanitizers on a loaded machine, leaving points off the front.
std::vector<std::pair<std::int64_t, double>> exactFront(const ConvLayer& layer, const Hierarchy& h) {
  MapOptions o;
  o.collectFront = true;
  o.timeLimitSeconds = 600;
  const auto walk = makeMapper("exhaustive")->solve(layer, h, o, nullptr);
  EXPECT_EQ(walk.status, "optimal") << "the walk stopped before it saw every mapping";
  std::vector<std::pair<std::int64_t, double>> all, front;
  for (const auto& p : walk.front.points()) all.push_back({p.latencyCycles, p.energyPj});
  for (const auto& a : all)
    if (std::none_of(all.begin(), all.end(), [&](const auto& b) {
          return b.first <= a.first && b.second <= a.second && (b.first < a.first || b.second < a.second);
        }))
      front.push_back(a);
  return front;
}

TEST(ConvMapSweep, ExhaustivePointsLieOnTheExactFront) {
  // Layers whose exact fronts have 2-3 points, with the global buffer's bypass fixed and free.
  for (const auto& [dims, bypassFixed] : {std::pair{"P=4,C=4,K=4", true}, std::pair{"R=3,P=4,C=2,K=2", true},
                                          std::pair{"P=4,C=4,K=4", false}}) {
    auto h = tinyHierarchy();
    h.levels[1].bypassFixed = bypassFixed;
    const auto layer = parseLayerDims(dims, "sweep");
    const auto front = exactFront(layer, h);
    ASSERT_FALSE(front.empty());
    MapOptions o;
    o.timeLimitSeconds = 600;
    const auto sweep = epsilonSweep(layer, h, *makeMapper("exhaustive"), o, 4, nullptr);
    ASSERT_GE(front.size(), 2u) << dims << ": a front of one point would test nothing";
    ASSERT_GE(sweep.size(), 2u) << dims;
    for (const auto& p : sweep) {
      EXPECT_EQ(p.result.status, "optimal") << dims;
      EXPECT_LE(p.result.cost.latencyCycles, p.latencyBound.value_or(p.result.cost.latencyCycles));
      if (p.dominated) continue;
      const std::pair<std::int64_t, double> point{p.result.cost.latencyCycles, p.result.cost.energyPj};
      EXPECT_NE(std::find(front.begin(), front.end(), point), front.end())
          << dims << ": " << point.first << " cycles, " << point.second << " pJ is not on the exact front";
    }
    // Its ends are the front's: the fastest latency at its least energy, and the least energy.
    EXPECT_EQ(sweep.front().result.cost.latencyCycles, front.front().first) << dims;
    EXPECT_EQ(sweep.front().result.cost.energyPj, front.front().second) << dims;
    EXPECT_EQ(sweep.back().result.cost.energyPj, front.back().second) << dims;
  }
}

TEST(ConvMapSweep, HeuristicPointsKeepTheirBoundAndReportAGap) {
  const auto h = builtinHierarchy("pimopt-small");
  const auto layer = parseLayerDims("R=3,S=3,P=8,Q=8,C=16,K=16", "sweep");
  MapOptions o;
  o.maxEvaluations = 4000;
  const auto sweep = epsilonSweep(layer, h, *makeMapper("heuristic"), o, 5, nullptr);
  ASSERT_GE(sweep.size(), 1u);
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    const auto& r = sweep[i].result;
    ASSERT_TRUE(r.gap);
    EXPECT_TRUE(violations(layer, h, r.mapping).empty());
    EXPECT_LE(r.cost.latencyCycles, sweep[i].latencyBound.value_or(r.cost.latencyCycles));
    EXPECT_LE(sweep[i ? i - 1 : 0].result.cost.latencyCycles, r.cost.latencyCycles);
  }
  EXPECT_THROW(epsilonSweep(layer, h, *makeMapper("heuristic"), o, 1, nullptr), InputError);
}

// The MILP's latency is a relaxation, so under a latency bound it admits more mappings than the evaluator:
// its energy bound stays below the least energy the walk finds within that latency.
TEST(ConvMapSweep, IlpPointsRespectTheirBoundAndNeverClaimMoreThanTheFront) {
  auto h = tinyHierarchy();
  h.levels[1].bypassFixed = true;
  const auto layer = parseLayerDims("R=3,P=4,C=2,K=2", "sweep");
  const auto front = exactFront(layer, h);
  MapOptions o;
  o.timeLimitSeconds = 600;
  for (const std::string mapper : {"ilp", "ilp-spatial"}) {
    const auto sweep = epsilonSweep(layer, h, *makeMapper(mapper), o, 4, nullptr);
    ASSERT_GE(sweep.size(), 2u);
    for (const auto& p : sweep) {
      const auto& r = p.result;
      const auto limit = p.latencyBound.value_or(r.cost.latencyCycles);
      const std::string where = mapper + " under " + std::to_string(limit) + " cycles";
      EXPECT_TRUE(violations(layer, h, r.mapping).empty());
      EXPECT_LE(r.cost.latencyCycles, limit);
      double least = 1e300;
      for (const auto& [latency, energy] : front)
        if (latency <= limit || !p.latencyBound) least = std::min(least, energy);
      ASSERT_TRUE(r.bound);
      EXPECT_LE(*r.bound, least * (1 + 1e-9)) << where;
      EXPECT_GE(r.cost.energyPj, least * (1 - 1e-9)) << where;
      if (r.status == "optimal") {
        EXPECT_NEAR(r.cost.energyPj, least, 1e-9 * least) << where;
      }
    }
  }
}

TEST(ConvMapSweep, ALatencyBoundNoMappingMeetsIsRefusedByName) {
  auto h = tinyHierarchy();
  const auto layer = parseLayerDims("P=2,C=4,K=2", "tight");
  MapOptions o;
  o.maxLatencyCycles = 1;  // below the 16 MACs over 4 PEs
  try {
    makeMapper("exhaustive")->solve(layer, h, o, nullptr);
    FAIL() << "no mapping runs in 1 cycle";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("within 1 cycles"), std::string::npos) << e.what();
  }
  EXPECT_THROW(makeMapper("heuristic")->solve(layer, h, o, nullptr), InputError);
  EXPECT_THROW(makeMapper("ilp")->solve(layer, h, o, nullptr), InputError);
}

}  // namespace
}  // namespace pim::convmap
