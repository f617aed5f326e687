// SPDX-License-Identifier: Apache-2.0
// What filling a buffer level costs at least, for the tensors that have it as their lowest keeper (a term of
// the lower bound, docs/convmap.md "Lower bound"). The tensors a level keeps share its tile extents e, so
// their tiles must fit its capacity together; every loop above the level with a bound > 1 refills all of
// them but the one tensor to which the innermost such loop is irrelevant (each dimension is irrelevant to
// exactly one tensor). So with L = the product of D_d / e_d, at least all but one of them move L x tile(e)
// bytes into the level, and that one at least tile(e) x the product of D_d / e_d over its own dimensions
// (every loop relevant to it refills it, whatever the order: a window's halo is fetched again): the least
// over every e that fits and every choice of that one tensor, which the level's capacity keeps far above
// "each byte once" where buffers are small. A level's extents are multiples of the array's (every level above
// the PEs holds what the whole array works on), so for one spatial assignment the least is taken over those
// extents alone, which couples the fills to the operand sharing the assignment buys.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "engine/convmap/conv_layer.h"
#include "engine/convmap/hierarchy.h"
#include "engine/convmap/mapping.h"

namespace pim::convmap {

/// Tile extents the fill bound walks at most (the product of the dimensions' divisor counts); past it the
/// bound counts each touched byte once, as with one tensor per level (still a bound, a looser one).
inline constexpr std::int64_t kMaxFillBoundExtents = 2'000'000;
/// Tile extents up to which the least per array extents is tabled (energyPj with extents); past it that query
/// gives the least over every extent (still a bound, a looser one).
inline constexpr std::int64_t kMaxFillBoundTable = 100'000;

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

 private:
  void tableLeastOverMultiples();  // turns each entry into the least over its extents' multiples
  /// Index of the extents in the table (mixed radix over each dimension's divisors), -1 if not tabled.
  std::int64_t indexOf(const DimFactors& e) const;

  int m_levels = 0;                             // DRAM's level: levels 1 .. m_levels - 1 are covered
  std::vector<std::array<double, 8>> m_energy;  // [level][tensor set]: the least over every extent
  std::array<std::vector<std::int64_t>, kDims> m_divisors;
  /// [index of e][level - 1][set - 1]: the least over the multiples of e (empty when not tabled).
  std::vector<double> m_atLeast;
};

}  // namespace pim::convmap
