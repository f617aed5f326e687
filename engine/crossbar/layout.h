// SPDX-License-Identifier: Apache-2.0
// Crossbar compiler, step 3: the array groups of every replica and the cores they sit on
// (../shared/specs/crossbar.md, "AG to core mapping and placement"; pimcomp-nn CrossbarPartition.cpp,
// HierarchyMapping.cpp MapBaseline2/AllocateMapInfo, ElementPlacement.cpp mode 0).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/crossbar/accelerator.h"
#include "engine/crossbar/partition.h"

namespace pim::crossbar {

/// One array group: a band of `rows` matrix rows of one replica (or AGP part of one), spanning the part's
/// columns. Numbered network-wide in PIMCOMP-NN's order: layer, replica, band.
struct ArrayGroup {
  int layer = 0;                        // index in the plan's layers
  std::int64_t replica = 0;             // origin replica * agp + part
  std::int64_t part = 0;                // AGP part (0 unless the band is wider than a core)
  std::int64_t indexInReplica = 0;      // band 0..agsPerReplica-1 (matrix = index / bandsPerMatrix)
  std::int64_t rowStart = 0, rows = 0;  // its input: elements of the window (im2col) vector
  std::int64_t colStart = 0, cols = 0;  // the part's matrix columns: its output elements
  std::int64_t crossbars = 0;           // column arrays of the part
  std::int64_t core = -1;               // after placement
};

struct Layout {
  std::vector<ArrayGroup> ags;              // network-wide AG order
  std::vector<std::vector<int>> coreAgs;    // per core, its AGs in increasing index
  std::vector<std::int64_t> usedCrossbars;  // per core
};

/// Every AG of every replica: replicas[i] is layer i's count after the window cap and the AGP split.
std::vector<ArrayGroup> arrayGroups(const std::vector<LayerPartition>& layers,
                                    const std::vector<std::int64_t>& replicas, const Accelerator& acc);

/// PIMCOMP-NN's first fit: each AG in order goes to the lowest-numbered core with enough free crossbars.
/// Unlike PIMCOMP-NN, an AG that fits nowhere is an InputError naming the layer, replica and band.
Layout placeFirstFit(std::vector<ArrayGroup> ags, const std::vector<LayerPartition>& layers,
                     const Accelerator& acc, std::string_view network);

/// The placement rules' names, as CompilePlan::placement and the JSON give them and errors name them.
inline constexpr const char* kFirstFit = "first fit";
inline constexpr const char* kLargestFirst = "first fit, largest AGs first";

/// First fit with the AGs taken widest first (ties in network order): packs AGs several crossbars wide next
/// to narrow ones where node-order first fit has filled every core with narrow AGs before the wide ones come.
/// PIMCOMP-NN has no such step; compilePlan uses it only when node-order first fit cannot place one replica
/// per layer. Same error as placeFirstFit, naming the rule.
Layout placeLargestFirst(std::vector<ArrayGroup> ags, const std::vector<LayerPartition>& layers,
                         const Accelerator& acc, std::string_view network);

/// A layout from cores chosen elsewhere (a GA): checks every core index and capacity, throws InputError.
Layout placeOnCores(std::vector<ArrayGroup> ags, const std::vector<std::int64_t>& cores,
                    const std::vector<LayerPartition>& layers, const Accelerator& acc,
                    std::string_view network);

/// Virtual core -> physical core. PIMCOMP-NN's default flow (placement mode 0) is the identity, and its
/// communication-volume placement does not change the timing (hop costs are disabled), so only this exists.
std::vector<std::int64_t> identityPlacement(const Accelerator& acc);

}  // namespace pim::crossbar
