// SPDX-License-Identifier: Apache-2.0
// Stage 4 of DCC section 4.2: lower a draft to per-core data tiles, map them to compute tiles (loop ranges),
// and derive the tensor indices every core needs, under either of DCC's two indexing strategies.
#pragma once
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "engine/mapping/index_set.h"
#include "engine/schedule/draft_space.h"

namespace pim {

/// DCC's strategies for non-contiguous indices: (i) expand to the covering range, (ii) keep the exact
/// indices.
enum class IndexingStrategy : std::uint8_t { Expand, Exact };
std::string_view indexingName(IndexingStrategy s);  // "expand" / "exact"

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
  IndexingStrategy indexing = IndexingStrategy::Expand;
  int groupsUsed = 1;                        // product of the parts' groups
  int coresPerGroup = 1;                     // product of the parts' cores
  std::vector<CoreTile> cores;               // group-major: index = group * coresPerGroup + core
  std::vector<std::int64_t> paddedElements;  // per tensor: the largest core tile, what group commands need
  const CoreTile& at(int group, int core) const { return cores[group * coresPerGroup + core]; }
};

/// Lowers draft `d` of `space`, every core with its index sets (what people read: walkthrough, details, IR,
/// schedule files; the simulation reads only footprints, see footprints.h). Core (G, K) takes, for every
/// part i, coordinates (g_i, k_i) of G and K in mixed radix with the last part fastest; its data tile along
/// part i's representative dimension of extent E is [u*ts, min(E, (u+1)*ts)) with u = g_i*c_i + k_i and
/// ts = ceil(E / (g_i*c_i)).
TileMapping mapDraft(const DraftSpace& space, const Draft& d, IndexingStrategy strategy);
/// The same tiles one core at a time, group-major, in one CoreTile refilled in place (valid during the call
/// only): for a pass over thousands of cores that keeps only what it reads of each.
void forEachCoreTile(const DraftSpace& space, const Draft& d, IndexingStrategy strategy,
                     const std::function<void(const CoreTile&)>& visit);

/// The sizes of one core's tiles, without their index sets.
struct CoreSizes {
  int group = 0, core = 0;
  bool idle = false;
  std::vector<std::int64_t> loopCounts;  // per loop variable: its iterations on the core
  std::vector<std::int64_t> elements;    // per tensor: the elements of its tile (CoreTile::tensors)
  bool operator==(const CoreSizes&) const = default;
};
CoreSizes sizesOf(const CoreTile& t);
/// forEachCoreTile's sizes, one core at a time, group-major (`visit`'s argument valid during the call only).
/// When no tensor is read twice a tile's size does not depend on where it lies, so cores whose parts give
/// equal iteration counts (whole tiles, the last partial one, empty ones) share one mapping; otherwise each
/// core is mapped.
void forEachCoreSizes(const DraftSpace& space, const Draft& d, IndexingStrategy strategy,
                      const std::function<void(const CoreSizes&)>& visit);

// The pieces of the mapping, shared with the footprint mapping.

/// Part i's tiles at position u along it (u = g_i*c_i + k_i): the data tile along its representative
/// dimension and the compute range of its representative variable (empty: the core is idle).
struct PartTile {
  IndexSet data, compute;
};
PartTile partTile(const DraftSpace& space, int part, const PartChoice& c, std::int64_t u);
/// Values of affine expression `e` over the box of loop ranges (empty if any variable's range is empty).
IndexSet evaluateOver(const AffineExpr& e, const std::vector<IndexSet>& loops);
/// The indices one tensor axis needs, from the index sets of its references (already expanded under
/// IndexingStrategy::Expand, which also covers a union by one range).
IndexUnion axisUnion(const std::vector<IndexSet>& refs, IndexingStrategy strategy);

}  // namespace pim
