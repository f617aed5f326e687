// SPDX-License-Identifier: Apache-2.0
// What every mapping that completes a partly chosen one costs at least (docs/convmap.md "Mappers"): the
// exhaustive walk's bounds, which let it pass over the keeps and loop orders of factors that cannot beat its
// incumbent. Each counts a tile's fills as its distinct tiles (the least any loop order gives: fills() is
// distinctTiles() times the irrelevant loops outside the innermost relevant one) and each tensor's row
// activations as leastRowActivations(); everything else is the evaluator's own arithmetic.
#pragma once
#include <vector>

#include "engine/convmap/evaluator.h"
#include "engine/convmap/lower_bound.h"

namespace pim::convmap {

class MappingBound {
 public:
  MappingBound(const ConvLayer& layer, const Hierarchy& h);

  /// Of every valid mapping with m's factors: any keeps the hierarchy allows, loop orders and layouts. Per
  /// tensor the least over the levels that may keep it (each level alone beside what it must keep fitting
  /// it); latency and energy may come from different keeps.
  CostPair ofFactors(const ConvMapping& m);
  /// Of every mapping with m's factors and keeps: any loop orders and layouts.
  CostPair ofKeeps(const ConvMapping& m) { return ofKept(m, Fills::Distinct); }
  /// Of every mapping with m's factors, keeps and orders: any layouts (its energy is m's own).
  CostPair ofOrders(const ConvMapping& m) { return ofKept(m, Fills::ReuseRule); }
  /// Whether some keeps may fit tiles no smaller than m's (a mapping whose factors are chosen for some
  /// dimensions, the others 1: every completion's tiles are at least these): each level holds what it must
  /// keep, and each tensor fits beside that at some level below DRAM that may keep it.
  bool mayFit(const ConvMapping& m) const;
  /// The fewest row activations of any mapping, all tensors together.
  std::int64_t leastRowActivations() const { return m_leastRows; }

 private:
  /// Tensor t's cycles (its busiest level, DRAM with its least row activations) and energy, kept as m says.
  CostPair tensorCost(const ConvMapping& m, int t, Fills mode);
  CostPair ofKept(const ConvMapping& m, Fills mode);
  /// Whether level lv can keep t beside the tiles it must keep, at m's factors (t = -1: only those).
  bool fitsBeside(const ConvMapping& m, int lv, int t) const;

  const ConvLayer& m_layer;
  const Hierarchy& m_h;
  std::int64_t m_leastRows = 0;
  std::vector<LevelCost> m_scratch;
  ConvMapping m_keeps;  // m's factors with one tensor's keeps varied (ofFactors)
};

}  // namespace pim::convmap
