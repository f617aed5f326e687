// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/upmem_kernel_builder.h"

#include <algorithm>
#include <utility>

#include "engine/common/int_math.h"

namespace pim {
namespace {

using sim::dpu::Step;
using sim::dpu::TaskletProgram;

// The templates' instruction counts (upmem.md, "Traced loop bodies"; upmem_codegen.h).
// Assumed (no trace): loading a scalar operand; copying one element between WRAM and an MRAM access (address
// and store) when a copy loop is not one DMA.
constexpr std::int64_t kScalarInstructions = 2;
constexpr std::int64_t kCopyInstructions = 2;
constexpr std::int32_t kMramAccessBytes = 8;  // the smallest MRAM access (upmem.md, MRAM internals)

}  // namespace

LoopCounts& LoopCounts::operator+=(const LoopCounts& o) {
  iterations += o.iterations;
  guards += o.guards;
  dmaReads += o.dmaReads;
  dmaWrites += o.dmaWrites;
  return *this;
}

LoopCounts LoopCounts::times(std::int64_t n) const {
  return {iterations * n, guards * n, dmaReads * n, dmaWrites * n};
}

std::pair<std::int64_t, std::int64_t> taskletBlocks(std::int64_t elements, std::int64_t perBlock, int t,
                                                    int T) {
  const std::int64_t blocks = (elements + perBlock - 1) / perBlock;
  std::int64_t mine = blocks / T + (t < blocks % T ? 1 : 0);
  const std::int64_t tail = elements - (blocks - 1) * perBlock;
  if (blocks > 0 && tail < perBlock && (blocks - 1) % T == t) return {mine - 1, tail};
  return {mine, 0};
}

void EmittedSteps::add(const EmittedSteps& e) {
  steps.insert(steps.end(), e.steps.begin(), e.steps.end());
  counts += e.counts;
}

void EmittedSteps::issue(std::int64_t n) {
  if (n > 0) steps.push_back(sim::dpu::Step::issue(n));
}

void EmittedSteps::guards(std::int64_t n) {
  issue(n);
  counts.guards += n;
}

void EmittedSteps::dma(std::int64_t bytes, bool toMram) {
  const auto b = static_cast<std::int32_t>(roundUp(bytes, 8));  // the SDK moves multiples of 8 B
  steps.push_back(toMram ? sim::dpu::Step::mramWrite(b) : sim::dpu::Step::mramRead(b));
  ++(toMram ? counts.dmaWrites : counts.dmaReads);
}

void EmittedSteps::dmaSplit(std::int64_t bytes, bool toMram, std::int64_t dmaMax) {
  for (std::int64_t left = roundUp(bytes, 8); left > 0; left -= dmaMax) dma(std::min(left, dmaMax), toMram);
}

EmittedSteps EmittedSteps::repeated(std::int64_t trips, const EmittedSteps& body) {
  if (trips <= 0 || body.steps.empty()) return {};
  if (trips == 1) return body;
  return {{sim::dpu::Step::loop(trips, body.steps)}, body.counts.times(trips)};
}

bool StatementShape::sharesOperands() const {
  return std::any_of(reuse.begin(), reuse.end(), [](OperandReuse r) {
    return r == OperandReuse::AllOutputs || r == OperandReuse::Window || r == OperandReuse::PerRun;
  });
}

StatementShape StatementShape::onDpu(const DpuSharing& sharing) const {
  StatementShape s = *this;
  for (std::size_t i = 0; i < s.reuse.size(); ++i) {
    if (s.reuse[i] != OperandReuse::SomeOutputs) continue;
    const bool whole = i < 64 && (sharing.whole >> i & 1), runs = i < 64 && (sharing.runs >> i & 1);
    s.reuse[i] = whole ? OperandReuse::AllOutputs : runs ? OperandReuse::PerRun : OperandReuse::None;
  }
  s.outputsPerRun = sharing.runs ? sharing.run : 0;
  return s;
}

bool StatementShape::mayShareOperands() const {
  return std::any_of(reuse.begin(), reuse.end(), [](OperandReuse r) { return r != OperandReuse::None; });
}

bool KernelBuilder::caches(std::int64_t outs) const {
  return m_style.cacheOperands && m_sh.reduces() && m_sh.sharesOperands() && byOutputs(outs);
}

std::int64_t StatementShape::windowRun() const {
  const std::int64_t perGroup = std::max(1, 8 / targetBytes);
  return std::max<std::int64_t>(1, blockElements / perGroup) * perGroup;
}

std::int64_t KernelBuilder::cachedWramPerTasklet(std::int64_t outs, std::int64_t reduced) const {
  if (!caches(outs)) return 0;
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < m_sh.reuse.size(); ++i) {
    const bool whole = m_sh.reuse[i] == OperandReuse::AllOutputs || m_sh.reuse[i] == OperandReuse::PerRun;
    const std::int64_t elements = whole ? reduced
                                  : m_sh.reuse[i] == OperandReuse::Window
                                      ? std::min(outs, m_sh.windowRun()) + reduced - 1
                                      : 0;
    bytes += roundUp(elements * m_sh.streamedBytes[i], 8);
  }
  return bytes;
}

bool taskletsTakeOutputs(TaskletSplit split, std::int64_t outputs, std::int64_t tasklets) {
  switch (split) {
    case TaskletSplit::Outputs:
      return outputs > 1;
    case TaskletSplit::Reduction:
      return false;
    case TaskletSplit::Auto:
      break;
  }
  return outputs >= tasklets;
}

bool KernelBuilder::byOutputs(std::int64_t outs) const { return taskletsTakeOutputs(m_split, outs, m_T); }

// Operand `bytes` per element between MRAM and WRAM for `n` valid elements of a tile; `tail`: the tile does
// not divide its dimension.
KernelBuilder::Emitted KernelBuilder::copy(std::int64_t n, int bytes, bool tail, bool toMram) const {
  Emitted e;
  const BoundaryPasses& p = m_style.passes;
  if (m_style.handWritten) {
    e.dma(roundUp(n * bytes, 8), toMram);  // PrIM: the DMA sized to what is left
  } else if (p.dmaGuardElimination) {
    e.dma(roundUp(m_sh.blockElements * bytes, 8), toMram);  // one static DMA of the whole (padded) tile
  } else {
    Emitted one;
    one.issue(kCopyInstructions);
    one.dma(kMramAccessBytes, toMram);
    e.add(Emitted::repeated(n, one));
    if (tail && !p.loopTightening) e.guards(m_sh.blockElements);  // every iteration checks the element
  }
  return e;
}

// One block of `n` valid elements. `rowGuard`: every compute iteration also checks an output row (generated
// code whose rows have a tail, unhoisted); `dead`: that row lies past the extent (its computes are skipped).
KernelBuilder::Emitted KernelBuilder::block(std::int64_t n, bool writes, bool tail, bool rowGuard,
                                            bool dead) const {
  Emitted e;
  // The block's mram_read/_write calls: none where its operands are all kept in WRAM (cachedOutputs).
  if (!m_sh.streamedBytes.empty() || writes || m_sh.keptOperands == 0) e.issue(kUpmemBlockInstructions);
  for (int bytes : m_sh.streamedBytes) e.add(copy(n, bytes, tail, false));
  const bool colGuard = !m_style.handWritten && tail && !m_style.passes.loopTightening;
  const std::int64_t iterations = colGuard ? m_sh.blockElements : n;
  const std::int64_t guards = colGuard || rowGuard ? iterations : 0;
  e.issue(guards + (dead ? 0 : n * m_sh.perElement));
  e.counts.guards += guards;
  e.counts.iterations += iterations;
  if (writes) e.add(copy(n, m_sh.targetBytes, tail, true));
  return e;
}

KernelBuilder::Emitted KernelBuilder::streamBlocks(std::int64_t elements, int t, int T, bool writes,
                                                   bool rowGuard, bool dead) const {
  const std::int64_t c = m_sh.blockElements;
  const auto [full, last] = taskletBlocks(elements, c, t, T);
  const bool tail = elements % c != 0;
  Emitted e = Emitted::repeated(full, block(c, writes, tail, rowGuard, dead));
  if (last > 0) e.add(block(last, writes, tail, rowGuard, dead));
  return e;
}

KernelBuilder::Emitted KernelBuilder::write(std::int64_t bytes) const {
  Emitted e;
  e.dmaSplit(bytes, true, m_dmaMax);
  return e;
}

// Outputs in groups of 8 B (PrIM's GEMV: rows in pairs), groups dealt to tasklets in turn; each output
// streams its whole reduction. Generated code runs whole groups: the last may hold rows past the extent.
KernelBuilder::Emitted KernelBuilder::outputGroups(std::int64_t outs, std::int64_t reduced, int t) const {
  const std::int64_t perGroup = std::max(1, 8 / m_sh.targetBytes);
  const bool rowTail = !m_style.handWritten && outs % perGroup != 0;
  const bool hoisted = m_style.passes.branchHoisting;
  auto row = [&](bool dead) {
    Emitted r;
    r.issue(kUpmemOutputInstructions);
    r.add(streamBlocks(reduced, 0, 1, false, rowTail && !hoisted, dead));
    return r;
  };
  auto group = [&](std::int64_t valid) {
    Emitted g;
    if (rowTail && hoisted) g.guards(perGroup);  // the row guard, once per row outside its loops
    g.add(Emitted::repeated(valid, row(false)));
    if (rowTail && !hoisted) g.add(Emitted::repeated(perGroup - valid, row(true)));
    const std::int64_t rows = m_style.handWritten ? valid : perGroup;
    g.add(write(rows * m_sh.targetBytes));
    return g;
  };
  const auto [full, last] = taskletBlocks(outs, perGroup, t, m_T);
  Emitted e = Emitted::repeated(full, group(perGroup));
  if (last > 0) e.add(group(last));
  return e;
}

// Tasklets take outputs and keep the operands those share in WRAM (KernelStyle::cacheOperands). With a
// window, a tasklet takes runs of consecutive outputs in turn and reads each run's window once (PrIM's TS
// reads its block of the series with the query's length more). With PerRun operands the outputs go run by run
// (GEMV's batches), each run's 8-B groups dealt in turn, and a tasklet with outputs in a run reads those
// operands once for it. The operands nothing shares stream per output.
KernelBuilder::Emitted KernelBuilder::cachedOutputs(std::int64_t outs, std::int64_t reduced, int t) const {
  StatementShape rest = m_sh;  // the statement as it streams what it does not keep
  rest.streamedBytes.clear();
  rest.reuse.clear();
  rest.outputsPerRun = 0;
  std::vector<int> whole, windows,
      perRun;  // bytes per element of the operands kept whole / as windows / per run
  for (std::size_t i = 0; i < m_sh.reuse.size(); ++i) {
    const int bytes = m_sh.streamedBytes[i];
    if (m_sh.reuse[i] == OperandReuse::AllOutputs) {
      whole.push_back(bytes);
    } else if (m_sh.reuse[i] == OperandReuse::Window) {
      windows.push_back(bytes);
    } else if (m_sh.reuse[i] == OperandReuse::PerRun) {
      perRun.push_back(bytes);
    } else {
      rest.streamedBytes.push_back(bytes);
      rest.reuse.push_back(OperandReuse::None);
    }
  }
  rest.keptOperands = static_cast<int>(whole.size() + windows.size() + perRun.size());
  // The tasklet's share, dealt in turn: runs of consecutive outputs with a window, else 8-B groups of them
  // (of each run with PerRun operands).
  const std::int64_t share = windows.empty() ? std::max(1, 8 / m_sh.targetBytes) : m_sh.windowRun();
  const std::int64_t dealt = perRun.empty() ? outs : m_sh.outputsPerRun;
  const auto [full, last] = taskletBlocks(dealt, share, t, m_T);
  Emitted e;
  if (full == 0 && last == 0) return e;  // no outputs: nothing to keep either
  auto keep = [&](Emitted& into, const std::vector<int>& operands, std::int64_t elements) {
    for (int bytes : operands) {
      into.issue(kUpmemBlockInstructions);
      into.dmaSplit(elements * bytes, false, m_dmaMax);
    }
  };
  keep(e, whole, reduced);
  const KernelBuilder streaming(rest, m_T, m_dmaMax, TaskletSplit::Outputs, m_style);
  if (!perRun.empty()) {
    Emitted run;
    keep(run, perRun, reduced);
    run.add(streaming.outputGroups(dealt, reduced, t));
    e.add(Emitted::repeated(outs / dealt, run));
    return e;
  }
  if (windows.empty()) {
    e.add(streaming.outputGroups(outs, reduced, t));
    return e;
  }
  // One tasklet computes a whole run: its groups in order.
  const KernelBuilder oneTasklet(rest, 1, m_dmaMax, TaskletSplit::Outputs, m_style);
  auto run = [&](std::int64_t valid) {
    Emitted r;
    keep(r, windows, valid + reduced - 1);
    r.add(oneTasklet.outputGroups(valid, reduced, 0));
    return r;
  };
  e.add(Emitted::repeated(full, run(share)));
  if (last > 0) e.add(run(last));
  return e;
}

LoopCounts KernelBuilder::append(std::vector<TaskletProgram>& tasklets, std::int64_t outs,
                                 std::int64_t reduced) const {
  LoopCounts total;
  for (int t = 0; t < m_T; ++t) {
    Emitted e;
    if (m_sh.scalars > 0) {
      e.dma(8 * m_sh.scalars, false);
      e.issue(kScalarInstructions * m_sh.scalars);
    }
    if (!m_sh.reduces()) {
      e.add(streamBlocks(outs, t, m_T, true, false, false));
    } else if (caches(outs)) {
      e.add(cachedOutputs(outs, reduced, t));
    } else if (byOutputs(outs)) {
      e.add(outputGroups(outs, reduced, t));
    } else {
      Emitted row;
      row.issue(kUpmemOutputInstructions);
      row.add(streamBlocks(reduced, t, m_T, false, false, false));
      e.add(Emitted::repeated(outs, row));
    }
    TaskletProgram& p = tasklets[static_cast<std::size_t>(t)];
    p.insert(p.end(), e.steps.begin(), e.steps.end());
    total += e.counts;
  }
  if (m_sh.reduces() && !byOutputs(outs)) {
    // PrIM's RED: barrier, then tasklet 0 adds every tasklet's partial sums and writes them.
    if (m_T > 1)
      for (auto& p : tasklets) p.push_back(Step::barrier());
    Emitted merge;
    merge.issue(outs * (m_T * (kUpmemOperandInstructions + m_sh.accumulate) + kUpmemOutputInstructions));
    merge.add(write(outs * m_sh.targetBytes));
    TaskletProgram& p0 = tasklets.front();
    p0.insert(p0.end(), merge.steps.begin(), merge.steps.end());
    total += merge.counts;
  }
  return total;
}

}  // namespace pim
