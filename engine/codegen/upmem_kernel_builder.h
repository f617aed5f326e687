// SPDX-License-Identifier: Apache-2.0
// The per-tasklet loops of one UPMEM statement on one DPU (engine/codegen/upmem_codegen.h has the templates'
// sources), and how they meet the edges of their tiles.
//
// PrIM's hand-written kernels size each block's DMA and loop to what is left, with no guard. Generated
// tensor programs (IMTP section 5.3) tile every loop by a fixed size and put a boundary check (a guard) in
// every loop whose extent the tile does not divide; three passes, each switchable, then remove or hoist them:
// - DMA-aware guard elimination (5.3.1): WRAM copy loops lose their guards (MRAM is padded to whole tiles),
//   so each becomes one DMA of a whole tile; off, operands are copied element by element, one 8-B MRAM
//   access each;
// - loop-bound tightening (5.3.2): a guard on the loop's own variable becomes its bound, so the last tile
//   runs only its valid iterations; off, every iteration of every tile checks it;
// - invariant branch hoisting with partial dead-code elimination (5.3.3): the guard on an output row that
//   may lie past the extent (rows go in groups that keep the 8-B aligned write) is checked once per row,
//   outside its loops, and a dead row skips its DMAs and computes; off, every compute iteration checks it
//   and a dead row runs its copies and loop anyway.
// A guard is one dynamic branch, one issue slot (upmem.md; IMTP section 3).
#pragma once
#include <algorithm>
#include <compare>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "engine/core/evaluation.h"
#include "engine/kernel/intrinsics.h"
#include "sim/dpu/dpu_program.h"

namespace pim {

/// Per streamed operand and element: its address and its load (upmem.md, "Traced loop bodies").
inline constexpr std::int64_t kUpmemOperandInstructions = 2;
/// Per block: the mram_read/_write calls and their addresses (upmem.md, VectorOp.py).
inline constexpr std::int64_t kUpmemBlockInstructions = 13;
/// Per output of a reduction: clearing and storing its accumulator (assumed: no trace).
inline constexpr std::int64_t kUpmemOutputInstructions = 2;

/// What a kernel's loops do, as IMTP counts it (Fig. 8): compute-loop iterations (those whose guard fails
/// included), dynamic guards, MRAM<->WRAM transfers.
struct LoopCounts {
  std::int64_t iterations = 0, guards = 0, dmaReads = 0, dmaWrites = 0;
  LoopCounts& operator+=(const LoopCounts& o);
  LoopCounts times(std::int64_t n) const;
  bool operator==(const LoopCounts&) const = default;
};

/// Tasklet `t` of `T` taking blocks t, t + T, ... of `perBlock` of `elements` (the last may be short): its
/// (full blocks, elements of its short last block or 0).
std::pair<std::int64_t, std::int64_t> taskletBlocks(std::int64_t elements, std::int64_t perBlock, int t,
                                                    int T);

/// Steps of a tasklet's program with what they count, as the templates build them.
struct EmittedSteps {
  std::vector<sim::dpu::Step> steps;
  LoopCounts counts;

  void add(const EmittedSteps& e);
  void issue(std::int64_t n);                 // n instructions (none when n <= 0)
  void guards(std::int64_t n);                // n dynamic guards, one instruction each
  void dma(std::int64_t bytes, bool toMram);  // `bytes` rounded up to 8 (the SDK's unit)
  /// `bytes` (rounded up to 8) in DMAs of at most `dmaMax`.
  void dmaSplit(std::int64_t bytes, bool toMram, std::int64_t dmaMax);
  /// `body` once per trip (inline when once).
  static EmittedSteps repeated(std::int64_t trips, const EmittedSteps& body);
};

/// How the outputs of a reduction share one of its operands: what keeping the operand in WRAM saves.
enum class OperandReuse : std::uint8_t {
  None,        // each output reads elements of its own (GEMV's matrix)
  AllOutputs,  // every output reads the same elements: no output loop in its index (GEMV's vector, TS's
               // query)
  Window,      // output i reads elements i .. i + reduced - 1: the index is `out + reduced` (TS's series)
  /// Indexed by some output loops, not all (GEMV's x[b][i] across o): every output of a DPU holding one value
  /// of each of those loops reads it whole, which StatementShape::onDpu turns into AllOutputs there, and
  /// where those loops are the outer ones, runs of consecutive outputs read it whole: PerRun there.
  SomeOutputs,
  /// Every output of a run of StatementShape::outputsPerRun consecutive outputs reads the same elements
  /// (GEMV's x[b][i] on a DPU holding several batches: a run is one batch's rows): a 2-D caching tile, read
  /// once per run.
  PerRun,
};

/// How a DPU's outputs share the SomeOutputs operands of a statement (StatementShape::sharingOnDpu), a bit
/// per operand (the first 64).
struct DpuSharing {
  std::uint64_t whole = 0;  // every output reads the same elements: its output loops hold one value here
  std::uint64_t runs = 0;   // runs of `run` consecutive outputs read the same elements
  std::int64_t run = 0;
  auto operator<=>(const DpuSharing&) const = default;  // a key of the kernels a launch shares
};

/// One statement as its template sees it.
struct StatementShape {
  std::vector<int> outLoops, reduceLoops;  // loop indices the target uses / does not use
  std::vector<int> streamedBytes;          // per operand read per element (the target's when it accumulates)
  std::vector<OperandReuse> reuse;         // per streamed operand
  std::vector<std::vector<int>> operandOutLoops;  // per streamed operand: the output loops in its index
  int keptOperands = 0;  // operands kept in WRAM instead (KernelStyle::cacheOperands)
  int scalars = 0;       // operands without a loop variable: loaded once
  int targetBytes = 4;
  std::int64_t perElement = 0;  // instructions per element
  std::int64_t accumulate = 0;  // instructions adding one partial result into another
  std::int64_t blockElements = 1;
  std::int64_t outputsPerRun = 0;      // PerRun operands' run (onDpu); 0 without them
  std::optional<Intrinsic> intrinsic;  // a data-dependent call (upmem_intrinsics.h builds it)
  bool scanReducesFirst = false;       // prefix: this launch only sums each DPU's values (SCAN-RSS's first)
  bool reduces() const { return !reduceLoops.empty(); }
  int buffers() const { return static_cast<int>(streamedBytes.size()) + (reduces() ? 0 : 1); }
  bool sharesOperands() const;    // some operand's reuse is AllOutputs, Window or PerRun
  bool mayShareOperands() const;  // ... or SomeOutputs: on some DPUs
  /// How the outputs of a DPU whose loop v spans `extent(v)` values share the SomeOutputs operands: whole
  /// where the DPU holds one value of each of its output loops; by runs where those of more than one value
  /// are the outer ones of outLoops' (the DPU's output order), a run being one value of them and its length
  /// the product of the inner ones (one length per statement: the first operand's).
  template <class Extent>
  DpuSharing sharingOnDpu(Extent extent) const {
    DpuSharing s;
    std::vector<int> varying;  // output loops of more than one value here, outer first
    for (int v : outLoops)
      if (extent(v) > 1) varying.push_back(v);
    for (std::size_t i = 0; i < reuse.size() && i < 64; ++i) {
      if (reuse[i] != OperandReuse::SomeOutputs) continue;
      std::size_t own = 0, deepest = 0;  // its loops of more than one value; the innermost's place + 1
      for (int v : operandOutLoops[i]) {
        if (extent(v) <= 1) continue;
        ++own;
        const auto at =
            static_cast<std::size_t>(std::find(varying.begin(), varying.end(), v) - varying.begin());
        deepest = std::max(deepest, at + 1);
      }
      const std::uint64_t bit = std::uint64_t{1} << i;
      if (own == 0) {
        s.whole |= bit;
        continue;
      }
      if (deepest != own || own == varying.size()) continue;  // not the outer loops, or all of them
      std::int64_t run = 1;
      for (std::size_t j = own; j < varying.size(); ++j) run *= extent(varying[j]);
      if (s.run != 0 && s.run != run) continue;
      s.run = run;
      s.runs |= bit;
    }
    return s;
  }
  /// The statement as a DPU with `sharing` (sharingOnDpu) runs it: its whole SomeOutputs operands AllOutputs,
  /// its run ones PerRun (outputsPerRun set), the other SomeOutputs ones None.
  StatementShape onDpu(const DpuSharing& sharing) const;
  /// Consecutive outputs whose window is read at once: a block's worth, in whole 8-B groups of outputs.
  std::int64_t windowRun() const;
};

/// How a DPU's tasklets share the work of a statement that reduces (IMTP's choice of where to rfactor).
enum class TaskletSplit : std::uint8_t {
  /// Tasklets take outputs where a DPU holds at least as many outputs as tasklets; otherwise they split
  /// each reduction, meet at a barrier and tasklet 0 adds their partial sums.
  Auto,
  /// PrIM's GEMV: tasklets take outputs whenever a DPU holds more than one, even fewer than tasklets (the
  /// rest idle); only a single output is split over tasklets (PrIM's RED).
  Outputs,
  /// Every reduction is split over the tasklets (a barrier and tasklet 0's sum per DPU), however many
  /// outputs a DPU holds.
  Reduction,
};

/// Whether `tasklets` tasklets of a DPU holding `outputs` outputs of a reducing statement take outputs under
/// `split` (else they split each reduction).
bool taskletsTakeOutputs(TaskletSplit split, std::int64_t outputs, std::int64_t tasklets);

struct KernelStyle {
  bool handWritten = false;  // PrIM's loops (blocks sized to what is left); else generated with `passes`
  BoundaryPasses passes;
  /// Where tasklets take outputs, the operands those outputs share stay in WRAM (PrIM's TS; CoMoNM's
  /// caching location per tensor): one read per tasklet of an operand every output reads whole, one window
  /// per run of a block's worth of consecutive outputs of an operand read shifted by one; the others are
  /// streamed per output as before. Off: every operand is streamed per output (PrIM's GEMV).
  bool cacheOperands = false;
};

class KernelBuilder {
 public:
  KernelBuilder(const StatementShape& sh, int tasklets, int dmaMax, TaskletSplit split, KernelStyle style)
      : m_sh(sh), m_T(tasklets), m_dmaMax(dmaMax), m_split(split), m_style(style) {}

  /// Appends the statement's work for one DPU (`outs` outputs, `reduced` elements each) to every tasklet;
  /// returns what every tasklet's loops do together.
  LoopCounts append(std::vector<sim::dpu::TaskletProgram>& tasklets, std::int64_t outs,
                    std::int64_t reduced) const;
  /// Whether tasklets take outputs (else they split each reduction) for a DPU of `outs` outputs.
  bool byOutputs(std::int64_t outs) const;
  /// Whether the statement keeps shared operands in WRAM for a DPU of `outs` outputs.
  bool caches(std::int64_t outs) const;
  /// WRAM per tasklet for the operands it keeps (0 unless caches(outs)): whole shared operands and windows.
  std::int64_t cachedWramPerTasklet(std::int64_t outs, std::int64_t reduced) const;

 private:
  using Emitted = EmittedSteps;
  Emitted cachedOutputs(std::int64_t outs, std::int64_t reduced, int t) const;
  Emitted copy(std::int64_t n, int bytes, bool tail, bool toMram) const;
  Emitted block(std::int64_t n, bool writes, bool tail, bool rowGuard, bool dead) const;
  Emitted streamBlocks(std::int64_t elements, int t, int T, bool writes, bool rowGuard, bool dead) const;
  Emitted outputGroups(std::int64_t outs, std::int64_t reduced, int t) const;
  Emitted write(std::int64_t bytes) const;

  const StatementShape& m_sh;
  int m_T;
  int m_dmaMax;
  TaskletSplit m_split;
  KernelStyle m_style;
};

}  // namespace pim
