// SPDX-License-Identifier: Apache-2.0
// The mapspace's moves and enumerations, shared by the mappers: prime factors, divisors, and one random
// local change of a mapping that keeps its factorisation and loop orders consistent.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "engine/convmap/mapping.h"

namespace pim::convmap {

std::vector<std::int64_t> primeFactors(std::int64_t n);  // with multiplicity, ascending
std::vector<std::int64_t> divisors(std::int64_t n);      // ascending

/// Applies one random move to `m` (a prime factor moved between places, two loops of a level swapped, a
/// bypass toggled where the hierarchy allows, a layout or the input's block changed). The result keeps the
/// factorisation and the orders consistent; the caller checks the rest with violations(). False when the
/// drawn move is impossible (nothing changed). `keepSpatial`: factors move between temporal places only.
bool randomMove(const ConvLayer& layer, const Hierarchy& h, ConvMapping& m, std::mt19937_64& rng,
                bool keepSpatial = false);

/// `count` valid mappings spread along a seeded random walk of valid moves from the trivial mapping (every
/// 25th valid step); fewer when 200 x `count` steps find fewer. The validation's random sample
/// (docs/convmap.md).
std::vector<ConvMapping> randomValidMappings(const ConvLayer& layer, const Hierarchy& h, int count,
                                             std::uint64_t seed);

/// Gives each tensor of a valid mapping the layout (and the input the block) with the fewest row activations
/// of that tensor (ties: sequential first, then smaller blocks). Lossless for every objective: a tensor's
/// layout changes only its own activations, which enter only its own DRAM time (docs/convmap.md "Mappers").
void chooseFewestActivationLayouts(const ConvLayer& layer, const Hierarchy& h, ConvMapping& m);

/// Sets factor[level][slot][dim] to `value`, keeping `order[level]` listing exactly the temporal loops above
/// 1 (a new loop goes innermost).
void setFactor(ConvMapping& m, int level, int slot, int dim, std::int64_t value);

}  // namespace pim::convmap
