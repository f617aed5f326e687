// SPDX-License-Identifier: Apache-2.0
#pragma once
// What one UPMEM DPU runs, as its timing model sees it (upmem.md; CoMoNM's virtual CNM assembly): per tasklet
// a sequence of steps, loops keeping their trip counts. A step is a run of pipeline instructions (an emulated
// operation is its instruction count: CoMoNM's measured cost divided by the 11-cycle same-tasklet gap), an
// MRAM<->WRAM DMA of a byte count, a barrier over every tasklet of the DPU, or a handshake: the SDK's
// handshake_wait_for(t - 1) then handshake_notify(), so tasklet t passes its k-th handshake only after
// tasklet t - 1 passed its own k-th (or ended); a chain over the tasklets, as PrIM's SEL, UNI and SCAN pass a
// running count or sum from each tasklet to the next.
#include <cstdint>
#include <vector>

namespace pim::sim::dpu {

struct Step {
  enum class Kind : std::uint8_t { Issue, Dma, Barrier, Loop, Handshake, Lock, Unlock };
  Kind kind = Kind::Issue;
  std::int64_t count = 1;  // Issue: instructions; Loop: trips
  std::int32_t bytes = 0;  // Dma: bytes moved (8..2,048, a multiple of 8)
  bool toMram = false;     // Dma: a write WRAM -> MRAM (else a read MRAM -> WRAM)
  std::vector<Step> body;  // Loop
  std::int32_t mutex = 0;  // Lock, Unlock: which mutex of the DPU
  bool operator==(const Step&) const = default;

  static Step issue(std::int64_t instructions) { return {Kind::Issue, instructions, 0, false, {}}; }
  static Step mramRead(std::int32_t bytes) { return {Kind::Dma, 1, bytes, false, {}}; }
  static Step mramWrite(std::int32_t bytes) { return {Kind::Dma, 1, bytes, true, {}}; }
  static Step barrier() { return {Kind::Barrier, 1, 0, false, {}}; }
  static Step handshake() { return {Kind::Handshake, 1, 0, false, {}}; }
  static Step lock(std::int32_t mutex) { return {Kind::Lock, 1, 0, false, {}, mutex}; }
  static Step unlock(std::int32_t mutex) { return {Kind::Unlock, 1, 0, false, {}, mutex}; }
  static Step loop(std::int64_t trips, std::vector<Step> body) {
    return {Kind::Loop, trips, 0, false, std::move(body)};
  }
};

using TaskletProgram = std::vector<Step>;

/// One launch on one DPU: a program per tasklet (tasklets of a PrIM kernel run the same code on their share).
struct DpuKernel {
  std::vector<TaskletProgram> tasklets;
  bool operator==(const DpuKernel&) const = default;
};

}  // namespace pim::sim::dpu
