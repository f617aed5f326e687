// SPDX-License-Identifier: Apache-2.0
// Pieces every family's code generator uses.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/codegen/lowering.h"

namespace pim::codegen {

/// 32-B bursts per bank that `elems` elements of tensor `t` take (a core's tile is split over its banks).
std::int64_t burstsPerBank(const LoweringInput& in, int t, std::int64_t elems);
/// Bursts of `elems` elements of tensor `t` as a whole (registers, buffers).
std::int64_t bursts(const LoweringInput& in, int t, std::int64_t elems);
/// True when the group's commands can be broadcast (backend support and the optimizer pass on).
bool useGroupCommands(const LoweringInput& in);
/// First statement kind the family cannot execute, as a reason; empty when all can run.
std::string firstUnsupported(const Kernel& k, bool elementwise, bool softmax,
                             const std::string& elementwiseWhy, const std::string& softmaxWhy);

}  // namespace pim::codegen
