// SPDX-License-Identifier: Apache-2.0
// How long an exploration will take, before it starts: the evaluations its strategy plans among the kept
// candidates (StrategyInfo::plan; counting the kept candidates is memoised, not a walk), times one sample
// simulation, over the workers. The window asks before a run estimated above 30 s; the progress bar's time
// left (TimeLeftMeter) then measures the real rate.
#pragma once
#include <cstdint>
#include <string>

#include "engine/core/problem.h"
#include "engine/search/explorer.h"

namespace pim {

/// Kept drafts tried, in id order, for one that simulates (the sample).
inline constexpr std::size_t kEstimateSamples = 16;

struct RunEstimate {
  std::string strategy;         // the strategy that will run (a model-ranked one's fallback without a model)
  std::uint64_t kept = 0;       // kept candidates
  std::size_t simulations = 0;  // evaluations the strategy plans (an upper bound)
  double secondsPerSimulation = 0;  // the sample: the first kept candidate that runs, simulated once
  unsigned workers = 1;             // simulations run in parallel
  double seconds = 0;               // simulations x secondsPerSimulation / workers
};

/// The estimate of exploring `p` under `o`; `haveModel` says whether a model will rank (else a strategy that
/// requires one runs its fallback, as Explorer does). Throws InputError for an unknown strategy; when none of
/// the first kEstimateSamples kept drafts can be simulated, secondsPerSimulation (and seconds) stay 0.
RunEstimate estimateRun(const Problem& p, const ExploreOptions& o, bool haveModel);

/// "about 20 h: 392,354 simulations at 0.18 s each on 2 workers"
std::string estimateText(const RunEstimate& e);

}  // namespace pim
