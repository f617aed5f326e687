// SPDX-License-Identifier: Apache-2.0
#pragma once
// The parameters of one UPMEM DPU's timing model, as plain data with their sources (upmem.md). The defaults
// are the spec's v1A figures; the upmem target fills them from the backend file so what-if edits reach the
// model.
#include <array>
#include <cstdint>

namespace pim::sim::dpu {

/// MRAM<->WRAM DMA timing (upmem.md, "MRAM<->WRAM DMA"). The latency of a request is CoMoNM's calibrated
/// table (CoMoNM code, Simulation.h, kDmaLatency; a size between entries takes the next larger entry). How
/// long a request holds the engine's single queue is, by default, the contention law the spec derives from
/// CoMoNM's multi-tasklet measurements, 34 + 0.53 x bytes cycles: the table's service row cannot be right at
/// both ends (8 B: 33.06 cycles, where 24 tasklets of 8-B reads take 37.8 per request; 1,024 B: 467.5,
/// i.e. 2.19 B per cycle, above the 2 B per cycle peak). `serviceFromTable` selects the row instead.
struct DmaTable {
  static constexpr std::array<std::int32_t, 9> kBytes = {8, 16, 32, 64, 128, 256, 512, 1024, 2048};
  std::array<double, 9> loadLatency = {63.1, 68.3, 71.4, 96.2, 127.3, 195.2, 330.7, 617.1, 1195.1};
  std::array<double, 9> storeLatency = {55.7, 56.6, 64.3, 86.2, 119.3, 187.3, 325.5, 615.6, 1178.7};
  // The table's service row; no measurement at 2,048 B: the latency stands in.
  std::array<double, 9> loadService = {33.06, 42.82, 58.0, 68.43, 118.88, 177.88, 315.75, 467.5, 1195.1};
  std::array<double, 9> storeService = {23.13, 42.82, 58.0, 68.43, 105.13, 168.75, 305.75, 456.0, 1178.7};
  double serviceBase = 34, servicePerByte = 0.53;  // derived (upmem.md, contention law)
  bool serviceFromTable = false;

  static std::size_t entry(std::int32_t bytes) {
    std::size_t i = 0;
    while (i + 1 < kBytes.size() && kBytes[i] < bytes) ++i;
    return i;
  }
  double latency(std::int32_t bytes, bool toMram) const {
    return (toMram ? storeLatency : loadLatency)[entry(bytes)];
  }
  double service(std::int32_t bytes, bool toMram) const {
    if (!serviceFromTable) return serviceBase + servicePerByte * bytes;
    return (toMram ? storeService : loadService)[entry(bytes)];
  }
};

struct DpuConfig {
  double clockMHz = 350;           // v1A (SDK; CoMoNM VI-A)
  int sameTaskletGap = 11;         // cycles between two instructions of one tasklet (CoMoNM II-A; revolver)
  int maxTasklets = 24;            // v1A (SDK)
  DmaTable dma;                    // CoMoNM's table
  double barrierCoeff = 111.8924;  // barrier_wait = coeff * T^exp cycles (CoMoNM code, Simulation.h)
  double barrierExp = 1.1941;
  // How to simulate, not the hardware: take full revolver rounds (every live tasklet in a run of plain
  // instructions, at least sameTaskletGap of them) at once instead of instruction by instruction; the cycles
  // are the same (tests/test_dpu_engine.cpp compares both).
  bool batchRounds = true;
};

}  // namespace pim::sim::dpu
