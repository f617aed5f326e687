// SPDX-License-Identifier: Apache-2.0
// DCC's public artifact's drafts (dcc-artifact.md "Draft generation"): a draft is one (groups, cores,
// per-core tile) part per kernel dimension, in the artifact's dimension order ([batch, length] for 2-D
// kernels, [batch x heads, head dim, sequence] for 3-D ones), over one HBM3 stack of 16 channels x 64 banks.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pim::dcc {

inline constexpr int kGroups = 16;  // channels of one stack
inline constexpr int kCores = 64;   // banks of one channel

struct Part {
  std::int64_t groups = 1;
  std::int64_t cores = 1;
  std::int64_t tile = 1;  // per-core elements along this dimension
  bool operator==(const Part&) const = default;
};
using Tiling = std::vector<Part>;

/// "[(16, 64, 4), (1, 1, 8)]", the artifact's notation.
std::string tilingLabel(const Tiling& t);

/// The pattern the artifact's rounding leaves alone (its vendor tiling): 2-D (*, 1, *), (1, 64, *); 3-D
/// (*, 1, *), (1, 4, *), (1, 16, *).
bool keepsItsCounts(const Tiling& t);
/// Every group and core count rounded up to the next power of two, except keepsItsCounts(): the per-core
/// tiles are NOT recomputed (data is padded), so the rounded products may exceed one stack.
Tiling roundToPowersOfTwo(Tiling t);

std::int64_t channelsOf(const Tiling& t);  // product of groups
std::int64_t banksOf(const Tiling& t);     // product of cores

/// The vendor tiling of dcc-backends.md for `dims` (2 or 3 of them).
Tiling vendorTiling(std::span<const std::int64_t> dims);

/// Every draft the artifact's generator (generate_configs.py) emits for `dims`, in its order: the chains of
/// (a, b, ceil(size / (a*b))) over (16 groups, 64 cores), the leaf rules for 2-D and 3-D kernels, and the
/// vendor variants appended for small batches.
std::vector<Tiling> generateDrafts(std::span<const std::int64_t> dims);

/// A draft given in the artifact's (groups, cores, tile) form, checked against `dims`: the part count, 1..16
/// groups and 1..64 cores per part and in product, and tiles that cover their dimension. Throws InputError
/// naming the part and what is wrong.
Tiling checkedTiling(std::span<const std::int64_t> dims, Tiling t);

}  // namespace pim::dcc
