// SPDX-License-Identifier: Apache-2.0
// The KV-cache append of a decode step on a DRAM-PIM backend: the new token's K and V rows written into the
// resident cache in the layout attention reads them in (AttAcc's vendor layout, attacc.md: a sequence's
// tokens over the pseudo-channels, ranks and bank groups of its channel, a token's head dimension over the
// banks of one bank group). The host writes them with ordinary DRAM commands; this model counts those
// commands and times them with the backend's JEDEC timing (docs/llm.md, "KV-cache append").
#pragma once
#include <cstdint>

#include "engine/hw/backend.h"

namespace pim::llm {

struct KvAppendCost {
  std::int64_t headsPerChannel = 0;  // attention instances (sequence x head) a busiest channel holds
  std::int64_t writesPerHead = 0;    // 32-B column writes of one token's K and V rows
  std::int64_t activationsPerHead = 0;
  std::int64_t cycles = 0;  // the busiest channel, first ACT to last precharge
  double ns = 0;
  double energyPj = 0;     // every channel of every device
  const char* bound = "";  // "activations (tFAW)", "data bus", "column spacing (tCCD_L)"
};

/// Appending one token to `instances` = batch x heads attention instances of `headDim` elements of `bytes`
/// each, spread over every channel of `b`'s devices. Throws InputError when the backend has no DRAM timing.
KvAppendCost kvAppendCost(const Backend& b, std::int64_t instances, std::int64_t headDim, int bytes);

}  // namespace pim::llm
