// SPDX-License-Identifier: Apache-2.0
// The classroom's pictures (issue 17, item 10): one drawing per walkthrough step, made from the same engine
// objects as the step's tables, for a student who read DCC section 4.2. Drawn into a QImage (safe on the pool
// thread that builds a walkthrough). Each picture also reports what it drew (`drawn`), so tests can hold the
// drawing to the engine's counts.
#pragma once
#include <QImage>
#include <cstdint>
#include <map>
#include <string>

#include "engine/core/evaluation.h"
#include "engine/mapping/bank_layout.h"
#include "engine/prune/pruner.h"
#include "engine/schedule/draft_space.h"

namespace pimgui {

struct WalkthroughPicture {
  QImage image;
  std::map<std::string, std::uint64_t> drawn;
};

/// Width every picture is drawn at (the classroom's text column).
inline constexpr int kPictureWidth = 760;
/// The allocation trees draw at most this many chains each; the draft grid at most this many drafts.
inline constexpr std::size_t kMaxTreeLeaves = 24;
inline constexpr std::uint64_t kMaxGridDrafts = 2048;

/// Tensor dimensions (left) joined to the loop variables their index functions use (right), coloured by
/// dimension set. drawn: graph_dims, graph_vars, graph_edges.
WalkthroughPicture dimensionGraphPicture(const pim::DraftSpace& space);
/// The allocation search as two trees, groups and cores: a level per part, a node per choice, a leaf per
/// chain. drawn: tree_group_leaves, tree_core_leaves.
WalkthroughPicture allocationTreePicture(const pim::DraftSpace& space);
/// The first drafts in id order as a grid of cells, kept or coloured by the rule that removes them, `follow`
/// outlined. drawn: grid_cells, grid_kept.
WalkthroughPicture draftGridPicture(const pim::DraftSpace& space, const pim::Pruner& pruner,
                                    std::uint64_t follow);
/// One tensor's index plane with each core's tile of draft `d`, under indexing strategies (i) expand and
/// (ii) exact side by side. drawn: tiles_cores, tiles_tensor (its index in the kernel).
WalkthroughPicture tilesPicture(const pim::DraftSpace& space, const pim::Draft& d);
/// The used pseudo-channels' banks, coloured by PIM group, shaded by bytes placed, padding hatched.
/// drawn: layout_banks_used.
WalkthroughPicture bankLayoutPicture(const pim::BankLayout& layout);
/// The three phases on a time axis. drawn: timeline_cycles.
WalkthroughPicture timelinePicture(const pim::Evaluation& e);

}  // namespace pimgui
