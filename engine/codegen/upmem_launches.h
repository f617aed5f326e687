// SPDX-License-Identifier: Apache-2.0
// Which statements of a kernel run in one UPMEM launch. DPUs cannot reach each other's MRAM (upmem.md), so a
// statement that reads, on some DPU, data an earlier statement wrote on another DPU cannot follow it in the
// same launch: the host reads the producer's tiles back (adding partial results where a reduction was split
// over DPUs), then sends each DPU the tile it reads, and a new launch starts (PrIM's MLP: "the host gathers a
// layer's output and pushes it ... before the next launch"). Statements whose reads stay on their own DPU
// share a launch, separated by a barrier.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/codegen/upmem_cores.h"
#include "engine/kernel/kernel.h"

namespace pim {

struct LaunchGroup {
  std::size_t first = 0, last = 0;  // statements [first, last)
  /// Tensors the host moves between the previous launch and this one: written by an earlier launch and
  /// read here on DPUs that did not write them.
  std::vector<int> exchanged;
};

/// The launches of `k` on `cores`, in order; one when every read is local.
std::vector<LaunchGroup> launchGroups(const Kernel& k, const UpmemCores& cores);

/// The index in Kernel::references() of statement `s`'s target.
std::size_t targetReference(const Kernel& k, std::size_t s);

/// The references of statement `s` that read tensor `t` (indices into Kernel::references()).
std::vector<std::size_t> readsOf(const Kernel& k, std::size_t s, int t);

}  // namespace pim
