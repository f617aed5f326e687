// SPDX-License-Identifier: Apache-2.0
// What the simulation needs of a mapped draft, without materialising core tiles: for every core whether it is
// idle, how many elements of each tensor its tile holds, and the index box of its output tiles. Labelling and
// exhaustive search map 10^5-10^6 drafts of up to 80 x 64 cores each, so this is the mapping's hot path.
//
// Why it can be fast: a core's tile is a product over tensor axes of per-axis index unions, and an axis's
// union depends only on the compute ranges of the loop variables its references use. A part's representative
// variable takes one range per position u along the part (groups x cores of them), and every other variable
// its full range, so an axis whose variables belong to one part has one union per position of that part:
// unions are taken once per (axis, position), not once per core. Axes mixing the variables of several parts
// fall back to one union per core. The numbers equal those of mapDraft (tests check it draft by draft).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "engine/mapping/tile_mapping.h"

namespace pim {

struct DraftFootprints {
  Draft draft;
  int groupsUsed = 1;
  int coresPerGroup = 1;
  std::size_t tensorCount = 0;
  std::size_t boxSize = 0;                   // numbers per core in outputBoxes: (lo, hi) per output axis
  std::vector<std::int64_t> elements;        // per core (group-major) and tensor; 0 for an idle core
  std::vector<std::uint8_t> idle;            // per core: no iterations fall on it
  std::vector<std::int64_t> outputBoxes;     // per core: covering range (lo, hi) of every output tensor axis
  std::vector<std::int64_t> paddedElements;  // per tensor: the largest core tile

  std::size_t coreIndex(int group, int core) const {
    return static_cast<std::size_t>(group) * static_cast<std::size_t>(coresPerGroup) +
           static_cast<std::size_t>(core);
  }
  std::int64_t elementsOf(int group, int core, int tensor) const {
    return elements[coreIndex(group, core) * tensorCount + static_cast<std::size_t>(tensor)];
  }
  bool isIdle(int group, int core) const { return idle[coreIndex(group, core)] != 0; }
  std::span<const std::int64_t> outputBox(int group, int core) const {
    return {outputBoxes.data() + coreIndex(group, core) * boxSize, boxSize};
  }
};

/// Footprints of draft `d` of `space` under `strategy`, computed per part position (see above).
DraftFootprints mapFootprints(const DraftSpace& space, const Draft& d, IndexingStrategy strategy);
/// The same numbers read off a full mapping (for tests and for views that already hold one).
DraftFootprints footprintsOf(const Kernel& k, const TileMapping& m);

}  // namespace pim
