// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/upmem_intrinsics.h"

#include <algorithm>
#include <cmath>

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
constexpr std::int64_t kHandshakeInstructions = 10;
// Per value: its address and load (2, as every template), the index add and loop branch (2).
constexpr std::int64_t kLoadInstructions = kUpmemOperandInstructions;
constexpr std::int64_t kLoopInstructions = 2;
// select: test the lowest bit and branch; unique: compare with the previous value, branch, keep it.
constexpr std::int64_t kSelectTest = 2, kUniqueTest = 3;
constexpr std::int64_t kKeepInstructions = 2;  // a kept value: store into the output block, count it
constexpr std::int64_t kStoreInstructions = 2;
// hist: the shift after the multiply; the counter's load, add and store.
constexpr std::int64_t kShift = 1, kCounter = 3;
// search: a probe's midpoint (add, shift, address) and the comparison of the key with the block's ends.
constexpr std::int64_t kMidpoint = 4, kProbeCompare = 4;

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
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
      e.dma(static_cast<std::int64_t>(n * bytes + 7) / 8 * 8, false);
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

Code histogram(const StatementShape& sh, const IntrinsicCodegen& o, std::int64_t bins, std::int64_t values,
               int t) {
  Code e;
  e.issue(bins * kStoreInstructions);  // clear the tasklet's own histogram
  const std::int64_t c = sh.blockElements;
  const int bytes = elementBytes(sh);
  // The multiply by the bins steps over the bin count's bits (the smaller operand), so it is priced here.
  const std::int64_t perValue =
      intrinsicPerElement(Intrinsic::Hist, DpuType::Int32, 0, histMultiplyBits(bins));
  auto block = [&](std::int64_t n) {
    Code b;
    b.issue(kUpmemBlockInstructions);
    b.dma((n * bytes + 7) / 8 * 8, false);
    b.issue(n * perValue);
    b.counts.iterations += n;
    return b;
  };
  const auto [full, last] = taskletBlocks(values, c, t, o.tasklets);
  e.add(Code::repeated(full, block(c)));
  if (last > 0) e.add(block(last));
  return e;
}

// After the barrier: tasklet t adds its share of the bins over every tasklet's histogram and writes it.
Code histogramMerge(const StatementShape& sh, const IntrinsicCodegen& o, std::int64_t bins, int t) {
  Code e;
  const auto [full, last] = taskletBlocks(bins, 1, t, o.tasklets);
  const std::int64_t mine = full + (last > 0 ? 1 : 0);
  e.issue(mine * (o.tasklets * (kLoadInstructions + 1) + kStoreInstructions));
  if (mine > 0) e.dmaSplit(mine * sh.targetBytes, true, o.dmaMax);
  return e;
}

Code searches(const StatementShape& sh, const IntrinsicCodegen& o, std::int64_t keys, std::int64_t tile,
              int t) {
  const std::int64_t c = sh.blockElements;
  const int bytes = elementBytes(sh);
  Code probe;
  probe.issue(kMidpoint);
  probe.dma(std::min<std::int64_t>(c, tile) * bytes, false);
  probe.issue(kProbeCompare);
  Code key;
  key.issue(kLoadInstructions + 2);  // the key and the bisection's bounds
  key.add(Code::repeated(log2Ceil(ceilDiv(tile, c)) + 1, probe));
  key.issue(log2Ceil(std::min(c, tile)) * kProbeCompare + kStoreInstructions);  // within the block, in WRAM
  ++key.counts.iterations;
  auto block = [&](std::int64_t n) {
    Code b;
    b.issue(kUpmemBlockInstructions);
    b.dma((n * bytes + 7) / 8 * 8, false);
    b.add(Code::repeated(n, key));
    b.dmaSplit(n * sh.targetBytes, true, o.dmaMax);
    return b;
  };
  const auto [full, last] = taskletBlocks(keys, c, t, o.tasklets);
  Code e = Code::repeated(full, block(c));
  if (last > 0) e.add(block(last));
  return e;
}

}  // namespace

int histMultiplyBits(std::int64_t bins) {
  return static_cast<int>(std::max<std::int64_t>(1, log2Ceil(bins + 1)));
}

std::int64_t intrinsicPerElement(Intrinsic id, DpuType t, double kept, int mulOperandBits) {
  const std::int64_t add = instructionsOf(DpuOp::Add, t) + (t == DpuType::Int64 ? 3 : 0);
  switch (id) {
    case Intrinsic::Select:
    case Intrinsic::Unique:
      return kLoadInstructions + (id == Intrinsic::Select ? kSelectTest : kUniqueTest) +
             static_cast<std::int64_t>(std::ceil(kKeepInstructions * kept)) + kLoopInstructions;
    case Intrinsic::Prefix:
      return kLoadInstructions + add + kStoreInstructions + kLoopInstructions;
    case Intrinsic::Hist:
      return kLoadInstructions + instructionsOf(DpuOp::Mul, DpuType::Int32, mulOperandBits) + kShift +
             kCounter + kLoopInstructions;
    case Intrinsic::Search:
      return 0;  // per key, not per value: searches() builds it
  }
  return 0;
}

LoopCounts appendIntrinsic(Intrinsic id, const StatementShape& sh, const IntrinsicCodegen& o,
                           std::vector<TaskletProgram>& tasklets, std::int64_t outs, std::int64_t reduced) {
  LoopCounts total;
  const std::int64_t addPerValue = kLoadInstructions + 1 + kStoreInstructions;
  std::vector<Code> code(tasklets.size());
  for (int t = 0; t < o.tasklets; ++t) {
    Code& e = code[static_cast<std::size_t>(t)];
    switch (id) {
      case Intrinsic::Select:
      case Intrinsic::Unique:
      case Intrinsic::Prefix:
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
  if (id == Intrinsic::Hist) {
    for (int t = 0; t < o.tasklets; ++t) {
      Code& e = code[static_cast<std::size_t>(t)];
      if (o.tasklets > 1) e.steps.push_back(Step::barrier());
      e.add(histogramMerge(sh, o, outs, t));
    }
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
  for (const TaskletProgram& p : tasklets) sim::dpu::countSteps(p, 1, r);
  return {static_cast<double>(r.instructions), static_cast<double>(r.dmaRequests),
          static_cast<double>(r.dmaBytes)};
}

std::int64_t intrinsicWramPerTasklet(Intrinsic id, const StatementShape& sh, std::int64_t outs) {
  return id == Intrinsic::Hist ? outs * sh.targetBytes : 0;
}

StatementShape prefixOffsetShape(const StatementShape& scan, DpuType t) {
  StatementShape sh;
  sh.outLoops = scan.outLoops;
  sh.streamedBytes = {elementBytes(scan)};
  sh.scalars = 1;  // the offset
  sh.targetBytes = scan.targetBytes;
  sh.perElement = kLoadInstructions + instructionsOf(DpuOp::Add, t) + kStoreInstructions + kLoopInstructions;
  sh.accumulate = instructionsOf(DpuOp::Add, t);
  sh.blockElements = scan.blockElements;
  return sh;
}

}  // namespace pim
