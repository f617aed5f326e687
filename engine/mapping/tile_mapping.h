// SPDX-License-Identifier: Apache-2.0
// Stage 4 of DCC section 4.2: lower a draft to per-core data tiles, map them to compute tiles (loop ranges),
// and derive the tensor indices every core needs, under either of DCC's two indexing strategies.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/mapping/index_set.h"
#include "engine/schedule/draft_space.h"

namespace pim {

/// DCC's strategies for non-contiguous indices: (i) expand to the covering range, (ii) keep the exact
/// indices.
enum class IndexingStrategy : std::uint8_t { Expand, Exact };
std::string_view strategyName(IndexingStrategy s);  // "expand" / "exact"

/// What one core holds of one tensor: per axis the indices it needs.
struct TensorTile {
  std::vector<IndexUnion> axes;
  std::int64_t elements = 0;
};

struct CoreTile {
  int group = 0;                                  // physical PIM group, 0 .. groupsUsed-1
  int core = 0;                                   // core within the group, 0 .. coresUsed-1
  std::vector<IndexSet> dataTiles;                // per part: range along its representative dimension
  std::vector<IndexSet> computeTile;              // per loop variable: [lo, hi)
  std::vector<std::vector<IndexSet>> references;  // per Kernel::references() entry, per axis (Full detail)
  std::vector<TensorTile> tensors;                // per tensor
  bool idle = false;                              // no iterations fall on this core
};

struct TileMapping {
  Draft draft;
  IndexingStrategy strategy = IndexingStrategy::Expand;
  int groupsUsed = 1;                        // product of the parts' groups
  int coresPerGroup = 1;                     // product of the parts' cores
  std::vector<CoreTile> cores;               // group-major: index = group * coresPerGroup + core
  std::vector<std::int64_t> paddedElements;  // per tensor: the largest core tile, what group commands need
  const CoreTile& at(int group, int core) const { return cores[group * coresPerGroup + core]; }
};

/// How much of each core tile to keep: the per-reference index sets are for people (walkthrough, details);
/// simulation needs only the tensor footprints, and skipping the rest saves most of the mapping's
/// allocations.
enum class MappingDetail : std::uint8_t { Full, Footprints };

/// Lowers draft `d` of `space`. Core (G, K) takes, for every part i, coordinates (g_i, k_i) of G and K in
/// mixed radix with the last part fastest; its data tile along part i's representative dimension of extent E
/// is [u*ts, min(E, (u+1)*ts)) with u = g_i*c_i + k_i and ts = ceil(E / (g_i*c_i)).
TileMapping mapDraft(const DraftSpace& space, const Draft& d, IndexingStrategy strategy,
                     MappingDetail detail = MappingDetail::Full);

}  // namespace pim
