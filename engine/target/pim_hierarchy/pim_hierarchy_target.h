// SPDX-License-Identifier: Apache-2.0
// The pim-hierarchy family: one conv or FC layer mapped onto a DRAM-PIM memory hierarchy by PIM Optimizer's
// model (engine/convmap, docs/convmap.md), on the target seam so that explore, simulate, compare and the
// window show conv mappings through their usual views.
#pragma once
#include <memory>

#include "engine/target/target.h"

namespace pim {

std::unique_ptr<ITarget> makePimHierarchyTarget();

}  // namespace pim
