// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/upmem_codegen.h"

#include "engine/codegen/upmem_intrinsics.h"
#include "engine/codegen/upmem_launches.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/common/error.h"
#include "engine/common/int_math.h"
#include "engine/common/number_text.h"
#include "engine/mapping/tile_mapping.h"
#include "sim/dpu/dpu_ops.h"

namespace pim {
namespace {

using sim::dpu::DpuKernel;
using sim::dpu::HostStep;
using sim::dpu::Step;
using sim::dpu::TaskletProgram;

std::string bytesText(std::int64_t b) { return withThousands(b) + " B"; }

int mostBuffers(const std::vector<StatementShape>& shapes) {
  int buffers = 0;
  for (const auto& sh : shapes) buffers = std::max(buffers, sh.buffers());
  return buffers;
}

// The limits that do not depend on the mapping; fills prog.wramBytes.
void checkLimits(const UpmemCodegenOptions& o, const std::vector<StatementShape>& shapes, UpmemProgram& prog,
                 std::vector<LimitViolation>& out) {
  if (o.tasklets < 1 || o.tasklets > o.maxTasklets)
    out.push_back({"tasklets", "tasklets: " + std::to_string(o.tasklets) + " is outside 1.." +
                                   std::to_string(o.maxTasklets) + " tasklets per DPU (core.threads)"});
  if (o.blockBytes < 8 || o.blockBytes % 8 != 0 || o.blockBytes > o.dmaMaxBytes)
    out.push_back({"block", "block: " + bytesText(o.blockBytes) +
                                " is not a DMA size (a multiple of 8 B from 8 to " +
                                bytesText(o.dmaMaxBytes) + ")"});
  const int buffers = mostBuffers(shapes);
  prog.wramBytes = upmemWramBytes(shapes, o);
  if (prog.wramBytes > o.wramBytes)
    out.push_back({"WRAM", "WRAM: " + std::to_string(o.tasklets) + " tasklets x (" + std::to_string(buffers) +
                               " blocks of " + bytesText(o.blockBytes) + " + a stack of " +
                               bytesText(o.stackBytes) + ") = " + bytesText(prog.wramBytes) +
                               " exceed the DPU's " + bytesText(o.wramBytes)});
}

// A DPU's MRAM share: its tile of every tensor, each padded to 8 B.
std::int64_t mramOf(const Kernel& k, const UpmemCores& cores, std::size_t c) {
  std::int64_t mram = 0;
  for (std::size_t t = 0; t < k.tensors.size(); ++t)
    mram += roundUp(cores.elements(c, t) * static_cast<std::int64_t>(dtypeBytes(k.tensors[t].dtype)), 8);
  return mram;
}

void checkMram(const UpmemCodegenOptions& o, std::int64_t mram, std::vector<LimitViolation>& out) {
  if (mram > o.mramBytes)
    out.push_back({"MRAM", "MRAM: a DPU's tiles take " + bytesText(mram) + ", above its " +
                               bytesText(o.mramBytes) + " (pim.MRAM_bytes)"});
}

// Every limit the schedule breaks, given its statement shapes and mapping; fills prog's WRAM and MRAM shares.
std::vector<LimitViolation> violationsOf(const Kernel& k, const std::vector<StatementShape>& shapes,
                                         const UpmemCores& cores, const UpmemCodegenOptions& o,
                                         UpmemProgram& prog) {
  std::vector<LimitViolation> out;
  checkLimits(o, shapes, prog, out);
  std::int64_t histogram = 0;  // the largest private histogram a tasklet keeps in WRAM (hist)
  // The most a tasklet keeps of shared operands (KernelStyle::cacheOperands), on top of its blocks: a bound,
  // as the blocks of the operands it keeps are counted too.
  std::int64_t kept = 0;
  for (std::size_t c = 0; c < cores.size(); ++c) {
    if (cores.idle(c)) continue;
    prog.mramBytes = std::max(prog.mramBytes, mramOf(k, cores, c));
    for (const StatementShape& sh : shapes) {
      const std::int64_t outs = cores.loopProduct(c, sh.outLoops);
      if (sh.intrinsic)
        histogram =
            std::max(histogram, intrinsicWramPerTasklet(*sh.intrinsic, sh, intrinsicCodegen(o), outs));
      else if (o.style.cacheOperands && sh.mayShareOperands())
        kept = std::max(
            kept, KernelBuilder(sh.onDpu(sh.sharingOnDpu([&](int v) { return cores.loopProduct(c, {v}); })),
                                o.tasklets, o.dmaMaxBytes, o.split, o.style)
                      .cachedWramPerTasklet(outs, cores.loopProduct(c, sh.reduceLoops)));
    }
  }
  if (histogram + kept > 0 && out.empty()) {
    prog.wramBytes += std::int64_t{o.tasklets} * (histogram + kept);
    const std::string histogramText =
        histogram == 0 ? ""
                       : " and a " + bytesText(histogram) +
                             (o.sharedHistogram ? " share of the shared histogram" : " private histogram");
    const std::string keptText = kept == 0 ? "" : " and " + bytesText(kept) + " of operands kept in WRAM";
    if (prog.wramBytes > o.wramBytes)
      out.push_back({"WRAM", "WRAM: " + std::to_string(o.tasklets) + " tasklets x (their blocks, a stack" +
                                 histogramText + keptText + ") = " + bytesText(prog.wramBytes) +
                                 " exceed the DPU's " + bytesText(o.wramBytes)});
  }
  checkMram(o, prog.mramBytes, out);
  return out;
}

}  // namespace

IntrinsicCodegen intrinsicCodegen(const UpmemCodegenOptions& o) {
  return {o.tasklets, o.dmaMaxBytes, o.keptFraction, o.style.handWritten, o.sharedHistogram};
}

std::vector<LimitViolation> upmemViolations(const Problem& p, const Draft& d, const UpmemCodegenOptions& o) {
  UpmemProgram scratch;
  return violationsOf(p.kernel(), upmemStatementShapes(p.kernel(), o), UpmemCores(p.space(), d), o, scratch);
}

std::int64_t upmemWramBytes(const std::vector<StatementShape>& shapes, const UpmemCodegenOptions& o) {
  return std::int64_t{o.tasklets} * (std::int64_t{mostBuffers(shapes)} * o.blockBytes + o.stackBytes);
}

std::string upmemUnsupportedReason(const Kernel& k) {
  // The operation first: no element type makes a kernel without a template run.
  for (const std::string& op : k.requiredOps())
    if (op != "mac" && op != "add" && op != "mul" && op != "max" && op != "argmin" && op != "relu" &&
        op != "div" && op != "reduce" && !intrinsicNamed(op))
      return "operation '" + op +
             "' has no UPMEM instruction template (add, mul, mac, max, argmin, relu, div, reduce, select, "
             "unique, prefix, hist, search)";
  for (const Tensor& t : k.tensors)
    if (t.dtype == DType::F16 || t.dtype == DType::BF16)
      return "tensor " + t.name + " is " + std::string(dtypeName(t.dtype)) +
             ": UPMEM DPUs have no 16-bit floating-point type (every float is emulated in 32 or 64 bits); "
             "choose the element type i32, i64, f32 or f64 (--dtype in the CLI, Element type in the window)";
  return {};
}

namespace {

/// Per-DPU tile bytes, by tensor (rank-major DPUs of the plan).
using TileBytes = std::vector<std::vector<std::int64_t>>;

/// What each busy DPU holds of every tensor (the union of its references), in bytes; counts the busy DPUs.
TileBytes tilesOf(const Kernel& k, const UpmemCores& cores, const UpmemCodegenOptions& o,
                  UpmemProgram& prog) {
  TileBytes tiles(k.tensors.size(), std::vector<std::int64_t>(static_cast<std::size_t>(prog.plan.dpus)));
  for (std::size_t c = 0; c < cores.size(); ++c) {
    if (cores.idle(c)) continue;
    ++prog.dpusUsed;
    const std::size_t dpu = cores.dpu(c, o.dpusPerRank);
    for (std::size_t t = 0; t < k.tensors.size(); ++t)
      tiles[t][dpu] = cores.elements(c, t) * static_cast<std::int64_t>(dtypeBytes(k.tensors[t].dtype));
  }
  return tiles;
}

/// One launch: statements [g.first, g.last) on every busy DPU, a per-tasklet program each. A DPU's program
/// depends only on how many outputs and reduction steps each statement gives it, so DPUs with the same
/// counts share one kernel.
HostStep launchStep(const UpmemCores& cores, const std::vector<StatementShape>& shapes, const LaunchGroup& g,
                    const UpmemCodegenOptions& o, UpmemProgram& prog) {
  HostStep launch;
  launch.kind = HostStep::Kind::Launch;
  launch.kernelOf.assign(static_cast<std::size_t>(prog.plan.dpus), -1);
  std::vector<LoopCounts>& loopsOf = prog.kernelLoops.emplace_back();
  // Per statement: outputs, reduction steps, and how its outputs share operands on this DPU (sharingOnDpu).
  using Counts = std::vector<std::tuple<std::uint64_t, std::uint64_t, DpuSharing>>;
  std::map<Counts, std::int32_t> kernelOfCounts;
  Counts counts;
  for (std::size_t c = 0; c < cores.size(); ++c) {
    if (cores.idle(c)) continue;
    const std::size_t dpu = cores.dpu(c, o.dpusPerRank);
    counts.clear();
    for (std::size_t s = g.first; s < g.last; ++s)
      counts.emplace_back(static_cast<std::uint64_t>(cores.loopProduct(c, shapes[s].outLoops)),
                          static_cast<std::uint64_t>(cores.loopProduct(c, shapes[s].reduceLoops)),
                          shapes[s].sharingOnDpu([&](int v) { return cores.loopProduct(c, {v}); }));
    const auto [it, added] =
        kernelOfCounts.try_emplace(counts, static_cast<std::int32_t>(launch.kernels.size()));
    launch.kernelOf[dpu] = it->second;
    if (!added) continue;
    DpuKernel& kernel = launch.kernels.emplace_back();
    LoopCounts& loops = loopsOf.emplace_back();
    kernel.tasklets.resize(static_cast<std::size_t>(o.tasklets));
    for (std::size_t s = g.first; s < g.last; ++s) {
      if (s > g.first && o.tasklets > 1)
        for (auto& tp : kernel.tasklets) tp.push_back(Step::barrier());  // the next reads what this wrote
      const auto& [outs, reduced, shared] = counts[s - g.first];
      const auto n = static_cast<std::int64_t>(outs), r = static_cast<std::int64_t>(reduced);
      if (const auto id = shapes[s].intrinsic)
        loops += appendIntrinsic(*id, shapes[s], intrinsicCodegen(o), kernel.tasklets, n, r);
      else
        loops += KernelBuilder(shapes[s].onDpu(shared), o.tasklets, o.dmaMaxBytes, o.split, o.style)
                     .append(kernel.tasklets, n, r);
    }
  }
  return launch;
}

/// Adds the transfer of tensor `t`'s tiles (a broadcast where every DPU holds all of an input) and returns
/// the elements held more than once: an output's partial results, for the host to add.
std::int64_t addTransfer(const Problem& p, std::size_t t, bool toDpu, const std::vector<std::int64_t>& tiles,
                         UpmemProgram& prog, bool exchange = false) {
  const Tensor& tensor = p.kernel().tensors[t];
  const auto elementBytes = static_cast<std::int64_t>(dtypeBytes(tensor.dtype));
  std::int64_t whole = elementBytes;
  for (const auto e : tensorExtents(p.kernel(), static_cast<int>(t), p.shape())) whole *= e;
  HostStep s;
  s.toDpu = toDpu;
  s.exchange = exchange;
  s.bytesPerDpu = tiles;
  const bool everyoneWhole =
      std::all_of(tiles.begin(), tiles.end(), [&](std::int64_t b) { return b == 0 || b == whole; });
  const bool broadcast = toDpu && prog.dpusUsed > 1 && everyoneWhole;
  s.kind = broadcast ? HostStep::Kind::Broadcast : HostStep::Kind::Parallel;
  std::int64_t sum = 0;
  for (auto b : tiles) sum += b;
  prog.tileBytes += broadcast ? whole * prog.dpusUsed : sum;
  prog.notes.push_back(std::string(exchange ? "inter-DPU " : "") + (toDpu ? "CPU->DPU " : "DPU->CPU ") +
                       (broadcast ? "broadcast " : "parallel ") + tensor.name + ": " +
                       bytesText(*std::max_element(tiles.begin(), tiles.end())) + " to each of " +
                       std::to_string(prog.dpusUsed) + " DPUs" +
                       (broadcast ? "" : " (each rank padded to its largest)"));
  prog.plan.steps.push_back(std::move(s));
  return (sum - whole) / elementBytes;
}

bool reducedBySomeStatement(const Kernel& k, const std::vector<StatementShape>& shapes, std::size_t t) {
  for (std::size_t s = 0; s < shapes.size(); ++s)
    if (k.statements[s].target.tensor == static_cast<int>(t) && shapes[s].reduces()) return true;
  return false;
}

/// PrIM's RED (upmem.md): a DPU whose output is one sum read back as every tasklet's result record
/// (o.taskletResultBytes each), which the host adds. Changes the last transfer (the output's); returns the
/// partial results this adds beyond one per DPU.
std::int64_t readTaskletRecords(const Tensor& output, const UpmemCodegenOptions& o, UpmemProgram& prog) {
  if (o.taskletResultBytes <= 0) return 0;
  const auto elementBytes = static_cast<std::int64_t>(dtypeBytes(output.dtype));
  std::int64_t extra = 0;
  for (std::int64_t& b : prog.plan.steps.back().bytesPerDpu)
    if (b == elementBytes) {
      b = std::int64_t{o.tasklets} * o.taskletResultBytes;
      extra += o.tasklets - 1;
    }
  if (extra > 0)
    prog.notes.push_back("DPU->CPU " + output.name + " as PrIM reads it: every tasklet's " +
                         std::to_string(o.taskletResultBytes) + "-B result record");
  return extra;
}

/// select and unique (PrIM's SEL, UNI): every tasklet's count read in parallel, then each DPU's kept values,
/// a different number per DPU, read serially. Changes the last transfer (the output's).
void readKeptSerially(const Tensor& output, const UpmemCodegenOptions& o, UpmemProgram& prog) {
  HostStep& kept = prog.plan.steps.back();
  const auto elementBytes = static_cast<std::int64_t>(dtypeBytes(output.dtype));
  HostStep counts;  // PrIM times it as Inter-DPU (its host then scans the counts)
  counts.toDpu = false;
  counts.exchange = true;
  counts.bytesPerDpu.assign(kept.bytesPerDpu.size(), 0);
  for (std::size_t d = 0; d < kept.bytesPerDpu.size(); ++d) {
    std::int64_t& b = kept.bytesPerDpu[d];
    if (b == 0) continue;
    counts.bytesPerDpu[d] = std::int64_t{o.tasklets} * 8;
    const auto values =
        static_cast<std::int64_t>(std::ceil(static_cast<double>(b / elementBytes) * o.keptFraction));
    prog.tileBytes -= b - values * elementBytes;
    b = roundUp(values * elementBytes, 8);
  }
  kept.kind = HostStep::Kind::Serial;
  prog.plan.steps.insert(prog.plan.steps.end() - 1, counts);
  prog.notes.push_back("DPU->CPU " + output.name + " as PrIM's SEL reads it: every tasklet's count (" +
                       std::to_string(o.tasklets * 8) +
                       " B per DPU) in parallel, then each DPU's kept values (" +
                       std::to_string(static_cast<int>(o.keptFraction * 100)) + "% of its tile) serially");
}

/// The host adding `partials` partial results of `t` (nothing when there are none).
void addMerge(const Tensor& t, std::int64_t partials, sim::dpu::UpmemPhase phase,
              const UpmemCodegenOptions& o, UpmemProgram& prog) {
  if (partials <= 0) return;
  prog.mergedPartials += partials;
  HostStep merge;
  merge.kind = HostStep::Kind::HostWork;
  merge.hostPhase = phase;
  merge.hostNs = static_cast<double>(partials) / o.hostMergeGops;
  prog.plan.steps.push_back(merge);
  prog.notes.push_back(std::string(phase == sim::dpu::UpmemPhase::InterDpu ? "inter-DPU: " : "") +
                       "host adds " + std::to_string(partials) + " partial results of " + t.name);
}

/// Tensor `t` moved through the host before launch `g`: every DPU's tile of its last write read back (and
/// partial results added), then each DPU sent the largest tile a statement of `g` reads of it.
void exchange(const Problem& p, const UpmemCores& cores, std::size_t t, const LaunchGroup& g,
              const UpmemCodegenOptions& o, UpmemProgram& prog) {
  const Kernel& k = p.kernel();
  std::size_t writer = 0;
  for (std::size_t s = 0; s < g.first; ++s)
    if (k.statements[s].target.tensor == static_cast<int>(t)) writer = s;
  const auto bytes = static_cast<std::int64_t>(dtypeBytes(k.tensors[t].dtype));
  const std::size_t writeRef = targetReference(k, writer);
  std::vector<std::size_t> readRefs;  // every read of t in launch g
  for (std::size_t s = g.first; s < g.last; ++s)
    for (std::size_t r : readsOf(k, s, static_cast<int>(t))) readRefs.push_back(r);
  std::vector<std::int64_t> written(static_cast<std::size_t>(prog.plan.dpus)), read(written.size());
  for (std::size_t c = 0; c < cores.size(); ++c) {
    const std::size_t dpu = cores.dpu(c, o.dpusPerRank);
    written[dpu] = cores.referenceElements(c, writeRef) * bytes;
    for (std::size_t r : readRefs) read[dpu] = std::max(read[dpu], cores.referenceElements(c, r) * bytes);
  }
  const std::int64_t partials = addTransfer(p, t, false, written, prog, true);
  addMerge(k.tensors[t], partials, sim::dpu::UpmemPhase::InterDpu, o, prog);
  addTransfer(p, t, true, read, prog, true);
}

/// Whether prefix statement `s` needs SCAN-SSA's offsets and second kernel: its loop is split over DPUs, or
/// the code is PrIM's, which runs them always.
bool needsScanOffsets(const Problem& p, const UpmemCores& cores, std::size_t s,
                      const UpmemCodegenOptions& o) {
  if (o.style.handWritten) return true;
  const int along = p.kernel().statements[s].value.reduceVar;
  const auto bounds = loopBounds(p.kernel(), along, p.shape());
  const std::int64_t extent = bounds.second - bounds.first;
  for (std::size_t c = 0; c < cores.size(); ++c)
    if (!cores.idle(c) && cores.loopCount(c, along) < extent) return true;
  return false;
}

/// SCAN-SSA after its first kernel: the host reads each DPU's total, scans them, sends each DPU its offset,
/// and a second kernel adds it to every value.
void addScanOffsets(const Problem& p, const UpmemCores& cores, const StatementShape& scan, std::size_t s,
                    const UpmemCodegenOptions& o, UpmemProgram& prog) {
  const Kernel& k = p.kernel();
  // PrIM reads every tasklet's 8-B record (the last holds the DPU's total) and sends each DPU its offset
  // in its 16-B arguments.
  std::vector<std::int64_t> records(static_cast<std::size_t>(prog.plan.dpus), 0), offsets(records.size(), 0);
  for (std::size_t c = 0; c < cores.size(); ++c) {
    if (cores.idle(c)) continue;
    const std::size_t dpu = cores.dpu(c, o.dpusPerRank);
    records[dpu] = std::int64_t{o.tasklets} * 8;
    offsets[dpu] = 16;
  }
  for (const bool toDpu : {false, true}) {
    HostStep step;
    step.toDpu = toDpu;
    step.exchange = true;
    step.bytesPerDpu = toDpu ? offsets : records;
    prog.plan.steps.push_back(step);
    if (toDpu) continue;
    HostStep scanTotals;
    scanTotals.kind = HostStep::Kind::HostWork;
    scanTotals.hostPhase = sim::dpu::UpmemPhase::InterDpu;
    scanTotals.hostNs = static_cast<double>(prog.dpusUsed) / o.hostMergeGops;
    prog.plan.steps.push_back(scanTotals);
  }
  prog.notes.push_back("inter-DPU: the host reads each DPU's tasklet records (" +
                       std::to_string(o.tasklets * 8) + " B), scans the " + std::to_string(prog.dpusUsed) +
                       " totals and sends each DPU its offset (16 B of arguments)");
  // SSA adds the offsets in its second kernel; RSS scans there, starting from them.
  StatementShape scanned = scan;
  scanned.scanReducesFirst = false;
  const StatementShape add = prefixOffsetShape(
      scan, upmemDpuType(k.tensors[static_cast<std::size_t>(k.statements[s].target.tensor)].dtype));
  HostStep launch;
  launch.kind = HostStep::Kind::Launch;
  launch.kernelOf.assign(static_cast<std::size_t>(prog.plan.dpus), -1);
  std::vector<LoopCounts>& loopsOf = prog.kernelLoops.emplace_back();
  std::map<std::int64_t, std::int32_t> kernelOfValues;
  for (std::size_t c = 0; c < cores.size(); ++c) {
    if (cores.idle(c)) continue;
    const std::int64_t values = cores.loopProduct(c, add.outLoops);
    const auto [it, added] =
        kernelOfValues.try_emplace(values, static_cast<std::int32_t>(launch.kernels.size()));
    launch.kernelOf[cores.dpu(c, o.dpusPerRank)] = it->second;
    if (!added) continue;
    auto& kernel = launch.kernels.emplace_back();
    kernel.tasklets.resize(static_cast<std::size_t>(o.tasklets));
    loopsOf.push_back(o.scanReducesFirst ? appendIntrinsic(Intrinsic::Prefix, scanned, intrinsicCodegen(o),
                                                           kernel.tasklets, values, 1)
                                         : KernelBuilder(add, o.tasklets, o.dmaMaxBytes, o.split, o.style)
                                               .append(kernel.tasklets, values, 1));
  }
  prog.plan.steps.push_back(std::move(launch));
  prog.notes.push_back("launch " + std::to_string(o.tasklets) + " tasklets on " +
                       std::to_string(prog.dpusUsed) +
                       " DPUs: each value plus its DPU's offset (SCAN-SSA's second kernel)");
}

bool writtenBySelection(const Kernel& k, const std::vector<StatementShape>& shapes, std::size_t t) {
  for (std::size_t s = 0; s < shapes.size(); ++s)
    if (k.statements[s].target.tensor == static_cast<int>(t) &&
        (shapes[s].intrinsic == Intrinsic::Select || shapes[s].intrinsic == Intrinsic::Unique))
      return true;
  return false;
}

}  // namespace

UpmemProgram lowerUpmem(const Problem& p, const Draft& d, const UpmemCodegenOptions& o) {
  const Kernel& k = p.kernel();
  if (const std::string why = upmemUnsupportedReason(k); !why.empty()) throw InputError(why);
  std::vector<StatementShape> shapes = upmemStatementShapes(k, o);
  UpmemProgram prog;
  prog.tasklets = o.tasklets;
  const UpmemCores cores(p.space(), d);
  if (auto violations = violationsOf(k, shapes, cores, o, prog); !violations.empty())
    throw LimitError(std::move(violations));
  prog.plan.dpusPerRank = o.dpusPerRank;
  prog.plan.dpus = cores.groupsUsed() * o.dpusPerRank;
  const TileBytes tiles = tilesOf(k, cores, o, prog);
  for (std::size_t t = 0; t < k.tensors.size(); ++t)
    if (k.tensors[t].role == TensorRole::Input && !p.isResident(static_cast<int>(t)))
      addTransfer(p, t, true, tiles[t], prog);
  const std::vector<LaunchGroup> groups = launchGroups(k, cores);
  for (std::size_t s = 0; s < shapes.size(); ++s)  // SCAN-RSS: reduce first where offsets are needed
    shapes[s].scanReducesFirst =
        o.scanReducesFirst && shapes[s].intrinsic == Intrinsic::Prefix && needsScanOffsets(p, cores, s, o);
  for (const LaunchGroup& g : groups) {
    for (int t : g.exchanged) exchange(p, cores, static_cast<std::size_t>(t), g, o, prog);
    prog.plan.steps.push_back(launchStep(cores, shapes, g, o, prog));
    prog.notes.push_back(
        "launch " + std::to_string(o.tasklets) + " tasklets on " + std::to_string(prog.dpusUsed) + " DPUs" +
        (groups.size() > 1
             ? " (statements " + std::to_string(g.first + 1) + " to " + std::to_string(g.last) + ")"
             : std::string()));
    for (std::size_t s = g.first; s < g.last; ++s)
      if (shapes[s].intrinsic == Intrinsic::Prefix && needsScanOffsets(p, cores, s, o))
        addScanOffsets(p, cores, shapes[s], s, o, prog);
  }
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    if (k.tensors[t].role != TensorRole::Output) continue;
    std::int64_t partials = addTransfer(p, t, false, tiles[t], prog);
    if (reducedBySomeStatement(k, shapes, t)) partials += readTaskletRecords(k.tensors[t], o, prog);
    if (writtenBySelection(k, shapes, t)) readKeptSerially(k.tensors[t], o, prog);
    addMerge(k.tensors[t], partials, sim::dpu::UpmemPhase::Host, o, prog);
  }
  return prog;
}

}  // namespace pim
