// SPDX-License-Identifier: Apache-2.0
#include "engine/target/upmem/upmem_estimate.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "engine/codegen/upmem_codegen.h"
#include "engine/codegen/upmem_intrinsics.h"
#include "engine/core/problem.h"
#include "engine/kernel/shape_check.h"

namespace pim {
namespace {

double ceilDiv(double a, double b) { return std::ceil(a / std::max(1.0, b)); }

bool uses(const AffineExpr& e, int var) {
  return std::any_of(e.terms.begin(), e.terms.end(), [&](const auto& t) { return t.first == var; });
}

// The candidate's layout as the estimate reads it: per loop variable its extent on one DPU; per tensor the
// number of DPUs sharing it out (1: every DPU holds all of it); DPUs and ranks used; and the loops whose last
// busy DPU gets a shorter tile (its extent there), which can be the slower DPU: fewer outputs than tasklets
// change how tasklets share the work.
struct Layout {
  std::vector<double> loopExtent;
  std::vector<double> tensorSplit;
  std::vector<std::pair<int, double>> edges;  // loop variable, its extent on the last busy DPU
  double dpus = 1, ranks = 1, dpusPerRank = 1;
};

Layout layoutOf(const Problem& p, const Draft& d) {
  const DraftSpace& ds = p.space();
  const DimensionSets& sets = ds.sets();
  const Kernel& k = p.kernel();
  Layout l;
  for (std::size_t v = 0; v < sets.loopHi.size(); ++v)
    l.loopExtent.push_back(static_cast<double>(sets.loopHi[v] - sets.loopLo[v]));
  l.tensorSplit.assign(k.tensors.size(), 1);
  for (int s = 0; s < ds.partCount(); ++s) {
    const PartChoice& c = d.parts[static_cast<std::size_t>(s)];
    // Units past the extent get no tile and stay idle; busy units fill groups first (unit = group x cores
    // + core).
    const double perCore = static_cast<double>(ds.perCoreSize(s, c));
    const double units = std::min(static_cast<double>(c.groups) * c.cores,
                                  ceilDiv(static_cast<double>(ds.representative(s, c).extent), perCore));
    l.ranks *= ceilDiv(units, c.cores);
    l.dpusPerRank *= std::min<double>(c.cores, units);
    l.dpus *= units;
    const int var = ds.representative(s, c).var;
    if (var >= 0) {
      l.loopExtent[static_cast<std::size_t>(var)] = perCore;
      const double last = static_cast<double>(ds.representative(s, c).extent) - (units - 1) * perCore;
      if (last > 0 && last < perCore) l.edges.emplace_back(var, last);
    }
    // Each part splits a tensor it indexes `units` ways, and the parts split independent dimensions, so a
    // tensor's share of one DPU is divided by every part's count (a matrix split by rows and columns).
    std::vector<bool> split(k.tensors.size(), false);
    for (const TensorDim& dim : sets.sets[static_cast<std::size_t>(s)].dims)
      if (std::any_of(dim.references.begin(), dim.references.end(),
                      [&](const AffineExpr& e) { return uses(e, var); }))
        split[static_cast<std::size_t>(dim.tensor)] = true;
    for (std::size_t t = 0; t < split.size(); ++t)
      if (split[t]) l.tensorSplit[t] *= units;
  }
  return l;
}

class UpmemEstimator final : public ICandidateEstimator {
 public:
  UpmemEstimator(const Problem& p, const UpmemParams& params,
                 std::function<UpmemCodegenOptions(std::uint64_t)> optionsOf)
      : m_p(p), m_params(params), m_optionsOf(std::move(optionsOf)) {
    const Kernel& k = p.kernel();
    for (std::size_t t = 0; t < k.tensors.size(); ++t) {
      double n = static_cast<double>(dtypeBytes(k.tensors[t].dtype));
      for (auto e : tensorExtents(k, static_cast<int>(t), p.shape())) n *= static_cast<double>(e);
      m_tensorBytes.push_back(n);
    }
    m_keptSerially.assign(k.tensors.size(), false);
    for (const Statement& st : k.statements) {
      const auto id = intrinsicOf(st);
      if (id == Intrinsic::Select || id == Intrinsic::Unique)
        m_keptSerially[static_cast<std::size_t>(st.target.tensor)] = true;
    }
  }

  void features(const Draft& d, std::vector<float>& out) const override {
    const Parts e = parts(d);
    for (double v : {e.totalNs(), e.kernelCycles, e.transferNs, e.dpus, e.ranks, e.tasklets, e.tile,
                     e.instructions, e.dmas})
      out.push_back(static_cast<float>(v));
  }
  CandidateEstimate estimate(const Draft& d) const override {
    const Parts e = parts(d);
    return {static_cast<float>(e.totalNs()), static_cast<float>(e.kernelCycles)};
  }

 private:
  struct Parts {
    double kernelCycles = 0, transferNs = 0, mergeNs = 0, nsPerCycle = 1;
    double dpus = 1, ranks = 1, tasklets = 1, tile = 0, instructions = 0, dmas = 0;
    double totalNs() const { return kernelCycles * nsPerCycle + transferNs + mergeNs; }
  };

  // One host transfer of `perDpu` bytes to or from each of the layout's DPUs (`broadcast`: one buffer).
  double transferNs(const Layout& l, double perDpu, bool toDpu, bool broadcast) const {
    const sim::dpu::HostRates& r = m_params.rates;
    const double rank = broadcast ? r.broadcastRankGBps : toDpu ? r.toRankGBps : r.fromRankGBps;
    const double all = broadcast ? r.broadcastAllGBps : toDpu ? r.toAllGBps : r.fromAllGBps;
    const double one = toDpu ? r.serialToDpuGBps : r.serialFromDpuGBps;
    const double perRank = std::ceil(perDpu / 8) * 8 * l.dpusPerRank;
    const double ns = std::max(perRank / std::min(rank, l.dpusPerRank * one), perRank * l.ranks / all);
    return (toDpu ? r.toDpuSetupMs : r.fromDpuSetupMs) * 1e6 + ns;
  }

  // A statement's template on one DPU: all its tasklets' instructions and DMAs, how many tasklets have work,
  // and the busiest tasklet's share (it issues at most once every sameTaskletGap cycles and waits for each of
  // its DMAs), with the elements one DMA moves.
  struct Work {
    double instructions = 0, dmas = 0, busy = 1;
    double busiestInstructions = 0, busiestDmas = 0, perDma = 0;
  };

  // An element-wise statement's template over `outs` values: tasklets stride over blocks.
  static Work streamed(const StatementShape& sh, double outs, const UpmemCodegenOptions& o) {
    const double c = static_cast<double>(sh.blockElements);
    const double blocks = ceilDiv(outs, c), perBlock = static_cast<double>(sh.streamedBytes.size()) + 1;
    const double own = ceilDiv(blocks, o.tasklets);  // the first tasklet's blocks
    return {outs * static_cast<double>(sh.perElement) + blocks * kUpmemBlockInstructions,
            blocks * perBlock,
            std::min<double>(o.tasklets, blocks),
            std::min(outs, own * c) * static_cast<double>(sh.perElement) + own * kUpmemBlockInstructions,
            own * perBlock,
            o.style.handWritten ? std::min(c, outs) : c};
  }

  // A reduction's operands as KernelStyle::cacheOperands keeps them: those still streamed per output, and
  // the DMAs reading the kept ones (whole once per tasklet, windows once per run of outputs, PerRun ones once
  // per run and tasklet with outputs in it). Tasklets taking outputs get them `share` at a time in turn, out
  // of `dealt` at a time (run by run where operands are kept per run, the codegen's cachedOutputs): `busy` of
  // them have outputs.
  struct Kept {
    double streamed = 0, reads = 0;
    double share = 1, dealt = 1, busy = 1;
  };
  static Kept kept(const StatementShape& shape, const Layout& l, const UpmemCodegenOptions& o, bool byOutputs,
                   double outs, double red) {
    Kept k{static_cast<double>(shape.streamedBytes.size()), 0,
           static_cast<double>(std::max(1, 8 / shape.targetBytes)), outs};
    k.busy = std::min<double>(o.tasklets, ceilDiv(outs, k.share));
    if (!o.style.cacheOperands || !byOutputs || !shape.mayShareOperands()) return k;
    const StatementShape sh =
        shape.onDpu(shape.sharingOnDpu([&](int v) { return l.loopExtent[static_cast<std::size_t>(v)]; }));
    if (!sh.sharesOperands()) return k;
    const bool windows = std::find(sh.reuse.begin(), sh.reuse.end(), OperandReuse::Window) != sh.reuse.end();
    const double run = static_cast<double>(sh.windowRun());
    const double perRun = static_cast<double>(sh.outputsPerRun);
    if (windows) k.share = run;
    if (perRun > 0) k.dealt = perRun;
    k.busy = std::min<double>(o.tasklets, ceilDiv(k.dealt, k.share));  // a tasklet past them reads nothing
    for (std::size_t i = 0; i < sh.reuse.size(); ++i) {
      const double bytes = sh.streamedBytes[i];
      if (sh.reuse[i] == OperandReuse::AllOutputs)
        k.reads += k.busy * ceilDiv(red * bytes, o.dmaMaxBytes);
      else if (sh.reuse[i] == OperandReuse::PerRun)
        k.reads += outs / k.dealt * k.busy * ceilDiv(red * bytes, o.dmaMaxBytes);
      else if (sh.reuse[i] == OperandReuse::Window)
        k.reads += ceilDiv(outs, run) * ceilDiv((std::min(outs, run) + red - 1) * bytes, o.dmaMaxBytes);
      else
        continue;
      k.streamed -= 1;
    }
    return k;
  }

  // SCAN-SSA's second half where the codegen runs it (a scan split over DPUs, or PrIM's code): the host
  // reads every tasklet's record, scans the totals, sends the offsets; a second kernel adds them.
  void scanOffsets(const Layout& l, const UpmemCodegenOptions& o, const std::vector<StatementShape>& shapes,
                   Parts& e) const {
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      const StatementShape& sh = shapes[s];
      if (sh.intrinsic != Intrinsic::Prefix) continue;
      const int along = m_p.kernel().statements[s].value.reduceVar;
      const auto [lo, hi] = loopBounds(m_p.kernel(), along, m_p.shape());
      if (!o.style.handWritten &&
          l.loopExtent[static_cast<std::size_t>(along)] >= static_cast<double>(hi - lo))
        continue;
      double outs = 1;
      for (int v : sh.outLoops) outs *= l.loopExtent[static_cast<std::size_t>(v)];
      const DType type =
          m_p.kernel().tensors[static_cast<std::size_t>(m_p.kernel().statements[s].target.tensor)].dtype;
      Work w = streamed(prefixOffsetShape(sh, upmemDpuType(type)), outs, o);
      if (o.scanReducesFirst) {  // RSS: kernel() counted the scan; the other kernel is the reduction
        StatementShape reduce = sh;
        reduce.scanReducesFirst = true;
        const IntrinsicWork r =
            intrinsicWork(Intrinsic::Prefix, reduce, intrinsicCodegen(o), static_cast<std::int64_t>(outs), 1);
        w = {r.instructions, r.dmas, static_cast<double>(o.tasklets)};
      }
      const double gap = m_params.dpu.sameTaskletGap;
      e.kernelCycles += (w.busy >= gap ? w.instructions : w.instructions / std::max(1.0, w.busy) * gap) +
                        m_params.rates.launchMs * 1e6 / e.nsPerCycle;
      e.instructions += w.instructions;
      e.dmas += w.dmas;
      e.transferNs += transferNs(l, 8.0 * o.tasklets, false, false) + transferNs(l, 16, true, false);
      e.mergeNs += l.dpus / o.hostMergeGops;
    }
  }

  // A reduction's template over `outs` outputs of `red` elements each: tasklets take outputs (in groups, or
  // runs with kept operands), or split each output's blocks (the first tasklet has the most).
  static Work reduction(const StatementShape& sh, const Layout& l, const UpmemCodegenOptions& o, double outs,
                        double red) {
    const double c = static_cast<double>(sh.blockElements), blocks = ceilDiv(red, c);
    const bool byOutputs = taskletsTakeOutputs(o.split, static_cast<std::int64_t>(outs), o.tasklets);
    const Kept k = kept(sh, l, o, byOutputs, outs, red);
    const double perBlock = k.streamed > 0 || k.reads == 0 ? kUpmemBlockInstructions : 0.0;
    const double perElement = static_cast<double>(sh.perElement);
    Work w;
    w.instructions = outs * (kUpmemOutputInstructions + red * perElement + blocks * perBlock) +
                     k.reads * kUpmemBlockInstructions;
    w.dmas = outs * blocks * k.streamed + k.reads;
    w.perDma = o.style.handWritten ? std::min(c, red) : c;
    if (byOutputs) {
      w.busy = k.busy;
      // The first tasklet's outputs: its shares of every dealt set.
      const double first =
          std::min(outs, outs / k.dealt * ceilDiv(ceilDiv(k.dealt, k.share), o.tasklets) * k.share);
      w.busiestInstructions = first * (kUpmemOutputInstructions + red * perElement + blocks * perBlock);
      w.busiestDmas = first * blocks * k.streamed + k.reads / std::max(1.0, k.busy);
    } else {
      w.busy = std::min<double>(o.tasklets, blocks);
      const double own = ceilDiv(blocks, o.tasklets);  // the first tasklet's blocks of each output
      w.busiestInstructions =
          outs * (kUpmemOutputInstructions + std::min(red, own * c) * perElement + own * perBlock);
      w.busiestDmas = outs * own * k.streamed;
    }
    return w;
  }

  // The busiest DPU's kernel: instructions and DMAs of every statement's template.
  void kernel(const Layout& l, const UpmemCodegenOptions& o, const std::vector<StatementShape>& shapes,
              Parts& e) const {
    double issue = 0, dmaCycles = 0, sync = 0, serial = 0;
    const double gap = m_params.dpu.sameTaskletGap;
    const sim::dpu::DmaTable& dma = m_params.dpu.dma;
    for (const StatementShape& sh : shapes) {
      auto product = [&](const std::vector<int>& loops) {
        double n = 1;
        for (int v : loops) n *= l.loopExtent[static_cast<std::size_t>(v)];
        return n;
      };
      const double outs = product(sh.outLoops), red = product(sh.reduceLoops);
      Work w;
      double critical = 0;
      if (sh.intrinsic) {  // its template's own count, and its synchronisation
        const IntrinsicWork iw =
            intrinsicWork(*sh.intrinsic, sh, intrinsicCodegen(o), static_cast<std::int64_t>(outs),
                          static_cast<std::int64_t>(red));
        w = {iw.instructions,   iw.dmas, static_cast<double>(o.tasklets),
             iw.busiestTasklet, 0,       static_cast<double>(sh.blockElements)};
        critical = iw.critical;
        // A barrier as the DPU engine prices it; a chain pass as each tasklet's share issued alone, in turn.
        sync += iw.barriers * m_params.dpu.barrierCoeff * std::pow(o.tasklets, m_params.dpu.barrierExp) +
                iw.handshakes * o.tasklets * IntrinsicWork::kChainInstructions * gap;
      } else {
        w = sh.reduces() ? reduction(sh, l, o, outs, red) : streamed(sh, outs, o);
      }
      // One instruction a cycle with at least `gap` tasklets busy; else each busy one every `gap` cycles.
      issue += w.busy >= gap ? w.instructions : w.instructions / std::max(1.0, w.busy) * gap;
      if (sh.intrinsic)  // the holder of a mutex issues at most once every `gap`
        issue = std::max(issue, critical * gap);
      // The widest streamed operand; the target's when a statement streams none (scalars only).
      int widest = sh.streamedBytes.empty() ? sh.targetBytes : 0;
      for (int b : sh.streamedBytes) widest = std::max(widest, b);
      const auto bytes = static_cast<std::int32_t>(w.perDma * widest);
      dmaCycles += w.dmas * dma.service(bytes, false);
      // The busiest tasklet: its instructions `gap` apart, each of its DMAs waited for.
      serial += w.busiestInstructions * gap + w.busiestDmas * dma.latency(bytes, false);
      e.instructions += w.instructions;
      e.dmas += w.dmas;
    }
    e.kernelCycles =
        std::max({issue, dmaCycles, serial}) + sync + m_params.rates.launchMs * 1e6 / e.nsPerCycle;
  }

  // The slowest DPU's kernel over every combination of full and last tiles (the launch waits for it).
  void busiestKernel(const Layout& l, const UpmemCodegenOptions& o, const std::vector<StatementShape>& shapes,
                     Parts& e) const {
    const Parts start = e;
    Layout tile = l;
    for (std::size_t combo = 0; combo < (std::size_t{1} << l.edges.size()); ++combo) {
      for (std::size_t i = 0; i < l.edges.size(); ++i) {
        const auto [var, last] = l.edges[i];
        tile.loopExtent[static_cast<std::size_t>(var)] =
            (combo >> i) & 1 ? last : l.loopExtent[static_cast<std::size_t>(var)];
      }
      Parts one = start;
      kernel(tile, o, shapes, one);
      if (combo == 0 || one.kernelCycles > e.kernelCycles) e = one;
    }
  }

  Parts parts(const Draft& d) const {
    const UpmemCodegenOptions o = m_optionsOf(d.id);
    const Layout l = layoutOf(m_p, d);
    Parts e;
    e.nsPerCycle = 1000.0 / m_params.dpu.clockMHz;
    e.dpus = l.dpus;
    e.ranks = l.ranks;
    e.tasklets = o.tasklets;
    e.tile = o.blockBytes;
    const auto shapes = upmemStatementShapes(m_p.kernel(), o);
    busiestKernel(l, o, shapes, e);
    scanOffsets(l, o, shapes, e);
    const Kernel& k = m_p.kernel();
    for (std::size_t t = 0; t < k.tensors.size(); ++t) {
      const double perDpu = m_tensorBytes[t] / l.tensorSplit[t];
      if (k.tensors[t].role == TensorRole::Input && !m_p.isResident(static_cast<int>(t)))
        e.transferNs += transferNs(l, perDpu, true, l.tensorSplit[t] == 1 && l.dpus > 1);
      if (k.tensors[t].role != TensorRole::Output) continue;
      if (m_keptSerially[t]) {  // select, unique: each DPU's kept values read one DPU after another
        const sim::dpu::HostRates& r = m_params.rates;
        e.transferNs += l.dpus * (r.fromDpuSetupMs * 1e6 + perDpu * o.keptFraction / r.serialFromDpuGBps);
        continue;
      }
      e.transferNs += transferNs(l, perDpu, false, false);
      // DPUs beyond the output's split hold partial sums of the same outputs, which the host adds.
      const double holders = l.dpus / l.tensorSplit[t];
      const double partials = (holders - 1) * m_tensorBytes[t] / dtypeBytes(k.tensors[t].dtype);
      e.mergeNs += std::max(0.0, partials) / o.hostMergeGops;
    }
    return e;
  }

  const Problem& m_p;
  const UpmemParams& m_params;
  std::function<UpmemCodegenOptions(std::uint64_t)> m_optionsOf;
  std::vector<double> m_tensorBytes;
  std::vector<bool> m_keptSerially;  // per tensor: written by select or unique
};

}  // namespace

std::unique_ptr<ICandidateEstimator> makeUpmemEstimator(
    const Problem& p, const UpmemParams& params,
    std::function<UpmemCodegenOptions(std::uint64_t)> optionsOf) {
  return std::make_unique<UpmemEstimator>(p, params, std::move(optionsOf));
}

const std::vector<std::string>& upmemFeatureNames() {
  static const std::vector<std::string> names = {
      "est_total_ns", "est_kernel_cycles", "est_transfer_ns",      "dpus",        "ranks",
      "tasklets",     "tile_bytes",        "instructions_per_dpu", "dmas_per_dpu"};
  return names;
}

}  // namespace pim
