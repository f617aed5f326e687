// SPDX-License-Identifier: Apache-2.0
// What filling the buffer levels costs at least, for the tensors that have each as their lowest keeper (a
// term of the lower bound, docs/convmap.md "Lower bound"). The tensors a level keeps share its tile extents
// e, so their tiles must fit its capacity together; every loop above the level with a bound > 1 refills all
// of them but the one tensor to which the innermost such loop is irrelevant (each dimension is irrelevant to
// exactly one tensor). So with L = the product of D_d / e_d, at least all but one of them move L x tile(e)
// bytes into the level, and that one at least tile(e) x the product of D_d / e_d over its own dimensions
// (every loop relevant to it refills it, whatever the order: a window's halo is fetched again): the least
// over every e that fits and every choice of that one tensor, which the level's capacity keeps far above
// "each byte once" where buffers are small. A level's extents are multiples of the array's (every level above
// the PEs holds what the whole array works on), so for one spatial assignment the least is taken over those
// extents alone, which couples the fills to the operand sharing the assignment buys.
//
// Two levels that are lowest keepers of different tensors are counted together (nested fills): the loops
// above the lower one are the loops between the two and then those above the upper one, so a tensor spared
// at the lower level saves the loops above the upper one only when the loops between are all irrelevant to
// it and the upper level spares it too; otherwise it saves at most the loops between.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "engine/convmap/conv_layer.h"
#include "engine/convmap/extent_lattice.h"
#include "engine/convmap/hierarchy.h"
#include "engine/convmap/mapping.h"

namespace pim::convmap {

/// Tile extents the fill bound walks at most (the product of the dimensions' divisor counts); past it the
/// bound counts each touched byte once, as with one tensor per level (still a bound, a looser one).
inline constexpr std::int64_t kMaxFillBoundExtents = 2'000'000;
/// Tile extents up to which the least per array extents is tabled (energyPj with extents); past it that query
/// gives the least over every extent (still a bound, a looser one).
inline constexpr std::int64_t kMaxFillBoundTable = 100'000;
/// Pairs of fitting extents (lower level, upper level) the nested fills walk at most per pair of levels;
/// past it two levels are counted apart (still a bound, a looser one). A lower extent none of whose pairs
/// can go below the least of its multiples' is not walked, and its pairs not counted.
inline constexpr std::int64_t kMaxNestedFillPairs = 20'000'000;

class FillBound {
 public:
  FillBound(const ConvLayer& layer, const Hierarchy& h);

  /// The least energy (pJ) any valid mapping spends filling buffer level `level` (1 .. DRAM - 1) with the
  /// tensors of `tensors` (bit t: tensor t) when it is the lowest level keeping each of them: the bytes
  /// written into it (an output's: read out of it) and read from its parent (written to it), less one
  /// pass of each touched byte through DRAM, which the bound counts on its own. +inf when their tiles fit the
  /// level together at no extents. Level 0 is not covered: 0 (its share is counted per PE elsewhere).
  double energyPj(int level, unsigned tensors) const;
  /// The same for the mappings whose array extents (per dimension the product of level 0's H, W and
  /// Internal factors) are `array`: the least over the extents that are multiples of them.
  double energyPj(int level, unsigned tensors, const DimFactors& array) const;
  /// Levels `lower` < `upper` (both >= 1) filled together, the lowest keepers of the disjoint tensor sets
  /// `lowerTensors` and `upperTensors`, with array extents `array` (nested fills, above); the two counted
  /// apart where the pairs were too many to walk.
  double energyPj(int lower, unsigned lowerTensors, int upper, unsigned upperTensors,
                  const DimFactors& array) const;

 private:
  void tableNested(const Hierarchy& h, const std::vector<DimFactors>& extents,
                   const std::vector<ExtentFills>& fills, const std::array<double, kTensors>& touched);

  ExtentLattice m_lattice;
  int m_levels = 0;                             // DRAM's level: levels 1 .. m_levels - 1 are covered
  std::vector<std::array<double, 8>> m_energy;  // [level][tensor set]: the least over every extent
  /// [index of e][level - 1][set - 1]: the least over the multiples of e (empty when not tabled).
  std::vector<double> m_atLeast;
  /// Per (lower, lower set, upper, upper set): [index of e] the least of the nested fills whose lower extents
  /// are multiples of e.
  std::map<std::tuple<int, unsigned, int, unsigned>, std::vector<double>> m_nested;
};

/// The bound of a layer on a hierarchy, kept between calls (the last few, by every number they read).
std::shared_ptr<const FillBound> sharedFillBound(const ConvLayer& layer, const Hierarchy& h);

}  // namespace pim::convmap
