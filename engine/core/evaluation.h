// SPDX-License-Identifier: Apache-2.0
// What evaluating a candidate gives every stage, whatever the hardware family: time in the three fixed phases
// (input rearrangement, compute, output rearrangement; the parts add up to the total), energy by component,
// per-unit statistics, provenance; and the options every family's evaluation reads.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/mapping/tile_mapping.h"
#include "sim/channel_cache.h"
#include "sim/crossbar/timing_model.h"
#include "sim/result.h"
#include "sim/scheduler.h"

namespace pim {

/// IMTP's boundary-check passes on generated UPMEM kernels (section 5.3;
/// engine/codegen/upmem_kernel_builder.h), each switchable; all on by default.
struct BoundaryPasses {
  bool dmaGuardElimination = true;  // 5.3.1: guard-free WRAM copies, each one DMA of a whole padded tile
  bool loopTightening = true;       // 5.3.2: a guard on the loop variable becomes the loop's bound
  bool branchHoisting = true;  // 5.3.3: a loop-invariant guard checked once, dead DMAs and computes with it
  bool operator==(const BoundaryPasses&) const = default;
};

/// The compiler's optimizer passes, each switchable: DCC's PIM-specific ones (section 4.3) for the DRAM-PIM
/// families, IMTP's boundary-check passes for UPMEM.
struct OptimizerOptions {
  /// I: stage host<->PIM copies through on-chip memory in blocks B = on-chip bytes / N channels, so reads and
  /// writes both use every channel; off: the host copies core by core, one PIM channel written at a time.
  bool stagedRearrangement = true;
  /// II: one broadcast command per group over tiles padded to the group's largest; off: bank-level commands.
  bool groupCommands = true;
  BoundaryPasses boundary;
  /// Not an optimizer pass: lower the compute phase alone (what a compute-centric tuner looks at).
  bool computeOnly = false;
  /// Not an optimizer pass: lower the host's copies alone, with no compute phase between them (a vendor
  /// program that brings its own compute takes only its placement from a draft).
  bool rearrangementOnly = false;
};

/// Simulator switches a user may set per run.
struct SimSettings {
  bool refresh = true;
  /// UPMEM: time each DPU launch on slices of its main loops and extrapolate (CoMoNM's Algorithm 1); off,
  /// every instruction is simulated. Searches keep it on; `simulate --no-extrapolation` turns it off.
  bool extrapolate = true;
  /// Crossbar: the profiler's timing, PIMCOMP-NN's as implemented (the default, as `compile`'s) or the
  /// paper's intended one (`--timing`, the window's Timing box; docs/crossbar.md "Timing modes").
  xbar::TimingModel crossbarTiming = xbar::TimingModel::PimcompNn;
};

/// Whose model labels a draft: PIMScope's (the default), or DCC's public artifact reproduced on the
/// backends it covers (dcc-artifact.md: one stack, its draft form and power-of-two rounding, per-bank command
/// issue, its trace recipes), in its kernel mode (the host reads the input first) or inference mode (the
/// input is already on the GPU). Stored labels are keyed by it.
enum class LabelModel : std::uint8_t { PimScope, DccKernel, DccInference };
/// Version of the DCC-artifact mode's labels, in their stored key: bumped whenever the mode's label of a
/// draft changes, so that labels of an older mode are not reused. 2: its frontend's barriers are global
/// steps. 3: its controllers' request buffers (33 entries; host reads and writes served FR-FCFS among them)
/// and its frontend stopping at a full one. 4: its scheduler's choice among the buffered PIM requests made
/// as the requests arrive (the one ready first, no younger miss in a bank another request hits), and every
/// request timed at the bank of its address (buffer moves spread over bank groups and pseudo-channels), and
/// reads and writes in buffers of their own, drained by the write mode. 5: the fork's timing table (HBM-PIM
/// arithmetic spaced by address among its own kind, write-backs and RELU untimed, all-bank PREA and ACTAB
/// held by the channel's constraints only) and barriers taken as the last request leaves, not when its data
/// completes. 6: a request that must close a row ranked by when its ACT could issue (the fork's controller
/// picks by command: ACTs of other ranks pass one held by tFAW). 7: one row command per cycle on the row
/// bus (several PREs had shared a cycle).
inline constexpr int kDccModeVersion = 7;
/// "pimscope", "dcc-kernel", "dcc-inference".
std::string_view labelModelName(LabelModel m);
/// The model a name gives, nullopt for an unknown name.
std::optional<LabelModel> parseLabelModel(std::string_view name);

struct EvalOptions {
  OptimizerOptions optimizer;
  LabelModel model = LabelModel::PimScope;
  IndexingStrategy indexing = IndexingStrategy::Exact;
  SimSettings sim;
  bool keepUnitStats = true;  // per-unit statistics in the result (the heat map needs them)
  /// Also time the one-time placement of the resident tensors (Evaluation::preloadCycles): a second
  /// simulation, so searches leave it off and the views and `simulate` ask for it.
  bool preload = false;
  bool computeOnly = false;  // simulate the compute phase alone (compute-centric search's first step)
  /// The vendor baseline's unit count when the user gives one (UPMEM: PrIM's NR_DPUS, `simulate --dpus`);
  /// 0: the vendor's own choice. Families whose vendor has no such knob ignore it (the CLI refuses it there).
  int vendorUnits = 0;
  sim::TraceWindow trace;  // Chrome-trace window; disabled by default
  /// Branch and bound (an exhaustive search that only needs the optimum): when > 0, a draft whose simulation
  /// passes this many cycles is stopped there and reported as a lower bound (Evaluation::lowerBound).
  std::int64_t stopAfterCycles = 0;
  /// Channel runs reused across drafts (not owned; one per thread): drafts of one problem often share
  /// channel programs, so labelling and exhaustive search simulate most channels only once.
  sim::ChannelRunCache* cache = nullptr;
  /// Polled by evaluations that take seconds (a crossbar network's genetic search); once true they may stop
  /// early with an InputError, a result the explorer drops as it drops every one that ends after a cancel.
  const std::atomic<bool>* cancel = nullptr;
};

/// Per-unit statistics of one evaluation, as its target declares them (ITarget::geometry and statistics): row
/// u is unit u of the geometry, column s is declared statistic s; units past the last row were not simulated.
/// Counters are held as doubles, exact below 2^53.
struct UnitStatistics {
  std::size_t statCount = 0;
  std::vector<double> values;  // unit-major, units() x statCount
  /// What a unit holds or covers, one line per unit, when the family says more than its geometry
  /// (pim-hierarchy: the tensor a bank holds and the slice's loop iterations); shown in the heat map's
  /// tooltip. Empty when none.
  std::vector<std::string> notes;
  std::size_t units() const { return statCount ? values.size() / statCount : 0; }
  bool empty() const { return values.empty(); }
  double at(std::size_t unit, std::size_t stat) const { return values[unit * statCount + stat]; }
};

/// Where a number comes from (DESIGN.md: every number carries its provenance).
enum class Provenance : std::uint8_t { Simulated, Predicted, Analytic };
std::string_view provenanceName(Provenance p);

/// One stage of a candidate that runs as a pipeline of stages (a crossbar network's CONV and FC layers), for
/// the views' stage chart and listings. Cycles as Evaluation's.
struct StageTiming {
  std::string name;
  /// Its time by the target's sub-phases (ITarget::subPhases order) on the unit it is busiest on: what it
  /// adds to that unit's share of a period. Empty when the candidate is not a pipeline of periods.
  std::vector<std::int64_t> subCycles;
  std::int64_t startCycles = -1, finishCycles = -1;  // its first instruction's start, its last one's end
};

/// The stage whose subCycles add up to the most (it bounds the period), -1 when none has subCycles.
int bottleneckStage(const std::vector<StageTiming>& stages);

struct Evaluation {
  std::uint64_t draft = 0;
  Provenance provenance = Provenance::Simulated;
  std::array<std::int64_t, 3> cycles{};  // input rearrangement, compute, output rearrangement
  std::int64_t totalCycles = 0;
  std::vector<std::int64_t> subCycles;  // per sub-phase the target declares (ITarget::subPhases), in order
  double tCKns = 1.0;
  double timeNs = 0;
  double energyPj = 0;
  sim::EnergyBreakdown energy;
  UnitStatistics unitStats;                   // when EvalOptions::keepUnitStats
  std::vector<double> commandBusUtilisation;  // per group
  int unitsUsed = 0;                          // units of the target's geometry holding data
  std::int64_t placedBytes = 0, paddingBytes = 0;
  std::int64_t commands = 0;
  std::int64_t serialSegments = 0;  // naive rearrangement copies composed outside the simulator
  /// With EvalOptions::preload: cycles of placing the resident inputs in the draft's layout once, before the
  /// first call (DCC's preLoad); not part of totalCycles. Empty when not asked for or nothing is resident.
  std::optional<std::int64_t> preloadCycles;
  /// What a family reports of a run beside the fields above, by name ("launches", "tasklets"): exported
  /// under the family's name with its sub-phases.
  std::vector<std::pair<std::string, double>> facts;
  /// A pipelined candidate's stages in order, and the pipeline's period when its stages repeat in one (the
  /// stages' subCycles then bound it); empty and nullopt for every other candidate.
  std::vector<StageTiming> stages;
  std::optional<std::int64_t> periodCycles;
  std::string traceJson;  // when requested
  /// Stopped by EvalOptions::stopAfterCycles: totalCycles/timeNs are a lower bound (the draft is slower than
  /// the bound); breakdown, energy and statistics are not filled in.
  bool lowerBound = false;
  double ns(int phase) const { return static_cast<double>(cycles[phase]) * tCKns; }
};

/// Branch and bound across workers: lowers `incumbent` (total cycles of the fastest complete simulation so
/// far, 0 = none yet; the next EvalOptions::stopAfterCycles) to `e`'s, unless `e` was stopped at the bound.
void lowerIncumbent(std::atomic<std::int64_t>& incumbent, const Evaluation& e);
/// The same to `cycles` (a best found elsewhere, e.g. another worker's).
void lowerIncumbent(std::atomic<std::int64_t>& incumbent, std::int64_t cycles);

}  // namespace pim
