// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/pareto.h"

#include <algorithm>

namespace pim::convmap {

bool FrontPoint::dominates(const FrontPoint& o) const {
  const bool noWorse =
      latencyCycles <= o.latencyCycles && energyPj <= o.energyPj && rowActivations <= o.rowActivations;
  return noWorse && !sameCosts(o);
}

bool FrontPoint::sameCosts(const FrontPoint& o) const {
  return latencyCycles == o.latencyCycles && energyPj == o.energyPj && rowActivations == o.rowActivations;
}

bool ParetoFront::add(FrontPoint p) {
  for (const auto& q : m_points)
    if (q.dominates(p) || q.sameCosts(p)) return false;
  std::erase_if(m_points, [&](const FrontPoint& q) { return p.dominates(q); });
  m_points.push_back(std::move(p));
  return true;
}

bool ParetoFront::covers(std::int64_t latencyCycles, double energyPj, std::int64_t rowActivations) const {
  return std::any_of(m_points.begin(), m_points.end(), [&](const FrontPoint& q) {
    return q.latencyCycles <= latencyCycles && q.energyPj <= energyPj && q.rowActivations <= rowActivations;
  });
}

std::vector<FrontPoint> ParetoFront::points() const {
  auto v = m_points;
  std::sort(v.begin(), v.end(), [](const FrontPoint& a, const FrontPoint& b) {
    return a.latencyCycles != b.latencyCycles ? a.latencyCycles < b.latencyCycles : a.energyPj < b.energyPj;
  });
  return v;
}

}  // namespace pim::convmap
