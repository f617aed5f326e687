// SPDX-License-Identifier: Apache-2.0
// GPU-only execution on the host a PIM family sits beside: attacc.md's A100 model, analytic.
#pragma once
#include "engine/target/target.h"

namespace pim {

/// The A100 beside AttAcc and DCC's HBM-PIM (attacc.md): decode attention and GEMV by its kernels, anything
/// else as memory-bound (inputs read and outputs written once).
Baseline a100Baseline(const Problem& p);

}  // namespace pim
