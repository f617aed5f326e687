// SPDX-License-Identifier: Apache-2.0
// How long an exploration will take, before it starts: the evaluations its strategy plans among the kept
// candidates (StrategyInfo::plan on the memoised count), times the mean of sample simulations spread over the
// kept drafts (timed as the explorer's workers simulate), over the workers. The window asks before a run
// estimated above 30 s; the progress bar's time left (TimeLeftMeter) then measures the real rate.
#pragma once
#include <cstdint>
#include <string>

#include "engine/core/problem.h"
#include "engine/search/explorer.h"

namespace pim {

/// Positions spread evenly over the kept drafts where drafts are simulated for the estimate (drafts differ in
/// cost along the id order: three positions overestimated exhaustive runs 2.4-3.1x, twelve 1.1-1.3x), and how
/// many drafts from each position are tried.
inline constexpr std::uint64_t kEstimatePoints = 12;
inline constexpr std::uint64_t kEstimateSamples = 64;
/// At each position, drafts that run are timed until this many or this much time (a single slow one ends it),
/// and no new position is started once the estimate has taken kEstimateBudgetSeconds.
inline constexpr std::uint64_t kTimedPerPoint = 32;
inline constexpr double kSecondsPerPoint = 0.1;
inline constexpr double kEstimateBudgetSeconds = 1.5;

struct RunEstimate {
  std::string strategy;         // the strategy that will run (a model-ranked one's fallback without a model)
  std::uint64_t kept = 0;       // kept candidates
  std::size_t simulations = 0;  // evaluations the strategy plans (an upper bound)
  double secondsPerSimulation = 0;  // the mean of the timed samples (as a worker simulates them)
  unsigned workers = 1;             // simulations run in parallel
  double seconds = 0;               // simulations x secondsPerSimulation / workers
};

/// The estimate of exploring `p` under `o`; `haveModel` says whether a model will rank (else a strategy that
/// requires one runs its fallback, as Explorer does). Throws InputError for an unknown strategy; when no
/// sampled draft can be simulated, secondsPerSimulation (and seconds) stay 0.
RunEstimate estimateRun(const Problem& p, const ExploreOptions& o, bool haveModel);

/// "about 20 h: 392,354 simulations at 0.18 s each on 2 workers"
std::string estimateText(const RunEstimate& e);

}  // namespace pim
