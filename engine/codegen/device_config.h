// SPDX-License-Identifier: Apache-2.0
// Builds the simulator's device description from a backend's declared parameters, so that what-if edits of a
// backend reach the timing engine.
#pragma once
#include "engine/core/evaluation.h"
#include "engine/hw/backend.h"
#include "sim/config.h"

namespace pim {

/// One simulated channel of `b` is one PIM group (a pseudo-channel for hbm2-pim, an HBM3 channel of two
/// pseudo-channels for attacc/hbm-pim). Throws InputError when a parameter the family needs is missing.
sim::DeviceConfig deviceConfigFor(const Backend& b, const SimSettings& s = {});

}  // namespace pim
