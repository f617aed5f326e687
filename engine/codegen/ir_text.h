// SPDX-License-Identifier: Apache-2.0
// The DCC-style data-centric IR of a draft (DCC Table 2 and Fig. 7b): hardware_platform, complex_dimset with
// the representative, ranges, data_tile, compute_tile, tensor_tile, rearrange to_PIM_core/to_host,
// parallel_PIM and loop.
#pragma once
#include <string>

#include "engine/mapping/tile_mapping.h"

namespace pim {

/// Source form of a statement's right-hand side ("A[b][i] * B[i][k]"), with `suffix` after tensor names.
std::string exprText(const Kernel& k, const Expr& e, const std::string& suffix = "");
std::string statementText(const Kernel& k, const Statement& s, const std::string& suffix = "");

/// IR text of the mapped draft. Per-core lists longer than `maxListed` are elided in the middle.
std::string irText(const DraftSpace& space, const TileMapping& m, int maxListed = 16);

}  // namespace pim
