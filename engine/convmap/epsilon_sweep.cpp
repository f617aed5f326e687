// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/epsilon_sweep.h"

#include <algorithm>

namespace pim::convmap {

namespace {

bool dominates(const ConvCost& a, const ConvCost& b) {
  return a.latencyCycles <= b.latencyCycles && a.energyPj <= b.energyPj &&
         (a.latencyCycles < b.latencyCycles || a.energyPj < b.energyPj);
}

}  // namespace

std::vector<SweepPoint> epsilonSweep(const ConvLayer& layer, const Hierarchy& h, const IConvMapper& mapper,
                                     const MapOptions& base, int points,
                                     const std::function<void(int, int)>& progress) {
  if (points < 2)
    throw InputError("--pareto: a sweep needs at least 2 points (got " + std::to_string(points) + ")");
  auto cancelled = [&] { return base.cancel && base.cancel->load(); };
  MapOptions o = base;
  o.collectFront = false;
  o.maxLatencyCycles.reset();
  o.objective = {Objective::Latency};
  const auto fastest = mapper.solve(layer, h, o, nullptr);
  if (progress) progress(1, points + 1);
  o.objective = {Objective::Energy};
  o.start = fastest.mapping;  // feasible under every bound below
  auto cheapest = mapper.solve(layer, h, o, nullptr);
  if (progress) progress(2, points + 1);
  const auto lo = fastest.cost.latencyCycles, hi = cheapest.cost.latencyCycles;
  // The least energy under each bound of an even grid from the fastest latency (the lexicographic end: the
  // cheapest of the fastest mappings) towards the cheapest mapping's latency, which ends the front.
  std::vector<SweepPoint> out;
  std::optional<std::int64_t> previous;
  for (int i = 0; i + 1 < points && hi > lo && !cancelled(); ++i) {
    const auto eps = lo + (hi - lo) * i / (points - 1);
    if (previous == eps) continue;
    previous = eps;
    o.maxLatencyCycles = eps;
    out.push_back({eps, mapper.solve(layer, h, o, nullptr)});
    if (progress) progress(i + 3, points + 1);
  }
  out.push_back({std::nullopt, std::move(cheapest)});
  std::sort(out.begin(), out.end(), [](const SweepPoint& a, const SweepPoint& b) {
    return a.result.cost.latencyCycles != b.result.cost.latencyCycles
               ? a.result.cost.latencyCycles < b.result.cost.latencyCycles
               : a.result.cost.energyPj < b.result.cost.energyPj;
  });
  for (auto& p : out)
    for (const auto& q : out) p.dominated = p.dominated || dominates(q.result.cost, p.result.cost);
  return out;
}

}  // namespace pim::convmap
