// SPDX-License-Identifier: Apache-2.0
#pragma once
// Timing of one launch on one UPMEM DPU (upmem.md; CoMoNM section V): the PIPELINE compute engine (one
// instruction issued per cycle, tasklets taken round robin, two instructions of one tasklet at least
// `sameTaskletGap` cycles apart) and the memory engine (one DMA queue: a request enters when the queue is
// free, completes its latency later and frees the queue its service interval after entering; the issuing
// tasklet blocks until its request completes while the others keep issuing). A barrier releases every tasklet
// at the last arrival plus its cost. Every instruction is simulated (no slices, no extrapolation).
#include <cstdint>
#include <vector>

#include "sim/dpu/dpu_config.h"
#include "sim/dpu/dpu_program.h"

namespace pim::sim::dpu {

struct DpuRun {
  double cycles = 0;              // from the first issue to the last tasklet's end
  std::int64_t instructions = 0;  // issue slots used (DMA and barrier calls included)
  std::int64_t dmaRequests = 0;
  std::int64_t dmaBytes = 0;
  std::int64_t barriers = 0;       // barrier releases
  std::vector<double> taskletEnd;  // per tasklet, when its last step ended
  double issueUse() const { return cycles > 0 ? static_cast<double>(instructions) / cycles : 0; }
};

/// Throws std::invalid_argument naming the problem when the kernel has no tasklet or more than the DPU runs,
/// or a DMA size outside 8..2,048 B or not a multiple of 8 (the SDK's rules).
DpuRun simulateDpu(const DpuConfig& cfg, const DpuKernel& kernel);

}  // namespace pim::sim::dpu
