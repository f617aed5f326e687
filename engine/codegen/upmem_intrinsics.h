// SPDX-License-Identifier: Apache-2.0
// UPMEM templates of the data-dependent intrinsics (engine/kernel/intrinsics.h), after PrIM's kernels
// (upmem.md, "PrIM's configurations"):
// - select, unique (SEL, UNI): tasklets stride over blocks; per block a read, the filter, a handshake chain
//   over the tasklets that passes the running count of kept values, a barrier and the write of the kept
//   values; every tasklet runs as many iterations as the busiest (an empty one still meets the chain and the
//   barrier, as PrIM pads its input). The host reads each DPU's kept values serially (their counts differ).
// - prefix (SCAN-SSA): kernel 1 scans each block, passes the running sum down the handshake chain, meets a
//   barrier, adds what the tasklets before it summed and writes; the host reads each DPU's total, scans them
//   and sends each DPU its offset; kernel 2 adds it to every element. A scan held whole by one DPU needs no
//   second kernel, except in PrIM's own code, which always runs it.
// - hist (HST-S): a private histogram per tasklet in WRAM, cleared, then one counter incremented per value
//   (the bin is (value * bins) >> depth: a multiply and a shift); a barrier; each tasklet adds bins t,
//   t + T, ... over every tasklet's histogram; a barrier; tasklet 0 writes the DPU's histogram in DMAs of at
//   most 2,048 B; the host adds the DPUs' histograms. PrIM's HST-L instead shares one histogram per DPU:
//   tasklets clear it together, lock a mutex around each increment, and copy it out after the barrier.
// - search (BS): tasklets stride over blocks of keys; per key PrIM's bisection over the DPU's sorted tile:
//   the key read alone, the tile's first and last blocks, then one block read per probe, scanned when it
//   starts at or below the key, until the key's block is found.
// Instruction counts without a trace are assumptions, named where they are declared.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/codegen/upmem_kernel_builder.h"
#include "engine/kernel/intrinsics.h"
#include "sim/dpu/dpu_ops.h"

namespace pim {

/// Instructions one value of an intrinsic's main loop costs (StatementShape::perElement) in type `t`, a
/// fraction `kept` of the values kept (select, unique) and `mulOperandBits` in hist's multiply by the bins.
std::int64_t intrinsicPerElement(Intrinsic id, sim::dpu::DpuType t, double kept, int mulOperandBits);

/// The significant bits of hist's multiply by `bins` (__mulsi3 steps over the smaller operand: the bin count
/// where values are wider).
int histMultiplyBits(std::int64_t bins);

struct IntrinsicCodegen {
  int tasklets = 16;
  int dmaMax = 2048;
  double kept = 0.5;  // select, unique: fraction of the values kept (PrIM's inputs: half)
  bool handWritten = false;
  bool sharedHistogram = false;  // hist: PrIM's HST-L (one histogram, a mutex per increment)
};

/// Appends statement `sh` (it calls intrinsic `id`) on one DPU to every tasklet: `outs` outputs (select,
/// unique, prefix: the values along the loop; hist: the bins; search: the keys) and `reduced` steps each
/// (hist: the values counted; search: the sorted tile's length). Returns what the loops do.
LoopCounts appendIntrinsic(Intrinsic id, const StatementShape& sh, const IntrinsicCodegen& o,
                           std::vector<sim::dpu::TaskletProgram>& tasklets, std::int64_t outs,
                           std::int64_t reduced);

/// Per-DPU instructions and DMAs of the same, summed over tasklets, without building it (the estimate).
struct IntrinsicWork {
  double instructions = 0, dmas = 0, dmaBytes = 0;
  double barriers = 0, handshakes = 0;  // met by each tasklet (tasklet 0's program)
  double critical = 0;                  // instructions under a mutex, all tasklets together
  double busiestTasklet = 0;            // instructions of the tasklet with the most
  /// The handshake chain's instructions per pass (each tasklet's, one after another).
  static constexpr double kChainInstructions = 10;
};
IntrinsicWork intrinsicWork(Intrinsic id, const StatementShape& sh, const IntrinsicCodegen& o,
                            std::int64_t outs, std::int64_t reduced);

/// Extra WRAM per tasklet (hist's private histogram of `outs` bins, or its share of the shared one), beyond
/// the blocks and the stack.
std::int64_t intrinsicWramPerTasklet(Intrinsic id, const StatementShape& sh, const IntrinsicCodegen& o,
                                     std::int64_t outs);

/// The statement of SCAN-SSA's second kernel: every value plus the DPU's offset (an element-wise add of a
/// scalar), as the element-wise template builds it.
StatementShape prefixOffsetShape(const StatementShape& scan, sim::dpu::DpuType t);

}  // namespace pim
