// SPDX-License-Identifier: Apache-2.0
// Simulated cost of one draft: map it, place it on the banks, lower it to the backend's command program, run
// the bank-level simulator, and compose the fixed breakdown (input rearrangement, compute, output
// rearrangement; the parts add up to the total).
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/codegen/device_config.h"
#include "engine/codegen/lowering.h"
#include "engine/mapping/tile_mapping.h"
#include "engine/search/problem.h"
#include "sim/channel_cache.h"
#include "sim/result.h"
#include "sim/scheduler.h"

namespace pim {

struct EvalOptions {
  OptimizerOptions optimizer;
  IndexingStrategy indexing = IndexingStrategy::Exact;
  SimSettings sim;
  bool keepBanks = true;     // per-bank statistics in the result (the heat map needs them)
  bool computeOnly = false;  // simulate the compute phase alone (compute-centric search's first step)
  sim::TraceWindow trace;    // Chrome-trace window; disabled by default
  /// Branch and bound (an exhaustive search that only needs the optimum): when > 0, a draft whose simulation
  /// passes this many cycles is stopped there and reported as a lower bound (Evaluation::lowerBound).
  std::int64_t stopAfterCycles = 0;
  /// Channel runs reused across drafts (not owned; one per thread): drafts of one problem often share
  /// channel programs, so labelling and exhaustive search simulate most channels only once.
  sim::ChannelRunCache* cache = nullptr;
};

/// Where a number comes from (DESIGN.md: every number carries its provenance).
enum class Provenance : std::uint8_t { Simulated, Predicted, Analytic };
std::string_view provenanceName(Provenance p);

struct Evaluation {
  std::uint64_t draft = 0;
  Provenance provenance = Provenance::Simulated;
  std::array<std::int64_t, 3> cycles{};  // input rearrangement, compute, output rearrangement
  std::int64_t totalCycles = 0;
  double tCKns = 1.0;
  double timeNs = 0;
  double energyPj = 0;
  sim::EnergyBreakdown energy;
  std::vector<sim::BankStats> banks;          // every bank of every group, channel = PIM group
  std::vector<double> commandBusUtilisation;  // per group
  int banksUsed = 0;
  std::int64_t residentBytes = 0, paddingBytes = 0;
  std::int64_t commands = 0;
  std::int64_t serialSegments = 0;  // naive rearrangement copies composed outside the simulator
  std::string traceJson;            // when requested
  /// Stopped by EvalOptions::stopAfterCycles: totalCycles/timeNs are a lower bound (the draft is slower than
  /// the bound); breakdown, energy and statistics are not filled in.
  bool lowerBound = false;
  double ns(int phase) const { return static_cast<double>(cycles[phase]) * tCKns; }
};

/// Throws InputError when the backend cannot run the kernel or the draft's tiles do not fit the banks.
Evaluation evaluateDraft(const Problem& p, const Draft& d, const EvalOptions& o = {});

/// Branch and bound across workers: lowers `incumbent` (total cycles of the fastest complete simulation so
/// far, 0 = none yet; the next EvalOptions::stopAfterCycles) to `e`'s, unless `e` was stopped at the bound.
void lowerIncumbent(std::atomic<std::int64_t>& incumbent, const Evaluation& e);

/// The command program evaluateDraft simulates for `d` (naive rearrangement is composed outside it), for
/// listings and export. Throws InputError as evaluateDraft does.
sim::Program draftProgram(const Problem& p, const Draft& d, const EvalOptions& o = {});

/// Program of a draft as a readable listing (one line per command or repeated block), for the GUI and export.
std::string commandListing(const sim::Program& prog, std::size_t maxLines = 400);

}  // namespace pim
