// SPDX-License-Identifier: Apache-2.0
// Compiling a network on a crossbar backend end to end (issue 19; docs/crossbar.md): the plan (partition,
// replication, layout; engine/crossbar), the HT or LL schedule streamed instruction group by instruction
// group into the profiler (sim/crossbar) and the energy model, with the backend's parameters as it is now
// (what-if edits included). The CLI's `compile`, the window and the benchmark all call compileNetwork.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/crossbar/compile.h"
#include "engine/crossbar/ga.h"
#include "sim/crossbar/xbar_energy.h"
#include "sim/crossbar/xbar_profiler.h"

namespace pim {

class Backend;

/// The replication method that runs the genetic search (engine/crossbar/ga.h) instead of a fixed rule.
inline constexpr const char* kGaMethod = "ga";
/// Every method `compile.replication` may name: the registered rules and "ga".
std::vector<std::string> compileMethodNames();

struct NetworkCompileRequest {
  crossbar::CompileOptions compile;  // mode, replication method ("ga": the genetic search), unfolding
  crossbar::GaOptions ga;            // when the method is "ga"
  /// GA only: how many more of its final population to schedule and profile in full (Pareto points, and
  /// candidates for the result beside the search's best and its seeds).
  std::size_t gaFinalists = 6;
  crossbar::TimingMode timing = crossbar::TimingMode::PimcompNn;
  /// Also receives every instruction group (an instruction dump); may be null.
  xbar::IProgramSink* alsoTo = nullptr;
  /// Polled between instruction groups; once true the compile stops and says so (`cancelled`).
  const std::atomic<bool>* cancel = nullptr;
  /// "scheduling: instruction group 120 of 3,136" as it goes; may be empty.
  std::function<void(const std::string&)> report;
  /// The plan an earlier compile of the same network, backend and request made (NetworkCompileResult::plan):
  /// scheduled and profiled as it is, nothing planned again (a genetic search's takes seconds to make and is
  /// deterministic). May be null.
  std::shared_ptr<const crossbar::CompilePlan> plan;
};

/// One CONV or FC layer of the result.
struct CompiledLayer {
  int node = 0;
  std::string name, op;  // op: "CONV" or "FC"
  std::int64_t replicas = 0, agsPerReplica = 0, crossbars = 0, windows = 0;
  std::string unfolding;
  std::string unfoldingPassedOver;  // crossbar::LayerPartition::greedyPassedOver
  xbar::NodeProfile time;           // its instructions' time, counts, first start and last finish
};

struct NetworkCompileResult {
  std::string backend, network;
  crossbar::Accelerator accelerator;
  std::string acceleratorSummary;  // crossbar::describe(accelerator)
  crossbar::PipelineMode mode = crossbar::PipelineMode::Ht;
  std::string replication;
  crossbar::TimingMode timing = crossbar::TimingMode::PimcompNn;
  /// HT: the evaluated time of all instruction groups (time per sample in the steady state) and its inverse;
  /// the first batch's latency = pipeline stages x period, a stage per layer in the pimcomp-nn timing mode
  /// (PIMCOMP-NN groups nothing and reports none), a stage per layer group (tcad VII-A,
  /// engine/crossbar/layer_grouping.h) in the intended mode. LL: the latency of one inference.
  std::optional<double> periodNs, throughputPerS, firstBatchLatencyNs, latencyNs;
  std::int64_t pipelineStages = 0, pipelineLayers = 0, layerGroups = 0;
  double energyNj = 0;
  xbar::EnergyBreakdown energy;
  std::int64_t mvmCount = 0, instructionGroups = 0, instructions = 0;
  std::int64_t crossbarsUsed = 0, crossbarsTotal = 0;
  std::int64_t replicasGivenBack = 0;  // replicas first fit could not place (crossbar::CompilePlan)
  std::string placement;               // how the AGs were packed (crossbar::CompilePlan::placement)
  std::vector<CompiledLayer> layers;
  std::vector<std::int64_t> coreCrossbars;  // per core: crossbars its AGs hold
  /// Per core: the layers with an AG on it (index into `layers`) and how many of their AGs it holds.
  struct CoreLayer {
    int layer = 0;
    std::int64_t ags = 0;
  };
  std::vector<std::vector<CoreLayer>> coreLayers;
  std::vector<std::int64_t> coreLocalMemoryPeak;  // per core, elements (LL; empty in HT)
  /// LL in intended timing: CONV/FC input pixels that found no room in a reading core's local memory and went
  /// through global memory instead (crossbar::LlOptions::spillToGlobalMemory), and their bytes.
  std::int64_t spilledPixels = 0, spilledBytes = 0;
  std::int64_t spilledAccumulators = 0;      // of those pixels, scatter accumulators summed in global memory
  std::vector<std::int64_t> coreSpillBytes;  // per core: bytes it stored and loaded for spills (LL, intended)
  xbar::ProfileResult profile;
  /// GA only: the best fitness after the initial population and after each iteration, the deterministic
  /// seeds' fitness, whether Cancel stopped the search (the best so far was compiled), and the finalists.
  std::vector<double> gaHistory;
  std::vector<std::pair<std::string, double>> gaSeeds;
  bool gaCancelled = false;
  struct Finalist {
    double timeNs = 0, energyNj = 0, fitness = 0;  // time: the HT period or the LL latency
  };
  std::vector<Finalist> gaFinalists;
  /// Which measured plan the GA handed over: "the search's best", a finalist, or a seed rule.
  std::string gaChoice;
  double planSeconds = 0, scheduleSeconds = 0;
  /// The schedule was stopped before its end (figures cover the instruction groups run).
  bool cancelled = false;
  /// The plan scheduled: a later request's `plan` reproduces this compile without planning it again.
  std::shared_ptr<const crossbar::CompilePlan> plan;
};

/// Whether networks compile on `b` (its family is crossbar): the window lists these backends for compiling.
bool compilesNetworks(const Backend& b);

/// Throws InputError naming the problem (a network that does not fit, a replication method that cannot work,
/// an AG that fits nowhere, an unfolding the scheduler cannot run).
NetworkCompileResult compileNetwork(const Backend& b, const Network& net, const NetworkCompileRequest& r);

/// Where the compile departed from the replication rule's plan, from PIMCOMP-NN's node-order first fit or
/// from an on-chip element pipeline (replicas given back, AGs packed largest first, pixels spilled to global
/// memory), as one sentence for the CLI and the window; empty if nowhere.
std::string compileNote(const NetworkCompileResult& r);

/// "ht" / "ll": the CLI's and JSON's spellings (a timing mode's: xbar::timingModelName).
std::string_view modeName(crossbar::PipelineMode m);

}  // namespace pim
