// SPDX-License-Identifier: Apache-2.0
// How long an exploration will take, before it starts: the evaluations its strategy plans among the kept
// candidates (StrategyInfo::plan on the memoised count), times the mean of a few sample simulations spread
// over the kept drafts, over the workers. The window asks before a run estimated above 30 s; the progress
// bar's time left (TimeLeftMeter) then measures the real rate.
#pragma once
#include <cstdint>
#include <string>

#include "engine/core/problem.h"
#include "engine/search/explorer.h"

namespace pim {

/// Positions spread evenly over the kept drafts where one draft is simulated for the estimate, and how many
/// drafts from each position are tried for one that runs.
inline constexpr std::uint64_t kEstimatePoints = 3;
inline constexpr std::uint64_t kEstimateSamples = 16;

struct RunEstimate {
  std::string strategy;         // the strategy that will run (a model-ranked one's fallback without a model)
  std::uint64_t kept = 0;       // kept candidates
  std::size_t simulations = 0;  // evaluations the strategy plans (an upper bound)
  double secondsPerSimulation = 0;  // the mean of the samples (one per position that has a draft that runs)
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
