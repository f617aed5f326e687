// SPDX-License-Identifier: Apache-2.0
#include "engine/target/crossbar/network_compile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/crossbar/ga.h"
#include "engine/crossbar/ht_schedule.h"
#include "engine/crossbar/in_order.h"
#include "engine/crossbar/layer_grouping.h"
#include "engine/crossbar/ll_schedule.h"
#include "engine/crossbar/replication.h"
#include "engine/hw/backend.h"
#include "engine/target/crossbar/crossbar_backend.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

namespace cb = crossbar;

double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

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
      m_request.report("scheduling and profiling: instruction group " + withThousands(m_groups) +
                       (m_expected > 0 ? " of " + withThousands(m_expected) : std::string()));
    return true;
  }
  std::int64_t groups() const { return m_groups; }
  std::int64_t instructions() const { return m_instructions; }

 private:
  xbar::Profiler& m_profiler;
  const NetworkCompileRequest& m_request;
  std::int64_t m_expected = 0, m_groups = 0, m_instructions = 0;
};

/// Each node's time within one HT period, for the layer grouping: a CONV/FC's time on its busiest core; a
/// post node's (PIMCOMP-NN's HT schedule leaves them out) estimated as one vector op per input element,
/// spread over every core as PIMCOMP spreads post nodes.
std::vector<double> layerTimes(const Network& net, const xbar::ProfileResult& profile,
                               const xbar::TimingParams& timing, std::int64_t cores) {
  std::vector<double> t(net.nodes.size(), 0.0);
  const double elementsPerStep =
      static_cast<double>(timing.vectorBytesPerStep * 8) / static_cast<double>(timing.elementBits);
  for (const NetworkNode& node : net.nodes) {
    const auto v = static_cast<std::size_t>(node.index);
    if (node.op == NetworkOp::Conv || node.op == NetworkOp::Fc) {
      if (v < profile.nodes.size()) {
        const xbar::NodeProfile& p = profile.nodes[v];
        t[v] = static_cast<double>(p.busiestMvmNs + p.busiestVectorNs + p.busiestMemoryNs + p.busiestCommNs);
      }
      continue;
    }
    std::int64_t elements = 0;
    for (int p : node.providers) {
      std::int64_t e = 1;
      for (std::int64_t d : net.nodes[static_cast<std::size_t>(p)].output_dim) e *= d;
      elements += e;
    }
    const double steps =
        std::ceil(static_cast<double>(elements) / static_cast<double>(cores) / elementsPerStep);
    t[v] = steps * static_cast<double>(timing.vectorStepNs);
  }
  return t;
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
    c.unfoldingPassedOver = std::string(l.greedyPassedOver);
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
    for (int ag : plan.layout.coreAgs[core]) {
      const int layer = plan.layout.ags[static_cast<std::size_t>(ag)].layer;
      if (layers.empty() || layers.back().layer != layer) layers.push_back({layer, 0});
      ++layers.back().ags;  // a core's AGs come in increasing index, so one layer's are adjacent
    }
  }
}

/// What running a plan's schedule through the profiler gives.
struct ScheduleRun {
  xbar::ProfileResult profile;
  std::int64_t groups = 0, mvms = 0, instructions = 0;
  std::vector<std::int64_t> localMemoryPeak;                                  // LL only
  std::int64_t spilledPixels = 0, spilledBytes = 0, spilledAccumulators = 0;  // LL only
  std::vector<std::int64_t> spillBytes;                                       // LL with spilling, per core
  bool cancelled = false;
};

/// Schedules `plan` (HT or LL by its mode) into the profiler, and into `req.alsoTo` when `dump`.
ScheduleRun runSchedule(const cb::CompilePlan& plan, const xbar::TimingParams& timing, cb::TimingMode mode,
                        const NetworkCompileRequest& req, bool dump) {
  xbar::Profiler profiler(static_cast<int>(plan.accelerator.cores()), timing);
  NetworkCompileRequest forSink = req;
  if (!dump) forSink.alsoTo = nullptr;
  const bool ht = plan.options.mode == cb::PipelineMode::Ht;
  CompileSink compileSink(profiler, forSink, ht ? cb::htInstructionGroups(plan) : 0);
  // In-order cores get their inputs assembled first in each IG (engine/crossbar/in_order.h).
  cb::InOrderReorder inOrder(compileSink);
  xbar::IProgramSink& sink = timing.outOfOrder ? static_cast<xbar::IProgramSink&>(compileSink) : inOrder;
  ScheduleRun run;
  if (ht) {
    const cb::HtScheduleSummary s = cb::scheduleHt(plan, sink);
    run.groups = s.instructionGroups + s.postGroups;
    run.mvms = s.mvms;
    run.cancelled = s.cancelled;
  } else {
    cb::LlOptions o;
    o.localMemoryElements = cb::llLocalMemoryElements(plan.accelerator, mode);
    o.spillToGlobalMemory = mode == cb::TimingMode::Intended;
    cb::LlScheduleSummary s;
    try {
      s = cb::scheduleLl(plan, o, sink);
    } catch (const InputError& e) {
      if (o.localMemoryElements == cb::kPimcompNnLocalMemoryElements) throw;
      // Bounded by the core's local memory (intended timing), the element pipeline may not fit at all: say
      // what would let it run.
      throw InputError(
          std::string(e.what()) + " — the element pipeline needs more than core.localMemoryBytes = " +
          withThousands(plan.accelerator.localMemoryBytes) + " bytes" +
          " per core: raise it with --set, or use --timing pimcomp-nn (PIMCOMP-NN's 128 M elements)");
    }
    run.groups = s.instructionGroups;
    run.mvms = s.mvms;
    run.cancelled = s.cancelled;
    run.localMemoryPeak = s.localMemoryPeak;
    run.spilledPixels = s.spilledPixels;
    run.spilledAccumulators = s.spilledAccumulators;
    run.spilledBytes = s.spilledElements * plan.accelerator.elementBits / 8;
    for (const std::int64_t elements : s.spillTraffic)
      run.spillBytes.push_back(elements * plan.accelerator.elementBits / 8);
  }
  run.instructions = compileSink.instructions();
  run.profile = profiler.result();
  return run;
}

/// The plan the request asks for: a fixed replication rule, or the GA (whose details go to `r`).
cb::CompilePlan planFor(const Network& net, const cb::Accelerator& acc, const xbar::TimingParams& timing,
                        const NetworkCompileRequest& req, NetworkCompileResult& r, cb::GaResult& ga) {
  if (req.compile.replication != kGaMethod) return cb::compilePlan(net, acc, req.compile);
  cb::GaControl control;
  control.cancel = req.cancel;
  if (req.report)
    control.progress = [&req](int iteration, double best) {
      req.report("genetic search: iteration " + std::to_string(iteration) + " of " +
                 std::to_string(req.ga.iterations) + ", best fitness " + withThousands(std::llround(best)) +
                 " ns");
    };
  cb::CompilePlan plan = cb::compileWithGa(net, acc, req.compile, req.ga, timing, control, &ga);
  r.gaHistory = ga.history;
  r.gaSeeds = ga.seeds;
  r.gaCancelled = ga.cancelled;
  return plan;
}

/// The plan a GA run hands over, measured: the search ranks by its fitness, an estimate, so its best is not
/// always the profiler's. Its best, up to `count` more of its final population (best first, distinct; each
/// becomes a Pareto point in `r`) and the fixed rules it was seeded with are scheduled and profiled in full,
/// and the least time wins: the GA never reports worse than a rule it started from.
cb::CompilePlan measuredGaChoice(const Network& net, const cb::Accelerator& acc, cb::CompilePlan best,
                                 const cb::GaResult& ga, const xbar::TimingParams& timing,
                                 const xbar::EnergyParams& energy, const NetworkCompileRequest& req,
                                 NetworkCompileResult& r) {
  const xbar::PimmuShape shape{acc.crossbarsPerCore, acc.rows, acc.cols, acc.elementBits, acc.cellBits};
  auto timeOf = [&](const cb::CompilePlan& plan, bool* stopped) {
    const ScheduleRun run = runSchedule(plan, timing, r.timing, req, false);
    *stopped = run.cancelled;
    return std::pair{run.profile.totalNs, xbar::estimateEnergy(run.profile, shape, energy).totalNj};
  };
  bool stopped = false;
  std::int64_t bestNs = timeOf(best, &stopped).first;
  r.gaChoice = "the search's best";
  std::vector<const cb::GaSolution*> taken{&ga.best};
  for (const cb::GaSolution& s : ga.population) {
    if (stopped || r.gaFinalists.size() >= req.gaFinalists) break;
    const bool seen = std::any_of(taken.begin(), taken.end(), [&](const cb::GaSolution* t) {
      return t->replicas == s.replicas && t->cores == s.cores;
    });
    if (seen) continue;
    taken.push_back(&s);
    cb::CompilePlan plan = cb::assemblePlan(net, acc, best.options, s.replicas, s.cores);
    const auto [ns, nj] = timeOf(plan, &stopped);
    if (stopped) break;
    r.gaFinalists.push_back({static_cast<double>(ns), nj, s.fitness});
    if (ns < bestNs) {
      bestNs = ns;
      best = std::move(plan);
      r.gaChoice = "finalist " + std::to_string(r.gaFinalists.size()) + " of its final population";
    }
  }
  for (const std::string& rule : cb::replicationMethodNames()) {
    if (stopped) break;
    cb::CompileOptions options = best.options;
    options.replication = rule;
    std::optional<cb::CompilePlan> seed;
    try {
      seed = cb::compilePlan(net, acc, options);
    } catch (const InputError&) {  // a rule that cannot place this network seeded nothing either
      continue;
    }
    const std::int64_t ns = timeOf(*seed, &stopped).first;
    if (!stopped && ns < bestNs) {
      bestNs = ns;
      best = std::move(*seed);
      best.options.replication = kGaMethod;
      r.gaChoice = "its seed " + rule + " (no individual the search found profiles faster)";
    }
  }
  return best;
}

}  // namespace

std::string_view modeName(cb::PipelineMode m) { return m == cb::PipelineMode::Ht ? "ht" : "ll"; }

std::string compileNote(const NetworkCompileResult& r) {
  std::string note;
  if (r.replicasGivenBack > 0)
    note = std::to_string(r.replicasGivenBack) + (r.replicasGivenBack == 1 ? " replica" : " replicas") +
           " given back that first fit could not place";
  if (r.placement == cb::kLargestFirst)
    note += std::string(note.empty() ? "" : "; ") +
            "AGs packed largest first: node-order first fit (PIMCOMP-NN's) leaves no core wide enough";
  if (r.spilledPixels > 0)
    note += std::string(note.empty() ? "" : "; ") + withThousands(r.spilledPixels) + " pixels (" +
            withThousands(r.spilledBytes) + " bytes) went through global memory for want of local memory" +
            (r.spilledAccumulators > 0
                 ? " (" + withThousands(r.spilledAccumulators) + " of them scatter accumulators summed there)"
                 : "");
  const auto passedOver = std::count_if(r.layers.begin(), r.layers.end(), [](const CompiledLayer& l) {
    return !l.unfoldingPassedOver.empty();
  });
  if (passedOver > 0)
    note += std::string(note.empty() ? "" : "; ") + "auto unfolding: " + std::to_string(passedOver) +
            (passedOver == 1 ? " layer takes" : " layers take") +
            " the best format the schedule runs in place of the greedy's I,OK2,1 or IK,OK,1";
  return note;
}

bool compilesNetworks(const Backend& b) { return targetOf(b).compilesNetworks(); }

std::vector<std::string> compileMethodNames() {
  std::vector<std::string> names = cb::replicationMethodNames();
  names.push_back(kGaMethod);
  return names;
}

NetworkCompileResult compileNetwork(const Backend& b, const Network& net, const NetworkCompileRequest& req) {
  const auto start = std::chrono::steady_clock::now();
  if (!compilesNetworks(b))
    throw InputError("backend " + b.name + " is a " + b.family +
                     " backend: networks compile on crossbar backends (pimscope-cli backends lists them)");
  const cb::Accelerator acc = acceleratorOf(b);
  const xbar::TimingParams timing = timingParamsOf(b, req.timing);
  const xbar::EnergyParams energy = energyParamsOf(b);
  if (req.report) req.report("partitioning, replicating (" + req.compile.replication + ") and placing");
  NetworkCompileResult r;
  r.timing = req.timing;
  cb::GaResult ga;
  cb::CompilePlan plan = req.plan ? *req.plan : planFor(net, acc, timing, req, r, ga);
  if (req.compile.replication == kGaMethod && !req.plan && !r.gaCancelled)
    plan = measuredGaChoice(net, acc, std::move(plan), ga, timing, energy, req, r);
  r.backend = b.name;
  r.network = plan.networkName;
  r.accelerator = acc;
  r.acceleratorSummary = cb::describe(acc);
  r.mode = req.compile.mode;
  r.replication = req.compile.replication;
  r.planSeconds = seconds(start);

  const auto scheduled = std::chrono::steady_clock::now();
  // A GA stopped by Cancel (in its search or while its candidates were measured) still hands over its best
  // plan, which is then profiled to the end: "cancel keeps the best so far".
  NetworkCompileRequest scheduleRequest = req;
  if (req.compile.replication == kGaMethod) scheduleRequest.cancel = nullptr;
  ScheduleRun run = runSchedule(plan, timing, req.timing, scheduleRequest, true);
  r.cancelled = run.cancelled;
  r.profile = std::move(run.profile);
  r.coreLocalMemoryPeak = std::move(run.localMemoryPeak);
  r.spilledPixels = run.spilledPixels;
  r.spilledAccumulators = run.spilledAccumulators;
  r.spilledBytes = run.spilledBytes;
  r.coreSpillBytes = std::move(run.spillBytes);
  r.instructionGroups = run.groups;
  r.instructions = run.instructions;
  r.mvmCount = run.mvms;
  r.crossbarsUsed = plan.crossbarsUsed();
  r.replicasGivenBack = plan.replicasGivenBack;
  r.placement = plan.placement;
  r.crossbarsTotal = acc.crossbars();
  r.layers = layersOf(plan, r.profile);
  fillCores(plan, r);
  const double total = static_cast<double>(r.profile.totalNs);
  if (r.mode == cb::PipelineMode::Ht) {
    const cb::LayerGrouping grouping =
        cb::groupLayers(net, layerTimes(net, r.profile, timing, acc.cores()), total);
    r.pipelineLayers = grouping.layers;
    r.layerGroups = static_cast<std::int64_t>(grouping.groups.size());
    // PIMCOMP-NN groups nothing: one stage per layer; the intended mode groups as tcad VII-A does.
    r.pipelineStages = req.timing == cb::TimingMode::Intended ? r.layerGroups : r.pipelineLayers;
    r.periodNs = total;
    r.throughputPerS = total > 0 ? 1e9 / total : 0;
    r.firstBatchLatencyNs = total * static_cast<double>(r.pipelineStages);
  } else {
    r.latencyNs = total;
  }
  const xbar::PimmuShape shape{acc.crossbarsPerCore, acc.rows, acc.cols, acc.elementBits, acc.cellBits};
  r.energy = xbar::estimateEnergy(r.profile, shape, energy);
  r.energyNj = r.energy.totalNj;
  r.scheduleSeconds = seconds(scheduled);
  r.plan = req.plan ? req.plan : std::make_shared<const cb::CompilePlan>(std::move(plan));
  return r;
}

}  // namespace pim
