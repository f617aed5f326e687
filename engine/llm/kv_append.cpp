// SPDX-License-Identifier: Apache-2.0
#include "engine/llm/kv_append.h"

#include <algorithm>
#include <string>

#include "engine/common/error.h"
#include "engine/common/int_math.h"

namespace pim::llm {

namespace {
double energyOf(const Backend& b, const char* key) {
  const auto it = b.energyPj.find(std::string("energy.") + key);
  return it == b.energyPj.end() ? 0.0 : it->second;
}
}  // namespace

KvAppendCost kvAppendCost(const Backend& b, std::int64_t instances, std::int64_t headDim, int bytes) {
  const DramTiming& t = b.timing;
  if (t.tFAW <= 0 || t.tRCDWR <= 0 || b.dram.columnBytes <= 0)
    throw InputError(b.name +
                     ": the KV-cache append needs DRAM timing (timing.tFAW, timing.tRCDWR) and "
                     "dram.columnBytes");
  KvAppendCost c;
  const std::int64_t channels = std::int64_t{b.system.devices} * b.group.groupsPerDevice;
  c.headsPerChannel = ceilDiv(instances, channels);
  // One token of one head: K and V rows of headDim elements, each over the banks of one bank group.
  const std::int64_t writesPerRow = ceilDiv(headDim * bytes, b.dram.columnBytes);
  const std::int64_t banksPerRow = std::min<std::int64_t>(b.dram.banksPerBankGroup, writesPerRow);
  c.writesPerHead = 2 * writesPerRow;
  // Attention closed every row (PREA) after reading: each bank written opens the token's row first.
  c.activationsPerHead = 2 * banksPerRow;
  // The step's token lands in the same slot (pseudo-channel, rank, bank group) for every head of a channel,
  // so one rank's activation window, one data bus and one bank group's column spacing carry all of it.
  const std::int64_t acts = c.headsPerChannel * c.activationsPerHead;
  const std::int64_t writes = c.headsPerChannel * c.writesPerHead;
  const std::int64_t actCycles = ceilDiv(acts, 4) * t.tFAW;
  const std::int64_t busCycles = writes * std::max(1, t.BL / 2);
  const std::int64_t ccdCycles = writes * std::max(t.tCCDL, 1);
  std::int64_t steady = actCycles;
  c.bound = "activations (tFAW)";
  if (busCycles > steady) steady = busCycles, c.bound = "data bus";
  if (ccdCycles > steady) steady = ccdCycles, c.bound = "column spacing (tCCD_L)";
  c.cycles = steady + t.tRCDWR + t.CWL + std::max(1, t.BL / 2) + t.tWR + t.tRP;
  c.ns = static_cast<double>(c.cycles) * b.dram.tCKns;
  const double perHead = static_cast<double>(c.activationsPerHead) * energyOf(b, "ACT") +
                         static_cast<double>(c.writesPerHead) * energyOf(b, "WR") +
                         static_cast<double>(2 * headDim * bytes) * energyOf(b, "HOST_IO_BYTE");
  c.energyPj = perHead * static_cast<double>(instances);
  return c;
}

}  // namespace pim::llm
