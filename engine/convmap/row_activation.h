// SPDX-License-Identifier: Apache-2.0
// The model's DRAM row activations per tensor (pimopt 5.5, docs/convmap.md "DRAM addresses and row
// activations"): each tensor alone in its bank, its DRAM child's tile fetched fills() times, each fill
// walking the tile in ascending addresses. Closed forms per layout; the trace simulator (sim/row_trace)
// judges them.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "engine/convmap/mapping.h"

namespace pim::convmap {

struct RowActivations {
  std::array<std::int64_t, kTensors> count{};     // activations per tensor (reads and write-backs)
  std::array<std::int64_t, kTensors> crossing{};  // of which: extra rows of input tiles straddling a block
  std::array<std::string, kTensors> regime;       // "one row", "streaming", "thrashing", "row-aligned tiles"
  std::int64_t total() const { return count[0] + count[1] + count[2]; }
};

RowActivations rowActivations(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m);

/// Tiles of extent `extent` starting every `step` elements (n of them, from 0) that straddle a boundary of
/// blocks of `block` elements: pimopt 5.5.4's GCD analysis, exact (whole periods plus the remainder's offsets
/// counted one by one). extent > block crosses always.
std::int64_t crossingTiles(std::int64_t n, std::int64_t step, std::int64_t extent, std::int64_t block);

}  // namespace pim::convmap
