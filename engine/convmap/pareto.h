// SPDX-License-Identifier: Apache-2.0
// The non-dominated mappings over latency, energy and DRAM row activations seen by a mapper (docs/convmap.md
// "Pareto fronts"): exact when the exhaustive walk completes, the best trade-offs found otherwise.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/convmap/mapping.h"

namespace pim::convmap {

struct FrontPoint {
  std::int64_t latencyCycles = 0;
  double energyPj = 0;
  std::int64_t rowActivations = 0;
  ConvMapping mapping;

  /// No worse in all three and better in one.
  bool dominates(const FrontPoint& o) const;
  bool sameCosts(const FrontPoint& o) const;
};

class ParetoFront {
 public:
  /// Keeps `p` unless a kept point dominates it or has the same costs (the first found stays); drops the
  /// points it dominates. True when kept.
  bool add(FrontPoint p);
  /// Whether a kept point is no worse than these costs in all three: a mapping costing at least them would
  /// not be kept.
  bool covers(std::int64_t latencyCycles, double energyPj, std::int64_t rowActivations) const;
  /// Sorted by latency, then energy.
  std::vector<FrontPoint> points() const;
  std::size_t size() const { return m_points.size(); }

 private:
  std::vector<FrontPoint> m_points;
};

}  // namespace pim::convmap
