// SPDX-License-Identifier: Apache-2.0
// Pieces the DRAM-PIM devices' vendor baselines share: the vendor tiling of dcc-backends.md as a draft, the
// evaluation of a vendor command program, and a dimension's size by name.
#pragma once
#include <cstdint>
#include <optional>

#include "engine/target/target.h"
#include "sim/config.h"
#include "sim/result.h"

namespace pim {

/// The vendor tiling of dcc-backends.md as a draft of `p`'s space, if the kernel has that shape.
std::optional<Draft> vendorTilingDraft(const Problem& p);

/// "AttAcc's data distribution" (dcc-backends.md): the vendor tiling as a draft, evaluated by `self`.
Baseline vendorTilingBaseline(const ITarget& self, const Problem& p, const EvalOptions& o,
                              const sim::DeviceConfig& device);

/// The breakdown, energy and statistics of a simulated vendor command program on `b`.
Evaluation vendorEvaluation(const sim::Result& r, double tCKns, const Backend& b);

}  // namespace pim
