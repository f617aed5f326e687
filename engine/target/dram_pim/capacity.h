// SPDX-License-Identifier: Apache-2.0
// Whether a problem's data can fit the PIM regions of a DRAM-PIM backend's banks at all, before any draft is
// generated: a shape that cannot fit is refused with the numbers instead of failing draft by draft.
#pragma once
#include <optional>
#include <string>

#include "engine/core/problem.h"

namespace pim {

/// Why `p` cannot fit, or nullopt. Necessary, not sufficient: every tensor is counted once (a draft may
/// replicate a broadcast tensor or pad tiles, and then needs more), against the PIM region of every bank that
/// holds a core's data (the lower half of its rows; engine/codegen/work.cpp places tiles there).
std::optional<std::string> capacityReason(const Problem& p);

}  // namespace pim
