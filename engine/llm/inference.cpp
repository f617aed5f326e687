// SPDX-License-Identifier: Apache-2.0
#include "engine/llm/inference.h"

#include <algorithm>
#include <cstdio>

#include "engine/common/error.h"
#include "engine/common/threads.h"
#include "engine/target/gpu_baseline.h"
#include "engine/target/registry.h"

namespace pim::llm {

namespace {

int bytesOf(const std::string& dtype) {
  if (dtype == "fp16") return 2;
  if (dtype == "fp8") return 1;
  throw InputError("--dtype: unknown element type '" + dtype + "' (fp16, fp8)");
}

Backend pimBackend(const LlmSetup& s) {
  Backend b = s.backend.find('/') != std::string::npos || s.backend.ends_with(".json")
                  ? loadBackendFile(s.backend)
                  : builtinBackend(s.backend);
  std::vector<std::pair<std::string, double>> edits = {{"system.devices", s.pimDevicesPerGpu}};
  if (b.param("pim.power_constraint")) edits.emplace_back("pim.power_constraint", s.powerConstraint ? 1 : 0);
  edits.insert(edits.end(), s.edits.begin(), s.edits.end());
  b.setParameters(edits);
  return b;
}

std::int64_t deviceBytes(const Backend& b) {
  return std::int64_t{b.dram.pseudoChannels} * b.dram.banksPerPseudoChannel() * b.dram.rows *
         b.dram.rowBytes();
}

std::string gb(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", static_cast<double>(bytes) / 1e9);
  return buf;
}

void checkRequest(const LlmModel& m, std::int64_t batch, std::int64_t lin, std::int64_t lout) {
  auto range = [](const char* what, std::int64_t v, std::int64_t lo, std::int64_t hi) {
    if (v < lo || v > hi)
      throw InputError(std::string(what) + ": " + std::to_string(v) + " is outside " + std::to_string(lo) +
                       ".." + std::to_string(hi));
  };
  range("--batch", batch, 1, kMaxBatch);
  range("--lin", lin, 1, kMaxTokens);
  range("--lout", lout, 2, kMaxTokens);  // the first output token comes from the prefill
  (void)m;
}

std::string layoutText(const OpCost& o) {
  if (o.where == Placement::Gpu) return "gpu";
  if (o.layout.empty()) return o.schedule;
  std::string s;
  for (const auto& p : o.layout)
    s += "(" + std::to_string(p[0]) + "," + std::to_string(p[1]) + "," + std::to_string(p[2]) + ")";
  return s;
}

bool decisionOp(const OpCost& o) {
  return o.op == "qkv" || o.op == "attention" || o.op == "score" || o.op == "proj" ||
         o.op.starts_with("ffn_") || o.op == "lm_head";
}

/// Folds one step's operators into the decision table: a row per operator and run of steps with the same
/// placement and layout.
class DecisionTable {
 public:
  void add(const std::vector<OpCost>& ops, std::int64_t step, std::int64_t context) {
    for (const OpCost& o : ops) {
      if (!decisionOp(o)) continue;
      const std::string name = o.op == "score" ? "attention" : o.op;
      const std::string key = layoutText(o);
      auto last = std::find_if(m_rows.rbegin(), m_rows.rend(), [&](const Row& r) { return r.d.op == name; });
      if (last != m_rows.rend() && last->d.lastStep == step - 1 && last->d.where == o.where &&
          last->key == key) {
        last->d.lastStep = step;
        last->lastContext = context;
        if (o.margin > 0) last->d.margin = last->d.margin > 0 ? std::min(last->d.margin, o.margin) : o.margin;
        continue;
      }
      Row r;
      r.key = key;
      r.d.op = name;
      r.d.phase = o.phase;
      r.d.shape = o.shape;
      r.d.where = o.where;
      r.d.schedule = o.schedule;
      r.d.gpuUs = o.gpuNs < 0 ? -1 : o.gpuNs / 1e3;
      r.d.pimUs = o.pimNs < 0 ? -1 : o.pimNs / 1e3;
      r.d.splitUs = o.splitNs < 0 ? -1 : o.splitNs / 1e3;
      r.d.margin = o.margin;
      r.d.firstStep = r.d.lastStep = step;
      r.firstContext = r.lastContext = context;
      m_rows.push_back(std::move(r));
    }
  }
  /// The rows, attention's shape naming its range of sequence lengths.
  std::vector<KernelDecision> rows() const {
    std::vector<KernelDecision> out;
    for (const Row& r : m_rows) {
      KernelDecision d = r.d;
      if (r.d.op == "attention" && r.lastContext != r.firstContext) {
        const std::string l = "l=" + std::to_string(r.firstContext);
        if (const auto at = d.shape.find(l); at != std::string::npos)
          d.shape.replace(at, l.size(), l + ".." + std::to_string(r.lastContext));
        else
          d.shape += " (l=" + std::to_string(r.firstContext) + ".." + std::to_string(r.lastContext) + ")";
      }
      out.push_back(std::move(d));
    }
    return out;
  }

 private:
  struct Row {
    KernelDecision d;
    std::string key;
    std::int64_t firstContext = 0, lastContext = 0;
  };
  std::vector<Row> m_rows;
};

/// Attention at every context of a request's decode steps: the kernels a DCC request compiles most.
std::vector<PimKernel> attentionKernelsOf(const LlmModel& m, DecodeShape first, std::int64_t lout) {
  std::vector<PimKernel> out;
  for (std::int64_t step = 1; step < lout; ++step, ++first.context)
    for (const LayerOp& op : decodeLayerOps(m, first))
      if (op.pim && op.name == "score") out.push_back(*op.pim);
  return out;
}

OpCost* attentionOf(StepCost& c) {
  for (OpCost& o : c.ops)
    if (o.op == "attention") return &o;
  return nullptr;
}

}  // namespace

void LlmSimulator::prefetchLayouts(const OpCost& now, const std::vector<PimKernel>& attention,
                                   std::size_t from, const LayoutSignature& current,
                                   const std::atomic<bool>* cancel) {
  // While the cache stays in `current`, each step whose pick splits differently simulates its attention in
  // `current` (keepOrRelayout). When this step's is not there yet, those of the next few steps are simulated
  // side by side, so that the steps after find theirs.
  if (from >= attention.size() || !now.kernel || *now.kernel != attention[from] ||
      m_table->holdsLayout(attention[from], current))
    return;
  const std::size_t ahead =
      std::min(std::size_t{8} * workerThreads(m_setup.threads), attention.size() - from);
  const auto first = attention.begin() + static_cast<std::ptrdiff_t>(from);
  m_table->prefetchLayouts({first, first + static_cast<std::ptrdiff_t>(ahead)}, current, m_setup.threads,
                           cancel);
}

void LlmSimulator::keepOrRelayout(OpCost& attention, const LayoutSignature& current, std::int64_t remaining,
                                  TokenStep& t, MemoryUse& memory) {
  const double layers = static_cast<double>(m_model.layers);
  const double relayoutNs = attention.preloadNs * layers;
  const PimRun keep = m_table->runLayout(*attention.kernel, current);
  // Keeping the cache where it is costs the slower schedule on every step left; moving it costs one
  // preload. The cheaper wins (the table's pick is the fastest for this shape alone).
  if (keep.available && (keep.ns - attention.ns) * layers * static_cast<double>(remaining) < relayoutNs) {
    const double deltaMs = (keep.ns - attention.ns) * layers / 1e6;
    t.ms += deltaMs;
    t.phaseMs[static_cast<int>(Phase::Attention)] += deltaMs;
    attention.ns = keep.ns;
    attention.pimNs = keep.ns;
    attention.schedule = keep.schedule;
    attention.layout = current;
    return;
  }
  t.relayoutMs = relayoutNs / 1e6;
  t.phaseMs[static_cast<int>(Phase::Attention)] += t.relayoutMs;
  t.ms += t.relayoutMs;
  ++memory.relayouts;
}

LlmSimulator::LlmSimulator(LlmSetup setup) : m_setup(std::move(setup)) {
  m_model = llmModelByName(m_setup.model);
  m_hw.bytes = bytesOf(m_setup.dtype.empty() ? m_model.dtype : m_setup.dtype);
  if (m_setup.gpus < 1 || m_setup.gpus > 8)
    throw InputError("--gpus: " + std::to_string(m_setup.gpus) + " is outside 1..8 (a DGX holds 8 A100s)");
  decodeLayerOps(m_model, {1, 1, m_setup.gpus, m_hw.bytes});  // refuses heads or widths that do not split
  setLmHead(m_setup.lmHead);
  Backend b = pimBackend(m_setup);
  m_hw.gpu.gpus = m_setup.gpus;
  if (const auto declared = declaredHostGpu(b)) m_hw.gpu.gpu = *declared;
  PimTableOptions table;
  table.threads = m_setup.threads;
  table.topK = m_setup.topK;
  table.store = m_setup.store;
  m_table = std::make_unique<PimKernelTable>(std::move(b), table);
  m_hw.pim = m_table.get();
}

LlmSimulator::~LlmSimulator() = default;

void LlmSimulator::setLmHead(bool on) {
  if (on) lmHeadOps(m_model, 1, m_setup.gpus, m_hw.bytes, true);  // refuses a model without a vocab
  m_setup.lmHead = on;
}

MemoryUse LlmSimulator::memoryUseOf(std::int64_t batch, std::int64_t lin, std::int64_t lout) const {
  MemoryUse u;
  u.weightBytes = m_model.layers * layerWeightBytes(m_model, m_hw.bytes);
  if (m_setup.lmHead) u.weightBytes += lmHeadWeightBytes(m_model, m_setup.gpus, m_hw.bytes);
  u.kvBytes = m_model.layers * kvBytesPerToken(m_model, m_hw.bytes) * (lin + lout - 1) * batch;
  u.capacityBytes =
      std::int64_t{m_setup.gpus} * m_table->backend().system.devices * deviceBytes(m_table->backend());
  u.policy =
      "weights are laid out once at model load for the GEMV schedule of their shape; the KV cache keeps its "
      "layout while the attention schedule's (groups, cores) split stays the same (a longer sequence only "
      "lengthens each core's share); when the table's pick for a new length splits differently, the cache "
      "moves (the pick's preload) only if keeping the old split would cost more over the steps left";
  return u;
}

SystemResult LlmSimulator::request(SystemChoice system, std::int64_t batch, std::int64_t lin,
                                   std::int64_t lout, const std::function<void(std::int64_t)>& onStep,
                                   const std::atomic<bool>* cancel) {
  checkRequest(m_model, batch, lin, lout);
  SystemResult r;
  r.system = system.name();
  r.memory = memoryUseOf(batch, lin, lout);
  if (m_setup.checkCapacity && r.memory.weightBytes + r.memory.kvBytes > r.memory.capacityBytes) {
    r.reason = m_model.display + " at batch " + std::to_string(batch) + " and " +
               std::to_string(lin + lout - 1) + " tokens needs " + gb(r.memory.weightBytes) +
               " of weights and " + gb(r.memory.kvBytes) + " of KV cache, more than the " +
               gb(r.memory.capacityBytes) + " of " + std::to_string(m_setup.gpus) + " x " +
               std::to_string(m_table->backend().system.devices) + " " + m_table->backend().name +
               " stacks (add GPUs, PIM devices or lower the batch)";
    return r;
  }
  try {
    checkPimRun(m_hw, system);
    // DCC's attention kernel at each step, step s at s - 1: compiled before the steps run.
    std::vector<PimKernel> attention;
    if (system.usesPim() && system.pimTiling() == Tiling::Dcc) {
      attention = attentionKernelsOf(m_model, {batch, lin + 1, m_setup.gpus, m_hw.bytes}, lout);
      m_table->prepare(attention, m_setup.threads, cancel);
    }
    const StepCost prefill = prefillCost(m_model, m_hw, system, batch, lin, m_setup.lmHead);
    r.prefillMs = prefill.ns / 1e6;
    r.compileMs = prefill.compileSeconds * 1e3;
    DecisionTable decisions;
    std::array<double, kEnergyPartCount> energy{};
    LayoutSignature layout;
    for (std::int64_t step = 1; step < lout; ++step) {
      if (cancel && cancel->load()) throw InputError("cancelled");
      StepCost c = decodeStepCost(m_model, m_hw, system, batch, lin + step, m_setup.lmHead);
      if (!c.unavailable.empty()) {
        r.reason = c.unavailable;
        return r;
      }
      TokenStep t{step, lin + step, c.ns / 1e6, c.compileSeconds * 1e3, {}, 0};
      for (int p = 0; p < kPhaseCount; ++p) t.phaseMs[p] = c.phaseNs[p] / 1e6;
      if (OpCost* a = attentionOf(c); a && !layout.empty() && a->layout != layout) {
        prefetchLayouts(*a, attention, static_cast<std::size_t>(step - 1), layout, cancel);
        keepOrRelayout(*a, layout, lout - step, t, r.memory);
      }
      if (const OpCost* a = attentionOf(c)) layout = a->layout;
      if (step == 1)
        for (const OpCost& o : c.ops)
          if (o.where != Placement::Gpu && o.op != "attention" && o.op != "kv_append")
            r.memory.weightPreloadMs +=
                o.preloadNs * (o.once ? 1.0 : static_cast<double>(m_model.layers)) / 1e6;
      decisions.add(c.ops, step, lin + step);
      for (int e = 0; e < kEnergyPartCount; ++e) energy[e] += c.energyPj[e];
      r.kvAppendMs += c.kvAppendNs / 1e6;
      r.compileMs += t.compileMs;
      r.steps.push_back(t);
      if (onStep) onStep(step);
    }
    const double steps = static_cast<double>(r.steps.size());
    double decodeMs = 0;
    for (const TokenStep& t : r.steps) {
      decodeMs += t.ms;
      for (int p = 0; p < kPhaseCount; ++p) r.breakdownMs[p] += t.phaseMs[p] / steps;
    }
    r.kvAppendMs /= steps;
    r.firstTokenMs = r.steps.front().ms;
    r.lastTokenMs = r.steps.back().ms;
    r.meanTokenMs = decodeMs / steps;
    r.totalMs = r.prefillMs + decodeMs + r.compileMs;
    r.tokensPerS = static_cast<double>(batch * lout) / (r.totalMs / 1e3);
    const double tokens = steps * static_cast<double>(batch);
    for (int e = 0; e < kEnergyPartCount; ++e) {
      r.energyMj[e] = energy[e] / tokens * 1e-9;
      r.energyPerTokenMj += r.energyMj[e];
    }
    r.decisions = decisions.rows();
    r.available = true;
  } catch (const InputError& e) {
    r.reason = e.what();
  }
  return r;
}

InferenceResult runInference(LlmSimulator& sim, const std::vector<SystemChoice>& systems, std::int64_t batch,
                             std::int64_t lin, std::int64_t lout,
                             const std::function<void(const LlmProgress&)>& onProgress,
                             const std::atomic<bool>* cancel) {
  InferenceResult out;
  out.model = sim.model().name;
  out.display = sim.model().display;
  out.dtype = sim.bytes() == 2 ? "fp16" : "fp8";
  out.batch = batch;
  out.lin = lin;
  out.lout = lout;
  out.gpus = sim.setup().gpus;
  out.lmHead = sim.setup().lmHead;
  for (std::size_t i = 0; i < systems.size(); ++i) {
    LlmProgress p{systems[i].name(), i, systems.size(), 0, lout - 1, 0};
    out.systems.push_back(sim.request(
        systems[i], batch, lin, lout,
        [&](std::int64_t step) {
          if (!onProgress) return;
          p.step = step;
          p.tableSize = sim.table().size();
          onProgress(p);
        },
        cancel));
    if (cancel && cancel->load()) break;
  }
  return out;
}

}  // namespace pim::llm
