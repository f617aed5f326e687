// SPDX-License-Identifier: Apache-2.0
#pragma once
// AttAcc vendor command programs (attacc.md "Vendor data layout", dcc-backends.md vendor tilings) for ONE
// HBM3 stack (16 channels); the device's 5 stacks run in parallel, so heads/batch are first divided by 5.
#include <cstdint>

#include "sim/config.h"
#include "sim/program.h"

namespace pim::sim {

constexpr int kAttaccStacks = 5;
constexpr int kAttaccChannels = 16;

// Decode attention, K and V resident in the banks. Heads per stack = ceil(B*H/5), spread over 16 channels.
Program attaccDecodeAttention(const DeviceConfig& cfg, int64_t batch, int64_t heads, int64_t len,
                              int64_t headDim = 128);
// Decode GEMV (batch*heads independent [rows x cols] matrix-vector products), DCC vendor tiling: heads over
// channels, `cols` (head dim) over 4 banks, `rows` (sequence) over 16 bank groups. Best effort.
Program attaccGemv(const DeviceConfig& cfg, int64_t batchHeads, int64_t rows, int64_t cols);

}  // namespace pim::sim
