// SPDX-License-Identifier: Apache-2.0
// A conv mapping (pimopt 5.2; docs/convmap.md "Mapping"): factors per (level, slot, dimension), the temporal
// loop order per level, bypass per (level, tensor), layout per tensor and the input's block. Plus what
// follows from it alone: the loop nest, tile extents, fills by the reuse rule, and the verdict (every limit
// it breaks).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/convmap/conv_layer.h"
#include "engine/convmap/hierarchy.h"

namespace pim::convmap {

enum Slot : int { SlotH = 0, SlotW, SlotInternal, SlotTemporal };
inline constexpr int kSlots = 4;
inline constexpr std::array<std::string_view, kSlots> kSlotNames = {"H", "W", "Internal", "Temporal"};

enum class Layout { Sequential, RowAligned };
std::string_view layoutName(Layout l);

using DimFactors = std::array<std::int64_t, kDims>;

struct LevelMapping {
  std::array<DimFactors, kSlots> factor{};  // spatial slots only at level 0 (1 above)
  std::vector<int> order;                   // temporal loops with factor > 1, inner to outer
  std::array<bool, kTensors> keep{true, true, true};

  bool operator==(const LevelMapping&) const = default;
};

struct ConvMapping {
  std::vector<LevelMapping> levels;  // one per hierarchy level, innermost first
  std::array<Layout, kTensors> layout{Layout::Sequential, Layout::Sequential, Layout::Sequential};
  std::int64_t blockH = 0, blockW = 0;  // a row-aligned input's block (elements); 0 otherwise

  bool operator==(const ConvMapping&) const = default;
};

/// A mapping with every factor 1 at `levels` levels except each dimension's whole bound as a DRAM temporal
/// loop (order R..N inner to outer), keep as the hierarchy stores: the trivial valid-by-construction start.
ConvMapping trivialMapping(const ConvLayer& layer, const Hierarchy& h);

/// One temporal loop of the nest.
struct NestLoop {
  int dim, level;
  std::int64_t bound;
};
/// The temporal loops of levels >= `aboveLevel`, outermost first (DRAM's outer to inner, then the next
/// level's).
std::vector<NestLoop> temporalLoops(const ConvMapping& m, int aboveLevel = 0);

/// Extent of each dimension in the tile of level `level`: the product of its factors at levels 0..level. At
/// level 0 `perPe` leaves out the H and W slots (one PE's tile).
DimFactors tileExtents(const ConvMapping& m, int level, bool perPe = false);
/// Elements of tensor t in a tile of those extents (the input's sliding-window width and height).
std::int64_t tileElements(const ConvLayer& layer, const DimFactors& extent, int tensor);
/// Bytes of each tensor's tile at level lv (level 0: one PE's), whether the level keeps it or not.
std::array<std::int64_t, kTensors> levelTileBytes(const ConvLayer& layer, const ConvMapping& m, int lv);
/// Bytes the tensors m keeps at level lv occupy there (the capacity limit's sum), of levelTileBytes' sizes.
std::int64_t keptBytes(const ConvMapping& m, int lv, const std::array<std::int64_t, kTensors>& tileBytes);

/// Times level `level`'s tile of tensor t is (re)filled: the product of the bounds of the innermost loop
/// above the level that is relevant to t with a bound > 1 and every loop outside it (the reuse rule).
std::int64_t fills(const ConvMapping& m, int level, int tensor);
/// Distinct tiles of t at `level` over the whole layer (the product of relevant loops above it).
std::int64_t distinctTiles(const ConvMapping& m, int level, int tensor);

/// The highest level below DRAM that keeps the tensor (its DRAM child), or -1 when none does.
int dramChild(const ConvMapping& m, int tensor);

/// What the reuse rule (fills()) reads of one level's loop order: for the tensor its innermost loop is
/// irrelevant to, the run of loops irrelevant to that tensor the order opens with (each dimension is
/// irrelevant to exactly one tensor, so the other two spare no loop of the level). The run's dimensions as a
/// bit mask; 0 for an empty order.
int reuseClass(const std::vector<int>& order);
/// One order (inner to outer) of the loops `dims` per reuseClass: the first of each in lexicographic order.
std::vector<std::vector<int>> ordersOfDistinctReuse(std::vector<int> dims);
/// True when the model reads level `level`'s loop order through fills() alone, so that orders of one
/// reuseClass cost the same to the cycle and the picojoule: the level lies between the PE buffers and DRAM
/// and is at or below every tensor's DRAM child (the row activations read the loops above that child in
/// full).
bool orderSetsOnlyReuse(const ConvMapping& m, int level);

/// Window positions of a row-aligned input's DRAM tiles the model walks: (Q/eQ)(S/eS)(P/eP)(R/eR).
std::int64_t inputWindowPositions(const ConvLayer& layer, const ConvMapping& m);
/// The most the model walks (10^7, docs/knobs.md): a mapping above it is refused with the "model" limit.
inline constexpr std::int64_t kMaxWindowPositions = 10'000'000;

/// Iterations of the temporal loops of levels >= 1: what the trace simulator walks (as a double: it may pass
/// int64 on absurd mappings, which callers refuse by it).
double traceIterations(const ConvMapping& m);

/// Product of the spatial factors in slot s at level 0.
std::int64_t spatialProduct(const ConvMapping& m, int slot);

/// Every limit the mapping breaks (factorisation, PE array, spatial rules, capacity, bypass, order, layout),
/// each with a short key and a message naming the level, dimension and sizes. Empty = valid.
std::vector<LimitViolation> violations(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m);
/// violations(m).empty(), without building a message: what the mappers ask of every candidate.
bool isValid(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m);

/// Compact loop-nest label: "PEBuffer:H K4 W P14,Q4 T C8 | GlobalBuffer: K4 | LocalDRAM: P4,C8" (each level's
/// temporal loops outer to inner; factors of 1 omitted).
std::string mappingLabel(const Hierarchy& h, const ConvMapping& m);
/// The loop nest as pseudo-code (pimopt 9.3), outermost first, one loop per line.
std::string loopNestText(const Hierarchy& h, const ConvMapping& m);

}  // namespace pim::convmap
