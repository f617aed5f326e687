// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/upmem_intrinsics.h"

#include <algorithm>
#include <cmath>

#include "engine/common/int_math.h"
#include "sim/dpu/dpu_slice.h"

namespace pim {
namespace {

using sim::dpu::DpuOp;
using sim::dpu::DpuType;
using sim::dpu::instructionsOf;
using sim::dpu::Step;
using sim::dpu::TaskletProgram;
using Code = EmittedSteps;

// Assumed (no trace; upmem.md leaves handshake costs open): handshake_wait_for and handshake_notify with the
// running count or sum passed between them.
constexpr auto kHandshakeInstructions = static_cast<std::int64_t>(IntrinsicWork::kChainInstructions);
// PrIM unrolls the block loops of SEL, UNI and SCAN (#pragma unroll over a block's values): a value is one
// load and one store at a constant offset, with no index or branch of its own (assumed: no trace).
constexpr std::int64_t kUnrolledLoad = 1, kUnrolledStore = 1;
// select: test the lowest bit and branch; unique: a 64-bit compare with the value kept last and its branch.
constexpr std::int64_t kSelectTest = 2, kUniqueTest = 3;
constexpr std::int64_t kKeepInstructions = 2;  // a kept value: its store and the count's increment
// hist's loop is not unrolled: a value's address and load (2, as every template), the shift after the
// multiply, the counter's address, load, add and store, the loop's index and branch.
constexpr std::int64_t kShift = 1, kCounter = 4, kLoopInstructions = 2;
// hist's merge: per bin and tasklet, the tasklet's histogram pointer, the counter's load, the add, the loop.
constexpr std::int64_t kMergeInstructions = 6;
// search (PrIM's BS): a probe's midpoint (add, shift, mask, address) and the scan of a block for the key,
// per value a load, a 64-bit compare, its branch and the loop's index and branch (assumed: no trace).
constexpr std::int64_t kMidpoint = 4, kScanPerValue = 6;

std::int64_t log2Ceil(std::int64_t n) {
  std::int64_t b = 0;
  while ((std::int64_t{1} << b) < n) ++b;
  return b;
}

int elementBytes(const StatementShape& sh) {
  return sh.streamedBytes.empty() ? sh.targetBytes : sh.streamedBytes[0];
}

// select, unique and prefix: every tasklet runs `iterations` passes of the chain, the first `full` with a
// whole block, then one with `last` values if any, the rest empty.
Code chained(const StatementShape& sh, Intrinsic id, const IntrinsicCodegen& o, std::int64_t values, int t,
             std::int64_t addPerValue) {
  const std::int64_t c = sh.blockElements;
  const int bytes = elementBytes(sh);
  const std::int64_t iterations = ceilDiv(ceilDiv(values, c), o.tasklets);
  auto pass = [&](std::int64_t n) {
    Code e;
    if (n > 0) {
      e.issue(kUpmemBlockInstructions);
      e.dma(n * bytes, false);
      e.issue(n * sh.perElement);
      e.counts.iterations += n;
    }
    e.issue(kHandshakeInstructions);
    e.steps.push_back(Step::handshake());
    if (o.tasklets > 1) e.steps.push_back(Step::barrier());
    if (n <= 0) return e;
    if (id == Intrinsic::Prefix) {
      e.issue(n * addPerValue);  // the sum of the tasklets before it, added to every value
      e.dmaSplit(n * bytes, true, o.dmaMax);
    } else {
      const auto kept = static_cast<std::int64_t>(std::ceil(static_cast<double>(n) * o.kept));
      if (kept > 0) e.dmaSplit(kept * bytes, true, o.dmaMax);
    }
    return e;
  };
  const auto [full, last] = taskletBlocks(values, c, t, o.tasklets);
  Code e = Code::repeated(full, pass(c));
  std::int64_t done = full;
  if (last > 0) {
    e.add(pass(last));
    ++done;
  }
  e.add(Code::repeated(iterations - done, pass(0)));
  return e;
}

// SCAN-RSS's first kernel: tasklets stride over blocks summing them (unrolled: load, add), meet at a
// barrier, and tasklet 0 adds their sums into the DPU's record for the host.
Code scanReduce(const StatementShape& sh, const IntrinsicCodegen& o, std::int64_t values, int t) {
  const std::int64_t c = sh.blockElements;
  const int bytes = elementBytes(sh);
  auto block = [&](std::int64_t n) {
    Code b;
    b.issue(kUpmemBlockInstructions);
    b.dma(n * bytes, false);
    b.issue(n * (kUnrolledLoad + sh.accumulate));
    b.counts.iterations += n;
    return b;
  };
  const auto [full, last] = taskletBlocks(values, c, t, o.tasklets);
  Code e = Code::repeated(full, block(c));
  if (last > 0) e.add(block(last));
  if (o.tasklets > 1) e.steps.push_back(Step::barrier());
  if (t == 0) e.issue(o.tasklets * (kUpmemOperandInstructions + sh.accumulate));
  return e;
}

Code histogram(const StatementShape& sh, const IntrinsicCodegen& o, std::int64_t bins, std::int64_t values,
               int t) {
  Code e;
  if (o.sharedHistogram) {  // HST-L: the tasklets clear the one histogram together
    const auto [full, last] = taskletBlocks(bins, 1, t, o.tasklets);
    e.issue((full + (last > 0 ? 1 : 0)) * (kUnrolledStore + kLoopInstructions));
    if (o.tasklets > 1) e.steps.push_back(Step::barrier());
  } else {
    e.issue(bins * (kUnrolledStore + kLoopInstructions));  // clear the tasklet's own histogram
  }
  const std::int64_t c = sh.blockElements;
  const int bytes = elementBytes(sh);
  // The multiply by the bins steps over the bin count's bits (the smaller operand), so it is priced here.
  const std::int64_t perValue =
      intrinsicPerElement(Intrinsic::Hist, DpuType::Int32, 0, histMultiplyBits(bins));
  Code value;  // HST-L: the counter's update between mutex_lock and mutex_unlock
  value.issue(perValue - kCounter - kLoopInstructions);
  value.steps.push_back(Step::lock(0));
  value.issue(kCounter);
  value.steps.push_back(Step::unlock(0));
  value.issue(kLoopInstructions);
  ++value.counts.iterations;
  auto block = [&](std::int64_t n) {
    Code b;
    b.issue(kUpmemBlockInstructions);
    b.dma(n * bytes, false);
    if (o.sharedHistogram) {
      b.add(Code::repeated(n, value));
    } else {
      b.issue(n * perValue);
      b.counts.iterations += n;
    }
    return b;
  };
  const auto [full, last] = taskletBlocks(values, c, t, o.tasklets);
  e.add(Code::repeated(full, block(c)));
  if (last > 0) e.add(block(last));
  return e;
}

// After the barrier: tasklet t adds bins t, t + T, ... over every histogram (one per tasklet, or HST-L's
// one) into the DPU's.
Code histogramMerge(const IntrinsicCodegen& o, std::int64_t bins, int t) {
  Code e;
  const auto [full, last] = taskletBlocks(bins, 1, t, o.tasklets);
  const std::int64_t histograms = o.sharedHistogram ? 1 : o.tasklets;
  e.issue((full + (last > 0 ? 1 : 0)) * (histograms * kMergeInstructions + kUnrolledStore));
  return e;
}

// PrIM's BS per key: the key read alone (8 B), the tile's first and last blocks, then a bisection over the
// tile's blocks, each probe reading one block and, when the block starts at or below the key (half of them),
// scanning it; the key's own block is scanned to the key (half a block); the position written alone (8 B;
// PrIM keeps only each tasklet's last). Tasklets take consecutive shares of the keys, as PrIM's slices.
Code searches(const StatementShape& sh, const IntrinsicCodegen& o, std::int64_t keys, std::int64_t tile,
              int t) {
  const std::int64_t c = std::min(sh.blockElements, tile);
  const std::int64_t block = c * elementBytes(sh);
  Code probe;
  probe.issue(kMidpoint);
  probe.dma(block, false);
  probe.issue(c * kScanPerValue / 2);
  Code key;
  key.dma(8, false);
  key.dma(block, false);
  key.dma(block, false);
  key.add(Code::repeated(log2Ceil(ceilDiv(tile, c)) + 1, probe));
  key.issue(c * kScanPerValue / 2 + kUnrolledStore);
  key.dma(8, true);
  ++key.counts.iterations;
  const auto [full, last] = taskletBlocks(keys, 1, t, o.tasklets);
  return Code::repeated(full + (last > 0 ? 1 : 0), key);
}

// Barriers and handshakes of one tasklet's program; instructions under a mutex (`locked`: inside one).
void countSyncs(const std::vector<Step>& seq, double times, IntrinsicWork& w, bool& locked) {
  for (const Step& s : seq) {
    if (s.kind == Step::Kind::Barrier) w.barriers += times;
    if (s.kind == Step::Kind::Handshake) w.handshakes += times;
    if (s.kind == Step::Kind::Lock) locked = true;
    if (s.kind == Step::Kind::Unlock) locked = false;
    if (s.kind == Step::Kind::Issue && locked) w.critical += times * static_cast<double>(s.count);
    if (s.kind == Step::Kind::Loop) countSyncs(s.body, times * static_cast<double>(s.count), w, locked);
  }
}

}  // namespace

int histMultiplyBits(std::int64_t bins) {
  return static_cast<int>(std::max<std::int64_t>(1, log2Ceil(bins + 1)));
}

std::int64_t intrinsicPerElement(Intrinsic id, DpuType t, double kept, int mulOperandBits) {
  const auto keep = static_cast<std::int64_t>(std::ceil(kKeepInstructions * kept));
  switch (id) {
    case Intrinsic::Select:
      return kUnrolledLoad + kSelectTest + keep;
    case Intrinsic::Unique:
      return kUnrolledLoad + kUniqueTest + keep;
    case Intrinsic::Prefix:  // the running sum stays in registers
      return kUnrolledLoad + instructionsOf(DpuOp::Add, t) + kUnrolledStore;
    case Intrinsic::Hist:
      return kUpmemOperandInstructions + instructionsOf(DpuOp::Mul, DpuType::Int32, mulOperandBits) + kShift +
             kCounter + kLoopInstructions;
    case Intrinsic::Search:
      return 0;  // per key, not per value: searches() builds it
  }
  return 0;
}

LoopCounts appendIntrinsic(Intrinsic id, const StatementShape& sh, const IntrinsicCodegen& o,
                           std::vector<TaskletProgram>& tasklets, std::int64_t outs, std::int64_t reduced) {
  LoopCounts total;
  // SCAN's second pass over a block: the sum of the tasklets before it added to every value.
  const std::int64_t addPerValue = kUnrolledLoad + sh.accumulate + kUnrolledStore;
  std::vector<Code> code(tasklets.size());
  for (int t = 0; t < o.tasklets; ++t) {
    Code& e = code[static_cast<std::size_t>(t)];
    switch (id) {
      case Intrinsic::Select:
      case Intrinsic::Unique:
      case Intrinsic::Prefix:
        if (sh.scanReducesFirst) {
          e = scanReduce(sh, o, outs, t);
          break;
        }
        e = chained(sh, id, o, outs, t, addPerValue);
        if (id == Intrinsic::Prefix && t == o.tasklets - 1) e.dma(8, true);  // the DPU's total, for the host
        break;
      case Intrinsic::Hist:
        e = histogram(sh, o, outs, reduced, t);
        break;
      case Intrinsic::Search:
        e = searches(sh, o, outs, reduced, t);
        break;
    }
  }
  if (id == Intrinsic::Hist) {  // merged, then written by tasklet 0 in DMAs of at most 2,048 B
    for (int t = 0; t < o.tasklets; ++t) {
      Code& e = code[static_cast<std::size_t>(t)];
      if (o.tasklets > 1) e.steps.push_back(Step::barrier());
      e.add(histogramMerge(o, outs, t));
      if (o.tasklets > 1) e.steps.push_back(Step::barrier());
    }
    code.front().dmaSplit(outs * sh.targetBytes, true, o.dmaMax);
  }
  for (std::size_t t = 0; t < tasklets.size(); ++t) {
    tasklets[t].insert(tasklets[t].end(), code[t].steps.begin(), code[t].steps.end());
    total += code[t].counts;
  }
  return total;
}

IntrinsicWork intrinsicWork(Intrinsic id, const StatementShape& sh, const IntrinsicCodegen& o,
                            std::int64_t outs, std::int64_t reduced) {
  std::vector<TaskletProgram> tasklets(static_cast<std::size_t>(o.tasklets));
  appendIntrinsic(id, sh, o, tasklets, outs, reduced);
  sim::dpu::DpuRun r;
  double busiest = 0;
  for (const TaskletProgram& p : tasklets) {
    const std::int64_t before = r.instructions;
    sim::dpu::countSteps(p, 1, r);
    busiest = std::max(busiest, static_cast<double>(r.instructions - before));
  }
  IntrinsicWork w{static_cast<double>(r.instructions), static_cast<double>(r.dmaRequests),
                  static_cast<double>(r.dmaBytes)};
  w.busiestTasklet = busiest;
  bool locked = false;
  countSyncs(tasklets.front(), 1, w, locked);
  w.critical *= o.tasklets;  // every tasklet's increments pass through the one mutex
  return w;
}

std::int64_t intrinsicWramPerTasklet(Intrinsic id, const StatementShape& sh, const IntrinsicCodegen& o,
                                     std::int64_t outs) {
  if (id != Intrinsic::Hist) return 0;
  return o.sharedHistogram ? ceilDiv(outs * sh.targetBytes, o.tasklets) : outs * sh.targetBytes;
}

StatementShape prefixOffsetShape(const StatementShape& scan, DpuType t) {
  StatementShape sh;
  sh.outLoops = scan.outLoops;
  sh.streamedBytes = {elementBytes(scan)};
  sh.scalars = 1;  // the offset
  sh.targetBytes = scan.targetBytes;
  sh.perElement = kUnrolledLoad + instructionsOf(DpuOp::Add, t) + kUnrolledStore;  // PrIM's add(), unrolled
  sh.accumulate = instructionsOf(DpuOp::Add, t);
  sh.blockElements = scan.blockElements;
  return sh;
}

}  // namespace pim
