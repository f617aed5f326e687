// SPDX-License-Identifier: Apache-2.0
#include "engine/llm/step_cost.h"

#include <algorithm>
#include <limits>

#include "engine/common/error.h"
#include "engine/llm/kv_append.h"

namespace pim::llm {

const char* energyPartName(EnergyPart p) {
  static const char* const names[] = {"gpu_memory",  "gpu_on_chip",  "gpu_compute", "gpu_nvlink",
                                      "pim_kernels", "gpu_pim_link", "kv_append"};
  return names[static_cast<int>(p)];
}

const char* energySourceOf(EnergyPart p) {
  static const char* const sources[] = {
      "attacc.md GPU baseline: 28.72 pJ per off-chip byte (AttAcc simulator src/config.py)",
      "attacc.md GPU baseline: L2 2.4, L1 1.28, register 0.0675 pJ/B (AttAcc simulator src/config.py)",
      "attacc.md GPU baseline: 0.32 pJ per MAC (AttAcc simulator src/config.py)",
      "AttAcc simulator src/config.py: NVLink 1.3 pJ/bit (10.4 pJ/B) per GPU",
      "PIMScope simulator: the backend's energy.* figures per command (datasets/backends)",
      "AttAcc simulator src/config.py: 10.4 pJ/B per byte over the GPU-PIM link",
      "backend energy.ACT, energy.WR and energy.HOST_IO_BYTE per command and byte (kv_append.h)"};
  return sources[static_cast<int>(p)];
}

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

std::string gpuShape(const GpuOp& g) {
  std::string s = std::to_string(g.m) + "x" + std::to_string(g.n);
  if (g.kind == GpuOpKind::Fc || g.kind == GpuOpKind::Matmul) s += "x" + std::to_string(g.k);
  if (g.numOp > 1) s += " (x" + std::to_string(g.numOp) + ")";
  return s;
}

std::string pimShape(const PimKernel& k) { return k.kernel + "[" + k.dims + "]"; }

/// The tie-break between options: the fastest, and how much slower the best other one is.
double marginOver(double chosen, std::initializer_list<double> others) {
  double best = kNever;
  for (double o : others)
    if (o >= 0 && o != chosen) best = std::min(best, o);
  return best == kNever || chosen <= 0 ? 0.0 : best / chosen;
}

/// Builds one layer's operator costs in order, tracking which side (GPU or PIM) holds the activations so
/// that every crossing pays the link.
class LayerBuilder {
 public:
  LayerBuilder(const LlmModel& m, const LlmHardware& hw, SystemChoice sys)
      : m_model(m), m_hw(hw), m_sys(sys) {}

  void gpuOp(const LayerOp& op, double extraEnergy = 0) {
    const GpuOpCost c = gpuOpCost(op.gpu, m_hw.gpu);
    moveTo(false, inputBytes(op.gpu));
    OpCost o = base(op, gpuShape(op.gpu));
    o.ns = c.time_s * 1e9;
    o.gpuNs = o.ns;
    o.schedule = "A100";
    o.energyPj = c.energy_pJ.total() + extraEnergy;
    addGpuEnergy(c);
    m_out.push_back(std::move(o));
  }

  void pimOp(OpCost o, const PimRun& run, std::int64_t inBytes, std::int64_t outBytes) {
    moveTo(true, inBytes);
    o.where = Placement::Pim;
    o.ns = run.ns;
    o.schedule = run.schedule;
    o.energyPj = run.energyPj * m_hw.gpu.gpus;
    o.compileSeconds = run.compileSeconds;
    energy[static_cast<int>(EnergyPart::PimKernels)] += o.energyPj;
    m_out.push_back(std::move(o));
    m_lastOutBytes = outBytes;
  }

  /// GPU and PIM each take a share of the rows so that both finish together (`ns`); the GPU share's energy
  /// is the GPU model's scaled by its share, the PIM share's the simulated kernel's.
  void splitOp(OpCost o, const GpuOpCost& g, double pimEnergyPj, double ns, std::int64_t inBytes) {
    moveTo(false, inBytes);
    const double gpuShare = std::clamp(ns / (g.time_s * 1e9), 0.0, 1.0);
    link(inBytes);  // the input also goes to the PIM devices
    o.where = Placement::Split;
    o.ns = ns;
    addGpuEnergy(g, gpuShare);
    const double pimPj = pimEnergyPj * m_hw.gpu.gpus * (1 - gpuShare);
    energy[static_cast<int>(EnergyPart::PimKernels)] += pimPj;
    o.energyPj = g.energy_pJ.total() * gpuShare + pimPj;
    m_out.push_back(std::move(o));
    link(static_cast<std::int64_t>(static_cast<double>(m_lastOutBytes) * (1 - gpuShare)));  // PIM's rows back
  }

  void kvAppend(const KvAppendCost& c) {
    OpCost o;
    o.op = "kv_append";
    o.phase = Phase::Attention;
    o.where = Placement::Pim;
    o.schedule = std::string("host writes, bound by ") + c.bound;
    o.shape = std::to_string(c.headsPerChannel) + " heads per channel";
    o.ns = c.ns;
    o.energyPj = c.energyPj * m_hw.gpu.gpus;
    energy[static_cast<int>(EnergyPart::KvAppend)] += o.energyPj;
    m_out.push_back(std::move(o));
  }

  /// The activations are needed on `pim` (true) or the GPU; `bytes` cross the link when they are elsewhere.
  void moveTo(bool pim, std::int64_t bytes) {
    if (pim != m_onPim) link(bytes);
    m_onPim = pim;
  }
  void setOutput(std::int64_t bytes) { m_lastOutBytes = bytes; }
  std::vector<OpCost>& ops() { return m_out; }
  std::array<double, kEnergyPartCount> energy{};

 private:
  /// What an operator reads of the activations: a matmul its m x k operand, anything else its m x n input.
  static std::int64_t inputBytes(const GpuOp& g) {
    const bool matmul = g.kind == GpuOpKind::Fc || g.kind == GpuOpKind::Matmul;
    return g.m * (matmul ? g.k : g.n) * g.numOp * g.dbyte;
  }

  OpCost base(const LayerOp& op, std::string shape) const {
    OpCost o;
    o.op = op.name;
    o.phase = op.phase;
    o.shape = std::move(shape);
    return o;
  }

  void link(std::int64_t bytes) {
    if (bytes <= 0) return;
    const GpuOpCost c = linkCost(bytes, m_hw.gpu, m_hw.gpu.gpus);
    OpCost o;
    o.op = "link";
    o.phase = Phase::Communication;
    o.where = Placement::Gpu;
    o.schedule = "GPU-PIM link";
    o.shape = std::to_string(bytes) + " B";
    o.ns = c.time_s * 1e9;
    o.energyPj = c.energy_pJ.total();
    energy[static_cast<int>(EnergyPart::Link)] += o.energyPj;
    m_out.push_back(std::move(o));
  }

  void addGpuEnergy(const GpuOpCost& c, double share = 1.0) {
    const GpuEnergy& e = c.energy_pJ;
    energy[static_cast<int>(EnergyPart::GpuMemory)] += e.offchip * share;
    energy[static_cast<int>(EnergyPart::GpuOnChip)] += (e.l2 + e.l1 + e.reg) * share;
    energy[static_cast<int>(EnergyPart::GpuCompute)] += e.alu * share;
    energy[static_cast<int>(EnergyPart::GpuNvlink)] += e.comm * share;
  }

  const LlmModel& m_model;
  const LlmHardware& m_hw;
  SystemChoice m_sys;
  std::vector<OpCost> m_out;
  bool m_onPim = false;
  std::int64_t m_lastOutBytes = 0;
};

}  // namespace

namespace {

/// The options a system weighs for a weight layer, and how it shares an FFN with the PIM devices.
struct FcOptions {
  bool pim = false;    // may run wholly on PIM
  bool split = false;  // may share rows with PIM
};

FcOptions fcOptionsOf(SystemChoice sys, Phase phase) {
  const bool ffn = phase == Phase::Ffn;
  switch (sys.kind) {
    case SystemKind::Gpu:
      return {};
    // AttAcc keeps QKV and the projection on the GPU; DCC moves them when its schedule beats the GPU.
    case SystemKind::AttAccBase:
      return {sys.tiling == Tiling::Dcc && !ffn, false};
    case SystemKind::AttAccFull:
      return {sys.tiling == Tiling::Dcc && !ffn, ffn};
    case SystemKind::Auto:
      return {true, true};
  }
  return {};
}

/// AttAcc_Full's FFN share (AttAcc simulator, system.py _ff_parallel): the GPU keeps the fraction of the rows
/// its throughput is of the sum. Memory-bound: the PIM units re-read the weights for every sequence of the
/// batch, so their effective bandwidth is scale x the GPU's / batch; compute-bound: they perform 2 FLOPs per
/// element they read.
double attaccFfnShareNs(const GpuOpCost& g, const LlmHardware& hw, std::int64_t batch, int bytes) {
  const double scale = pimBandwidthScale(hw.pim->backend());
  const double bw = hw.gpu.gpu.peakBw;
  double ratio = 1;
  if (g.computeBound) {
    const double pimFlops = bw / bytes * 2 * scale;
    ratio = hw.gpu.gpu.peakFlops / (hw.gpu.gpu.peakFlops + pimFlops);
  } else {
    ratio = bw / (bw + bw * scale / static_cast<double>(batch));
  }
  return g.time_s * 1e9 * ratio;
}

/// Places one weight layer (QKV, projection, an FFN matrix) by the system's options; the fastest wins.
void placeFc(LayerBuilder& b, const LayerOp& op, const LlmHardware& hw, SystemChoice sys, StepCost& out) {
  const FcOptions can = fcOptionsOf(sys, op.phase);
  const GpuOpCost g = gpuOpCost(op.gpu, hw.gpu);
  const double gpuNs = g.time_s * 1e9;
  if (!can.pim && !can.split) return b.gpuOp(op);
  const bool vendorShare = sys.kind == SystemKind::AttAccFull && sys.tiling == Tiling::Vendor;
  const Tiling tiling = sys.pimTiling();
  const PimRun run = hw.pim->run(*op.pim, tiling);
  if (!run.available) {
    if (can.pim && !can.split) return b.gpuOp(op);  // DCC keeps what it cannot schedule on the GPU
    out.unavailable = run.reason;
    return;
  }
  OpCost o;
  o.op = op.name;
  o.phase = op.phase;
  o.shape = pimShape(*op.pim);
  o.gpuNs = gpuNs;
  o.pimNs = can.pim ? run.ns : -1;
  o.preloadNs = run.preloadNs;  // the weights laid out for this schedule, once
  if (can.split)
    o.splitNs = vendorShare ? attaccFfnShareNs(g, hw, op.gpu.m, op.gpu.dbyte) : 1 / (1 / gpuNs + 1 / run.ns);
  const double best = std::min({gpuNs, o.pimNs < 0 ? kNever : o.pimNs, o.splitNs < 0 ? kNever : o.splitNs});
  o.margin = marginOver(best, {gpuNs, o.pimNs, o.splitNs});
  const std::int64_t inBytes = op.gpu.m * op.gpu.k * op.gpu.dbyte,
                     outBytes = op.gpu.m * op.gpu.n * op.gpu.dbyte;
  if (best == o.splitNs) {
    o.schedule = "A100 + " + (vendorShare ? std::string("AttAcc's share") : run.schedule);
    o.compileSeconds = run.compileSeconds;
    b.setOutput(outBytes);
    return b.splitOp(std::move(o), g, run.energyPj, best, inBytes);
  }
  if (best == o.pimNs) return b.pimOp(std::move(o), run, inBytes, outBytes);
  const double margin = o.margin;
  b.gpuOp(op);
  b.ops().back().pimNs = o.pimNs;
  b.ops().back().splitNs = o.splitNs;
  b.ops().back().margin = margin;
  b.ops().back().compileSeconds = run.compileSeconds;
}

}  // namespace

double pimBandwidthScale(const Backend& b) {
  auto pimParam = [&](const char* key) {
    const auto it = b.pimTiming.find(std::string("pim.") + key);
    return it == b.pimTiming.end() ? 0.0 : it->second;
  };
  const double spacing =
      pimParam(pimParam("power_constraint") == 0 ? "MACAB_to_MACAB_nopower" : "MACAB_to_MACAB");
  if (spacing <= 0 || b.system.hostBandwidthGBps <= 0 || b.dram.columns <= 0) return 0;
  // The GEMV units stream their banks a row at a time: all-bank ACT, one MACAB per column at the MAC
  // spacing, precharge-all, the next ACT; never faster than the row cycle.
  const double columns = b.dram.columns;
  const double rowCycles =
      std::max(pimParam("ACTAB_to_ACTAB"), pimParam("ACTAB_to_MACAB") + (columns - 1) * spacing +
                                               pimParam("MACAB_to_PREA") + pimParam("PREA_to_ACTAB"));
  const double units = static_cast<double>(b.system.devices) * b.group.groupsPerDevice * b.core.coresPerGroup;
  const double pimBytesPerS = units * columns * b.dram.columnBytes / (rowCycles * b.dram.tCKns * 1e-9);
  return pimBytesPerS / (b.system.hostBandwidthGBps * 1e9);
}

}  // namespace pim::llm

namespace pim::llm {
namespace {

/// AttAcc's pipelining of the link transfers around attention on PIM (AttAcc simulator, system.py
/// _pipeline): heads are sent and returned one after another, so all but one head's transfers hide behind
/// the attention of the others.
void overlapAttentionLinks(std::vector<OpCost>& ops, std::size_t attention, std::int64_t headsPerGpu) {
  std::vector<std::size_t> links;
  for (std::size_t i = attention; i-- > 0 && ops[i].op == "link";) links.push_back(i);
  for (std::size_t i = attention + 1; i < ops.size() && (ops[i].op == "link" || ops[i].op == "kv_append");
       ++i)
    if (ops[i].op == "link") links.push_back(i);
  double linkNs = 0;
  for (std::size_t i : links) linkNs += ops[i].ns;
  if (linkNs <= 0) return;
  const double ratio = 1.0 / static_cast<double>(headsPerGpu);
  const double attn = ops[attention].ns;
  const double exposed = attn > linkNs ? linkNs * ratio : linkNs - attn * (1 - ratio);
  for (std::size_t i : links) ops[i].ns *= exposed / linkNs;
}

/// Attention (score, softmax, context) on the GPU or, as one `attn` kernel, on PIM. Returns the index of the
/// PIM kernel's cost in the layer, or npos when it ran on the GPU.
std::size_t placeAttention(LayerBuilder& b, const std::vector<LayerOp>& ops, std::size_t score,
                           const LlmHardware& hw, SystemChoice sys, const LlmModel& m, StepCost& out) {
  double gpuNs = 0;
  for (std::size_t i = score; i < score + 3; ++i) gpuNs += gpuOpCost(ops[i].gpu, hw.gpu).time_s * 1e9;
  // On the GPU: three kernels, the first naming the whole attention (its shape as the PIM kernel's, its
  // time the three's) for the decision table.
  auto onGpu = [&] {
    const std::size_t first = b.ops().size();
    for (std::size_t i = score; i < score + 3; ++i) b.gpuOp(ops[i]);
    b.ops()[first].shape = pimShape(*ops[score].pim);
    b.ops()[first].gpuNs = gpuNs;
    return std::string::npos;
  };
  if (!sys.usesPim()) return onGpu();
  const Tiling tiling = sys.pimTiling();
  const PimRun run = hw.pim->run(*ops[score].pim, tiling);
  if (!run.available) {
    if (sys.kind == SystemKind::Auto) return onGpu();
    out.unavailable = "attention on " + hw.pim->backend().name + ": " + run.reason;
    return std::string::npos;
  }
  if (sys.kind == SystemKind::Auto && gpuNs < run.ns) {
    const std::size_t first = b.ops().size();
    onGpu();
    b.ops()[first].pimNs = run.ns;
    b.ops()[first].margin = run.ns / gpuNs;
    b.ops()[first].compileSeconds = run.compileSeconds;
    return std::string::npos;
  }
  const GpuOp& s = ops[score].gpu;
  OpCost o;
  o.op = "attention";
  o.phase = Phase::Attention;
  o.shape = pimShape(*ops[score].pim);
  o.gpuNs = gpuNs;
  o.pimNs = run.ns;
  o.margin = marginOver(run.ns, {gpuNs});
  o.kernel = ops[score].pim;
  o.layout = run.layout;
  o.preloadNs = run.preloadNs;
  // The score's instances are (sequence, K/V head) pairs of this GPU, each with s.m query heads
  // (decodeLayerOps).
  const std::int64_t kvHeads = s.numOp, queryHeads = s.numOp * s.m;
  const std::int64_t qkvBytes = ops[score - 1].gpu.m * ops[score - 1].gpu.n * s.dbyte;
  b.pimOp(std::move(o), run, qkvBytes, queryHeads * m.headDim * s.dbyte);
  const std::size_t at = b.ops().size() - 1;
  b.kvAppend(kvAppendCost(hw.pim->backend(), kvHeads, m.headDim, s.dbyte));
  return at;
}

}  // namespace

void checkPimRun(const LlmHardware& hw, SystemChoice sys) {
  if (!sys.usesPim()) return;
  if (!hw.pim) throw InputError(sys.name() + " needs a PIM backend");
  if (hw.bytes != 2)
    throw InputError(sys.name() + ": the PIM kernels of " + hw.pim->backend().name +
                     " run in FP16 only (its core.dtypes); FP8 runs on the gpu system");
}

namespace {

/// The builder's costs, `times` over (the layer count, or once for the LM head), added into `out`.
void total(LayerBuilder& b, double times, StepCost& out) {
  for (OpCost& o : b.ops()) {
    out.phaseNs[static_cast<int>(o.phase)] += o.ns * times;
    out.ns += o.ns * times;
    if (o.op == "kv_append") out.kvAppendNs += o.ns * times;
    out.compileSeconds += o.compileSeconds;
    out.ops.push_back(std::move(o));
  }
  for (int e = 0; e < kEnergyPartCount; ++e) out.energyPj[e] += b.energy[e] * times;
}

/// The final norm and the LM head after the layers, once (`decode`: placed by the system; else on the GPU).
void addLmHead(const LlmModel& m, const LlmHardware& hw, SystemChoice sys, std::int64_t tokens, bool decode,
               StepCost& out) {
  LayerBuilder b(m, hw, decode ? sys : SystemChoice{});
  const std::vector<LayerOp> ops = lmHeadOps(m, tokens, hw.gpu.gpus, hw.bytes, decode);
  for (const LayerOp& op : ops) {
    if (op.pim)
      placeFc(b, op, hw, sys, out);
    else
      b.gpuOp(op);
  }
  // Sampling reads the logits on the GPU: a head that ran on PIM sends them back over the link.
  const GpuOp& head = ops.back().gpu;
  b.moveTo(false, head.m * head.n * head.dbyte);
  const std::size_t first = out.ops.size();
  total(b, 1, out);
  for (std::size_t i = first; i < out.ops.size(); ++i) out.ops[i].once = true;
}

}  // namespace

StepCost decodeStepCost(const LlmModel& m, const LlmHardware& hw, SystemChoice sys, std::int64_t batch,
                        std::int64_t context, bool lmHead) {
  checkPimRun(hw, sys);
  const std::vector<LayerOp> ops = decodeLayerOps(m, {batch, context, hw.gpu.gpus, hw.bytes});
  StepCost out;
  LayerBuilder b(m, hw, sys);
  std::size_t attention = std::string::npos;
  for (std::size_t i = 0; i < ops.size() && out.unavailable.empty(); ++i) {
    const LayerOp& op = ops[i];
    if (op.name == "score") {
      attention = placeAttention(b, ops, i, hw, sys, m, out);
      i += 2;  // softmax and context are part of it
    } else if (op.pim && op.gpu.kind == GpuOpKind::Fc) {
      placeFc(b, op, hw, sys, out);
    } else {
      b.gpuOp(op);
    }
  }
  if (!out.unavailable.empty()) return out;
  if (attention != std::string::npos) overlapAttentionLinks(b.ops(), attention, m.heads / hw.gpu.gpus);
  total(b, static_cast<double>(m.layers), out);
  if (lmHead) addLmHead(m, hw, sys, batch, true, out);
  return out;
}

StepCost prefillCost(const LlmModel& m, const LlmHardware& hw, SystemChoice sys, std::int64_t batch,
                     std::int64_t lin, bool lmHead) {
  checkPimRun(hw, sys);
  StepCost out;
  LayerBuilder b(m, hw, SystemChoice{});
  for (const LayerOp& op : prefillLayerOps(m, batch, lin, hw.gpu.gpus, hw.bytes)) b.gpuOp(op);
  if (sys.usesPim()) {
    // The prompt's K and V go to the PIM devices and are laid out for the first step's attention schedule.
    const std::vector<LayerOp> first = decodeLayerOps(m, {batch, lin + 1, hw.gpu.gpus, hw.bytes});
    const Tiling tiling = sys.pimTiling();
    const PimRun run = hw.pim->run(*first[1].pim, tiling);
    if (run.available) {
      b.moveTo(true, batch * lin * 2 * (m.kvHeads / hw.gpu.gpus) * m.headDim * hw.bytes);
      OpCost o;
      o.op = "kv_layout";
      o.phase = Phase::Attention;
      o.where = Placement::Pim;
      o.shape = pimShape(*first[1].pim);
      o.schedule = run.schedule;
      o.ns = run.preloadNs;
      o.compileSeconds = run.compileSeconds;
      b.ops().push_back(o);
      b.moveTo(false, 0);
    }
  }
  total(b, static_cast<double>(m.layers), out);
  if (lmHead) addLmHead(m, hw, sys, batch, false, out);
  return out;
}

}  // namespace pim::llm
