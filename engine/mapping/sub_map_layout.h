// SPDX-License-Identifier: Apache-2.0
// Where the sub-maps of a mapping file lie in the iteration space (CoMoNM section IV-C; upmem.md,
// "Sub-maps"): each map covers a box whose extent along dimension j is the product of its tuples' entries j,
// and the boxes must tile the space, no overlap and nothing left.
//
// Allocation proceeds along the first dimension: the maps are placed in the order the file lists them, each
// at the first free corner, corners ordered with dimension 1 fastest, then 2, and so on. The file's order,
// not the maps' indices: CoMoNM's Fig. 8b (M2, M3, M1, M4 over 512 x 1,152) tiles the space only in that
// order (M2 takes the first 640 columns, M3 the top 192 rows of the rest, M1 and M4 the rows below it), while
// placing M1 first leaves no 192 x 512 hole for M3. The indices give the execution order (ties: the file's).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/mapping/mapping_spec.h"

namespace pim {

/// One sub-map's place: the box [lo, lo + extent) per dimension.
struct SubMapBox {
  std::size_t map = 0;  // index in MappingSpec::maps (the file's order)
  std::vector<std::int64_t> lo, extent;
  std::int64_t volume() const;
};

/// The most sub-maps one file may have (placement tries every corner the earlier boxes leave).
inline constexpr std::size_t kMaxSubMaps = 16;

/// The boxes of `m`'s maps over a space of `extents` (one per loop, named by `names` in messages), in
/// execution order. Throws InputError naming the map's place in the file and the rule: a tuple with another
/// number of entries, a box larger than the space, a box that fits nowhere in what the maps before it leave
/// (an overlap), iterations no map covers, more than kMaxSubMaps maps.
std::vector<SubMapBox> placeSubMaps(const MappingSpec& m, const std::vector<std::int64_t>& extents,
                                    const std::vector<std::string>& names);

/// "[0, 512) x [640, 1152)".
std::string boxText(const SubMapBox& b);

}  // namespace pim
