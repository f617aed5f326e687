// SPDX-License-Identifier: Apache-2.0
#pragma once
// Slice simulation of a DPU launch (after CoMoNM Algorithm 1, upmem.md): a kernel whose tasklets each run one
// main loop is simulated on slices of that loop (1, 2, 4, ... iterations of the longest tasklet's loop, the
// others in proportion) until the cycles each added iteration costs are steady within alpha; the full length
// is extrapolated at that cost. Loops containing a barrier, and kernels not of that shape, are simulated in
// full.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/dpu/dpu_engine.h"

namespace pim::sim::dpu {

struct SlicedRun {
  DpuRun run;                   // counts scaled to the full length; cycles extrapolated
  bool sliced = false;          // false: simulated in full
  std::int64_t sliceTrips = 0;  // iterations of the longest main loop in the larger slice simulated
  std::int64_t fullTrips = 0;
};

/// Adds to `r` the instructions, DMA requests and bytes of `seq` run `times` times, counted from its steps
/// and trip counts (no timing).
void countSteps(const std::vector<Step>& seq, std::int64_t times, DpuRun& r);

/// Where a tasklet's program cannot be sliced, the reason (for the listing); empty when it can.
std::string sliceRefusal(const DpuKernel& kernel);

SlicedRun simulateDpuSliced(const DpuConfig& cfg, const DpuKernel& kernel, double alpha = 0.01);

}  // namespace pim::sim::dpu
