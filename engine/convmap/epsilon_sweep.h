// SPDX-License-Identifier: Apache-2.0
// The latency-energy front by epsilon-constraint (docs/convmap.md "Pareto fronts"): the least energy under
// latency bounds on an even grid from the latency optimum's latency (the cheapest of the fastest mappings)
// towards the energy optimum's, and the energy optimum itself, each solved by a mapper with its own status
// and gap. Row activations are reported per point, not constrained.
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "engine/convmap/mapper.h"

namespace pim::convmap {

struct SweepPoint {
  std::optional<std::int64_t> latencyBound;  // the epsilon (none: the energy optimum's unconstrained solve)
  MapResult result;
  bool dominated = false;  // another point of the sweep is no worse in latency and energy and better in one
};

/// Up to `points` (>= 2) front points, after a latency solve and an energy solve that set the grid's ends,
/// all with `mapper` under `base`'s limits (time, evaluations, gap); the energy solves start from the latency
/// optimum (feasible under every bound). Fewer points when the grid has fewer distinct bounds; one when the
/// energy optimum is also fastest. A cancel stops the sweep with the points solved so far. Sorted by latency.
std::vector<SweepPoint> epsilonSweep(const ConvLayer& layer, const Hierarchy& h, const IConvMapper& mapper,
                                     const MapOptions& base, int points,
                                     const std::function<void(int done, int total)>& progress);

}  // namespace pim::convmap
