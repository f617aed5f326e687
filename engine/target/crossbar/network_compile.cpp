// SPDX-License-Identifier: Apache-2.0
#include "engine/target/crossbar/network_compile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "engine/common/error.h"
#include "engine/crossbar/ht_schedule.h"
#include "engine/crossbar/replication.h"
#include "engine/hw/backend.h"
#include "engine/target/crossbar/crossbar_backend.h"

namespace pim {
namespace {

namespace cb = crossbar;

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::int64_t ns(const Backend& b, const char* key) { return std::llround(crossbarValue(b, key)); }

/// Forwards every instruction group to the profiler and the request's extra sink, counting them, reporting
/// every few hundred and stopping on cancel.
class CompileSink final : public xbar::IProgramSink {
 public:
  CompileSink(xbar::Profiler& profiler, const NetworkCompileRequest& r, std::int64_t expectedGroups)
      : m_profiler(profiler), m_request(r), m_expected(expectedGroups) {}
  bool group(const xbar::InstructionGroup& ig) override {
    if (m_request.cancel && m_request.cancel->load()) return false;
    m_profiler.group(ig);
    if (m_request.alsoTo && !m_request.alsoTo->group(ig)) return false;
    for (const auto& core : ig.cores) m_instructions += static_cast<std::int64_t>(core.size());
    ++m_groups;
    if (m_request.report && m_groups % 256 == 0)
      m_request.report("scheduling and profiling: instruction group " + cb::withThousands(m_groups) +
                       (m_expected > 0 ? " of " + cb::withThousands(m_expected) : std::string()));
    return true;
  }
  std::int64_t groups() const { return m_groups; }
  std::int64_t instructions() const { return m_instructions; }

 private:
  xbar::Profiler& m_profiler;
  const NetworkCompileRequest& m_request;
  std::int64_t m_expected = 0, m_groups = 0, m_instructions = 0;
};

/// CONV/FC layers on the longest provider chain: the stages a sample passes in the batch pipeline.
std::int64_t pipelineStages(const Network& net) {
  std::vector<std::int64_t> depth(net.nodes.size(), 0);
  std::int64_t deepest = 0;
  for (const NetworkNode& n : net.nodes) {
    std::int64_t d = 0;
    for (int p : n.providers) d = std::max(d, depth[static_cast<std::size_t>(p)]);
    d += (n.op == NetworkOp::Conv || n.op == NetworkOp::Fc) ? 1 : 0;
    depth[static_cast<std::size_t>(n.index)] = d;
    deepest = std::max(deepest, d);
  }
  return deepest;
}

std::vector<CompiledLayer> layersOf(const cb::CompilePlan& plan, const xbar::ProfileResult& profile) {
  std::vector<CompiledLayer> out;
  for (std::size_t i = 0; i < plan.layers.size(); ++i) {
    const cb::LayerPartition& l = plan.layers[i];
    CompiledLayer c;
    c.node = l.node;
    c.name = l.name;
    c.op = l.op == NetworkOp::Fc ? "FC" : "CONV";
    c.replicas = plan.replicas[i] / l.agp;
    c.agsPerReplica = l.agsPerReplica;
    c.windows = l.windows;
    c.unfolding = std::string(l.unfolding.name);
    if (static_cast<std::size_t>(l.node) < profile.nodes.size()) c.time = profile.nodes[l.node];
    out.push_back(std::move(c));
  }
  for (const cb::ArrayGroup& ag : plan.layout.ags)
    out[static_cast<std::size_t>(ag.layer)].crossbars += ag.crossbars;
  return out;
}

void fillCores(const cb::CompilePlan& plan, NetworkCompileResult& r) {
  r.coreCrossbars = plan.layout.usedCrossbars;
  r.coreLayers.assign(plan.layout.coreAgs.size(), {});
  for (std::size_t core = 0; core < plan.layout.coreAgs.size(); ++core) {
    auto& layers = r.coreLayers[core];
    for (int ag : plan.layout.coreAgs[core])
      layers.push_back(plan.layout.ags[static_cast<std::size_t>(ag)].layer);
    std::sort(layers.begin(), layers.end());
    layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  }
}

/// Runs the plan's schedule into `sink`; the instruction groups the schedule has and the MVMs it issued.
std::pair<std::int64_t, std::int64_t> schedule(const cb::CompilePlan& plan, xbar::IProgramSink& sink) {
  const cb::HtScheduleSummary s = cb::scheduleHt(plan, sink);
  return {s.instructionGroups + s.postGroups, s.mvms};
}

}  // namespace

std::string_view modeName(cb::PipelineMode m) { return m == cb::PipelineMode::Ht ? "ht" : "ll"; }
std::string_view timingName(cb::TimingMode t) {
  return t == cb::TimingMode::PimcompNn ? "pimcomp-nn" : "intended";
}

xbar::TimingParams timingParamsOf(const Backend& b, cb::TimingMode mode) {
  const cb::Accelerator a = acceleratorOf(b);
  xbar::TimingParams t;
  const bool compatible = mode == cb::TimingMode::PimcompNn;
  t.mvmLatencyNs = compatible ? ns(b, "timing.pimcompNnMvmNs")
                              : ns(b, "timing.mvmReadNs") + a.elementBits * ns(b, "timing.mvmPerBitNs") +
                                    ns(b, "timing.mvmAdcNs") + ns(b, "timing.mvmShiftAddNs") +
                                    ns(b, "timing.mvmWriteNs");
  t.mvmIssueIntervalNs = ns(b, "timing.mvmIntervalNs");
  t.elementBits = a.elementBits;
  t.vectorBytesPerStep = ns(b, "core.vectorBytesPerCycle");
  t.vectorStepNs = ns(b, "core.vectorCycleNs");
  t.localMemoryGBps = crossbarValue(b, "core.localMemoryGBps");
  t.globalMemoryGBps = crossbarValue(b, "chip.globalMemoryGBps");
  t.busGBps = crossbarValue(b, "chip.busGBps");
  t.hyperTransportGBps = crossbarValue(b, "accelerator.interChipGBps");
  t.coresPerChip = static_cast<int>(compatible ? ns(b, "timing.pimcompNnCoresPerChip") : a.cores() / a.chips);
  t.frequencyGHz = crossbarValue(b, "timing.frequencyGHz");
  try {
    xbar::validate(t);
  } catch (const std::invalid_argument& e) {
    throw InputError((b.file.empty() ? b.name : b.file) + ": " + e.what());
  }
  return t;
}

xbar::EnergyParams energyParamsOf(const Backend& b) {
  xbar::EnergyParams e = xbar::dac23TableI();
  e.pimmu.powerMw = crossbarValue(b, "energy.pimmuMw");
  e.pimmuReference.crossbars = ns(b, "energy.pimmuCrossbars");
  e.pimmuReference.rows = ns(b, "energy.pimmuRows");
  e.pimmuReference.cols = ns(b, "energy.pimmuColumns");
  e.vfu.powerMw = crossbarValue(b, "energy.vfuMw");
  e.localMemory.powerMw = crossbarValue(b, "energy.localMemoryMw");
  e.controlUnit.powerMw = crossbarValue(b, "energy.controlMw");
  e.router.powerMw = crossbarValue(b, "energy.routerMw");
  e.coresPerRouter = static_cast<int>(ns(b, "energy.coresPerRouter"));
  e.globalMemory.powerMw = crossbarValue(b, "energy.globalMemoryMw");
  e.hyperTransport.powerMw = crossbarValue(b, "energy.hyperTransportMw");
  e.leakageFraction = crossbarValue(b, "energy.leakageFraction");
  try {
    xbar::validate(e);
  } catch (const std::invalid_argument& ex) {
    throw InputError((b.file.empty() ? b.name : b.file) + ": " + ex.what());
  }
  return e;
}

NetworkCompileResult compileNetwork(const Backend& b, const Network& net, const NetworkCompileRequest& req) {
  const auto start = std::chrono::steady_clock::now();
  if (b.family != "crossbar")
    throw InputError("backend " + b.name + " is a " + b.family +
                     " backend: networks compile on crossbar backends (pimscope-cli backends lists them)");
  const cb::Accelerator acc = acceleratorOf(b);
  const xbar::TimingParams timing = timingParamsOf(b, req.timing);
  const xbar::EnergyParams energy = energyParamsOf(b);
  if (req.report) req.report("partitioning, replicating (" + req.compile.replication + ") and placing");
  const cb::CompilePlan plan = cb::compilePlan(net, acc, req.compile);

  NetworkCompileResult r;
  r.backend = b.name;
  r.network = plan.networkName;
  r.accelerator = cb::describe(acc);
  r.mode = req.compile.mode;
  r.replication = req.compile.replication;
  r.timing = req.timing;
  r.planSeconds = seconds(start);

  const auto scheduled = std::chrono::steady_clock::now();
  xbar::Profiler profiler(static_cast<int>(acc.cores()), timing);
  CompileSink sink(profiler, req,
                   req.compile.mode == cb::PipelineMode::Ht ? cb::htInstructionGroups(plan) : 0);
  const auto [groups, mvms] = schedule(plan, sink);
  r.cancelled = sink.groups() < groups;
  r.profile = profiler.result();
  r.scheduleSeconds = seconds(scheduled);

  r.instructionGroups = groups;
  r.instructions = sink.instructions();
  r.mvmCount = mvms;
  r.crossbarsUsed = plan.crossbarsUsed();
  r.crossbarsTotal = acc.crossbars();
  r.layers = layersOf(plan, r.profile);
  fillCores(plan, r);
  const double total = static_cast<double>(r.profile.totalNs);
  if (r.mode == cb::PipelineMode::Ht) {
    r.pipelineStages = pipelineStages(net);
    r.periodNs = total;
    r.throughputPerS = total > 0 ? 1e9 / total : 0;
    r.firstBatchLatencyNs = total * static_cast<double>(r.pipelineStages);
  } else {
    r.latencyNs = total;
  }
  const xbar::PimmuShape shape{acc.crossbarsPerCore, acc.rows, acc.cols, acc.elementBits, acc.cellBits};
  r.energy = xbar::estimateEnergy(r.profile, shape, energy);
  r.energyNj = r.energy.totalNj;
  return r;
}

}  // namespace pim
