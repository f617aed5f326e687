// SPDX-License-Identifier: Apache-2.0
// Builds the simulator's device description from a DRAM-PIM backend's declared parameters (the backend JSON
// files are the only description of a device), so that what-if edits of a backend reach the timing engine.
#pragma once
#include "engine/core/evaluation.h"
#include "engine/hw/backend.h"
#include "sim/config.h"

namespace pim {

struct DramPimDevice;

/// One simulated channel of `b` is one PIM group (a pseudo-channel for hbm2-pim, an HBM3 channel of two
/// pseudo-channels for attacc/hbm-pim). Throws InputError when `b` is not a DRAM-PIM backend or a parameter
/// its device needs is missing.
sim::DeviceConfig deviceConfigFor(const Backend& b, const SimSettings& s = {});
/// The same, for a known device.
sim::DeviceConfig deviceConfigFor(const Backend& b, const SimSettings& s, const DramPimDevice& device);

/// pim.<name> of `b`, or InputError naming the file and the field.
double pimParameter(const Backend& b, const char* name);

}  // namespace pim
