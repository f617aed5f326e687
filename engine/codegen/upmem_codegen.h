// SPDX-License-Identifier: Apache-2.0
// UPMEM code generation (upmem.md; PrIM's kernel structure): a draft says which DPUs hold which tiles; this
// turns it into what the host and the DPUs run, as the DPU model takes it (sim/dpu/): the host plan
// (CPU->DPU transfers, one launch, DPU->CPU transfers, the host's merge of partial results) and each DPU's
// per-tasklet program, from instruction templates per statement kind and element type.
//
// The templates follow the loops CoMoNM traced from dpu-clang (upmem.md, "Traced loop bodies"):
// - element-wise (nothing reduced): tasklets stride over blocks of `blockBytes`; per block 13 instructions,
//   one mram_read per streamed operand and one mram_write; per element 2 instructions per streamed operand
//   (address and load), the operation's instructions, 2 for the store and 2 for index and branch (vector
//   add: 9);
// - reduction (a loop variable the target does not use): per element 2 per streamed operand, the
//   operation, the accumulation and 1 branch (GEMV: 6 plus the multiply). Where a DPU holds at least as many
//   outputs as tasklets, tasklets take outputs (in groups that keep the 8-B aligned write, as PrIM's GEMV
//   takes rows in pairs) and stream each one's operands; otherwise tasklets split each reduction over
//   blocks, meet at a barrier and tasklet 0 adds the partial sums (PrIM's RED).
// Every operand is streamed in the order the DPU reads it: the host lays each DPU's tile out that way when
// it transfers it. Partial results of a reduction split over DPUs are added by the host.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/codegen/upmem_intrinsics.h"
#include "engine/codegen/upmem_kernel_builder.h"
#include "engine/common/error.h"
#include "engine/core/problem.h"
#include "sim/dpu/host_plan.h"

namespace pim {

/// The kernel-level choices of a schedule beside its draft, and the limits they must respect.
struct UpmemCodegenOptions {
  int tasklets = 16;        // launched per DPU (PrIM: NR_TASKLETS)
  int blockBytes = 1024;    // WRAM block per streamed operand and tasklet, one DMA (PrIM: 2^BL)
  int mulOperandBits = 31;  // significant bits of a 32-bit multiply's smaller operand
  int hwMulInstructions =
      0;  // > 0: integer multiplies (up to 32 bits) on a hardware multiplier, this many slots
  std::int64_t stackBytes = 256;
  double hostMergeGops = 1;  // host additions of partial results per ns
  /// How a DPU's tasklets share a reduction kernel's work (element-wise kernels always deal blocks).
  TaskletSplit split = TaskletSplit::Auto;
  /// PrIM's hand-written loops (the vendor baselines), or generated ones with IMTP's passes.
  KernelStyle style;
  /// PrIM's RED reads back every tasklet's result record (dpu_results_t, 16 B), not only the DPU's sum, and
  /// the host adds them (upmem.md, PrIM's configurations); 0: a DPU's outputs only.
  int taskletResultBytes = 0;
  /// select and unique: the fraction of the values kept (data dependent; PrIM's SEL and UNI inputs keep half,
  /// upmem.md).
  double keptFraction = 0.5;
  /// hist: one histogram per DPU, each increment under a mutex (PrIM's HST-L), instead of one per tasklet
  /// merged after a barrier (HST-S).
  bool sharedHistogram = false;
  /// prefix split over DPUs: reduce first, then scan with the host's offsets (PrIM's SCAN-RSS), instead of
  /// scan first, then add them (SCAN-SSA).
  bool scanReducesFirst = false;
  // Limits (the verifier's, upmem.md).
  int maxTasklets = 24;
  std::int64_t wramBytes = 65536, mramBytes = std::int64_t{64} << 20;
  int dmaMaxBytes = 2048;
  int dpusPerRank = 64;
};

/// What one schedule runs, with what the listing and statistics need beside the plan.
struct UpmemProgram {
  sim::dpu::HostPlan plan;
  int dpusUsed = 0;                 // DPUs given work
  int tasklets = 0;                 // launched per DPU
  std::int64_t wramBytes = 0;       // per DPU: blocks and stacks
  std::int64_t mramBytes = 0;       // largest per-DPU share of every tensor
  std::int64_t tileBytes = 0;       // bytes the host moves without padding (the tensors' tiles)
  std::int64_t mergedPartials = 0;  // partial results the host adds
  /// Per Launch step of the plan, in order, per distinct kernel of it (its `kernels`): what its loops do.
  std::vector<std::vector<LoopCounts>> kernelLoops;
  std::vector<std::string> notes;  // one line per step of the plan, in order
};

/// The DPU's arithmetic for an element type (16-bit floats are refused before this is asked).
sim::dpu::DpuType upmemDpuType(DType t);

/// The options of the data-dependent intrinsics' templates under `o`.
IntrinsicCodegen intrinsicCodegen(const UpmemCodegenOptions& o);

/// The verifier (upmem.md, "Limits a mapping must respect"): every limit draft `d` of `p` breaks under `o`
/// (tasklets, DMA size of the block, WRAM, MRAM per DPU), each with its value; empty when it can run. It maps
/// the draft but builds no program; lowerUpmem refuses the same list.
std::vector<LimitViolation> upmemViolations(const Problem& p, const Draft& d, const UpmemCodegenOptions& o);

/// Each statement of `k` as the templates see it under `o` (its loops, streamed operands, instructions per
/// element, block): what lowerUpmem builds programs from, for estimates that build none.
std::vector<StatementShape> upmemStatementShapes(const Kernel& k, const UpmemCodegenOptions& o);
/// WRAM a DPU needs under `o`: per tasklet a block for each buffer of the statement with the most, and a
/// stack.
std::int64_t upmemWramBytes(const std::vector<StatementShape>& shapes, const UpmemCodegenOptions& o);

/// Why `k` has no UPMEM program (an operation without a template, a 16-bit float type), empty if it has one.
std::string upmemUnsupportedReason(const Kernel& k);

/// The program of draft `d` of `p`. Throws LimitError with every limit the schedule breaks (tasklets,
/// WRAM, MRAM, DMA size), InputError when the kernel has no UPMEM program.
UpmemProgram lowerUpmem(const Problem& p, const Draft& d, const UpmemCodegenOptions& o);

/// The host plan and the program of the busiest DPU's tasklet 0, readable; at most `maxLines` lines.
std::string upmemListing(const UpmemProgram& prog, std::size_t maxLines);

}  // namespace pim
