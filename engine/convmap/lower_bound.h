// SPDX-License-Identifier: Apache-2.0
// A proven lower bound on every valid mapping's latency and energy under the model (docs/convmap.md "Lower
// bound"), so that a mapper that does not prove optimality still reports how far its answer can be from
// the optimum. It counts only what no mapping avoids: every MAC on the most PEs and lanes the layer's
// divisors can fill, every touched element of each tensor moved through DRAM once, each touched DRAM row
// opened once, every MAC's operands read from a buffer with the most sharing the array allows, and the
// refills of the buffers the tensors are read from as their capacity forces them (fill_bound.h).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/convmap/evaluator.h"

namespace pim::convmap {

/// Spatial factors of level 0 per slot (H, W, Internal).
using SpatialFactors = std::array<DimFactors, 3>;

/// A latency and an energy that one set of mappings costs at least together.
struct CostPair {
  std::int64_t latencyCycles = 0;
  double energyPj = 0;
};

struct CostBound {
  std::int64_t latencyCycles = 0;
  double energyPj = 0;
  std::string
      latencyBy;  // "compute", "<level> (<tensor>)" or "<DRAM> (<tensor>)": what sets the latency bound
  /// Of one spatial assignment, per choice of each tensor's lowest keeper, what its mappings cost at least
  /// together (the latency and the energy above are the least over these, but of different choices; the
  /// blend is bounded by the least blend of a pair). Empty: only the two least are known.
  std::vector<CostPair> perKeepers;
};

/// The most spatial assignments (H, W, Internal factors of level 0) the bound walks (docs/knobs.md); past it
/// it assumes the whole array with the most sharing it allows (still a bound, a looser one).
inline constexpr std::int64_t kMaxBoundSpatialAssignments = 200'000;

CostBound lowerBound(const ConvLayer& layer, const Hierarchy& h);

/// Calls fn on every spatial assignment a valid mapping may have by the array alone (each dimension in one
/// slot at most, with a divisor of its bound, each slot's product within the array: pimopt eqs. 13, 18-20),
/// depth first, dimension by dimension; false when there are more than `limit` (fn may then have seen some).
bool forEachSpatial(const ConvLayer& layer, const Hierarchy& h, std::int64_t limit,
                    const std::function<void(const SpatialFactors&)>& fn);
/// Calls fn with every spatial assignment some valid mapping may have and what each of its mappings costs at
/// least; false when there are too many to walk (kMaxBoundSpatialAssignments) or none fits.
bool forEachSpatialBound(const ConvLayer& layer, const Hierarchy& h,
                         const std::function<void(const SpatialFactors&, const CostBound&)>& fn);
/// The fewest row activations any mapping gives tensor t: every DRAM row holding a touched byte opened once
/// (each tensor sits in its own bank).
std::int64_t leastRowActivations(const ConvLayer& layer, const Hierarchy& h, int t);
/// A mapping's spatial assignment.
SpatialFactors spatialOf(const ConvMapping& m);

/// A spatial assignment and the least objective any mapping with it may have.
struct SpatialCandidate {
  SpatialFactors factors;
  double bound = 0;
};
/// The `count` spatial assignments whose own bounds under `o` are the least, least first (where a search may
/// start, and the order a decomposition over them proves in). When the assignments are too many to walk,
/// the least of those walked, and `*complete` (if given) is set false.
std::vector<SpatialCandidate> leastBoundSpatials(const ConvLayer& layer, const Hierarchy& h,
                                                 const ObjectiveSpec& o, std::size_t count,
                                                 bool* complete = nullptr);
/// The objective's bound from the cost bound (each objective is non-decreasing in latency and energy).
double objectiveBound(const ObjectiveSpec& o, const CostBound& b);
/// The least objective any valid mapping may have: objectiveBound of lowerBound, except that the blend is
/// bounded per spatial assignment (the least over assignments of each one's blended bound; the least latency
/// and the least energy may belong to different assignments).
double objectiveLowerBound(const ConvLayer& layer, const Hierarchy& h, const ObjectiveSpec& o);

}  // namespace pim::convmap
