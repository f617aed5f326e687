// SPDX-License-Identifier: Apache-2.0
// The conv mapper's energy objective as an exact MILP (docs/convmap.md "The energy MILP"; pimopt 6): one-hot
// divisor choices per (dimension, level, slot), factorisation by per-prime exponent equalities, loop orders
// as precedence binaries, bypass as keep binaries, and every energy and capacity term as an indicator times
// a one-hot choice among the finite values the term can take (linked by integer exponent equalities or by
// the marginals of a tuple of one-hot choices). No tolerance or approximation: with a mapping's factors,
// orders and keeps fixed, the optimum over the remaining variables is the evaluator's energy. Latency and
// row activations are not in it.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "engine/convmap/mapping.h"
#include "engine/milp/milp.h"

namespace pim::convmap {

struct EnergyMilp {
  milp::MilpModel model;
  /// The one-hot choice of the factor of `dim` at (level, slot): (variable, factor) per option.
  struct FactorChoice {
    int dim, level, slot;
    std::vector<std::pair<std::size_t, std::int64_t>> options;
  };
  std::vector<FactorChoice> factors;
  std::vector<std::array<std::size_t, kTensors>> keep;  // per level: 1 = the level keeps the tensor
  /// 1 = loop `inner` lies inside loop `outer` at `level` (levels >= 1; inner < outer as dimensions).
  struct Precedence {
    int level, inner, outer;
    std::size_t var;
  };
  std::vector<Precedence> precedences;
};

/// States the layer's energy minimisation on the hierarchy. Bounds of 1 and absent slots get no variables.
EnergyMilp buildEnergyMilp(const ConvLayer& layer, const Hierarchy& h);

/// The mapping a solution describes; level 0's order ascending, every layout sequential (the caller picks
/// layouts: they change no energy).
ConvMapping decodeMapping(const EnergyMilp& e, std::span<const double> values);

/// The values a mapping gives the factor, keep and precedence variables: a MIP start, or bounds that fix the
/// mapping (the exactness test).
std::vector<std::pair<std::size_t, double>> mappingValues(const EnergyMilp& e, const ConvMapping& m);

}  // namespace pim::convmap
