// SPDX-License-Identifier: Apache-2.0
// The conv mapper's MILP (docs/convmap.md "The MILP"; pimopt 6): one-hot divisor choices per (dimension,
// level, slot), factorisation by per-prime exponent equalities, loop orders as precedence binaries, bypass as
// keep binaries, and every traffic and capacity term as an indicator times a one-hot choice among the finite
// values the term can take (linked by integer exponent equalities or by the marginals of a tuple of one-hot
// choices). Energy is stated exactly: with a mapping's factors, orders and keeps fixed, the optimum over the
// remaining variables is the evaluator's energy. Latency is an integer variable at least every bound the
// evaluator takes the maximum of: compute, every buffer level's reads and writes and DRAM's transfers are
// exact; DRAM's row activations are the rows the tensor's touched bytes occupy and the PE buffers' fill
// traffic is spread over the whole array, both lower bounds. So the latency objective is a relaxation: its
// optimum is a proven lower bound, and the mapper re-evaluates every mapping it decodes.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "engine/convmap/evaluator.h"
#include "engine/milp/milp.h"

namespace pim::convmap {

/// What the MILP minimises (blended: with the spec's references) and the latency it may not exceed.
struct MilpGoal {
  ObjectiveSpec objective{Objective::Energy};
  std::optional<std::int64_t> maxLatencyCycles;
};

struct MappingMilp {
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
  /// The latency variable (cycles, integer; a lower bound on the evaluator's), when the goal reads latency.
  std::optional<std::size_t> latency;
  /// True when a fixed mapping's optimum is the evaluator's objective (energy alone); false when it is a
  /// lower bound on it (latency enters).
  bool exact = true;
};

/// States the layer's mapping problem on the hierarchy. Bounds of 1 and absent slots get no variables.
MappingMilp buildMappingMilp(const ConvLayer& layer, const Hierarchy& h, const MilpGoal& goal = {});

/// The mapping a solution describes; level 0's order ascending, every layout sequential (the caller picks
/// layouts: they change no energy).
ConvMapping decodeMapping(const MappingMilp& e, std::span<const double> values);

/// Fixes level 0's spatial factors (H, W, Internal slots, per dimension) to `spatial`: every other option of
/// those choices gets an upper bound of 0.
void fixSpatial(MappingMilp& e, const std::array<DimFactors, 3>& spatial);

/// Adds the row objective <= `value`: only mappings no worse than `value` stay feasible.
void cutOffAbove(MappingMilp& e, double value);

/// Adds the row that excludes every solution decoding to `m` (a no-good cut on its factors, keeps and the
/// order of its loops) and nothing else: in a relaxation, a decoded mapping that breaks the latency bound or
/// costs more than the relaxation says is accounted for by the evaluator, and solving again without it
/// tightens the bound.
void excludeMapping(MappingMilp& e, const ConvMapping& m);

/// The values a mapping gives the factor, keep and precedence variables: a MIP start, or bounds that fix the
/// mapping (the exactness test).
std::vector<std::pair<std::size_t, double>> mappingValues(const MappingMilp& e, const ConvMapping& m);

}  // namespace pim::convmap
