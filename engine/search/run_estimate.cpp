// SPDX-License-Identifier: Apache-2.0
#include "engine/search/run_estimate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <thread>

#include "engine/common/time_left.h"
#include "engine/core/candidate_space.h"
#include "engine/search/evaluate.h"
#include "engine/search/strategy.h"
#include "engine/target/registry.h"

namespace pim {

RunEstimate estimateRun(const Problem& p, const ExploreOptions& o, bool haveModel) {
  const StrategyRegistry& registry = o.strategies ? *o.strategies : StrategyRegistry::builtin();
  const StrategyInfo* s = &registry.get(o.strategy);
  ExploreOptions options = o;
  if (s->predictions == PredictionUse::Required && !haveModel) s = &registry.get(s->fallback);
  RunEstimate e;
  e.strategy = s->name;
  const auto space = targetOf(p.backend())
                         .candidates(p, options.rules,
                                     options.pruneRules ? *options.pruneRules : PruneRuleRegistry::builtin());
  e.kept = space->counts().remaining;
  e.simulations = s->plan ? s->plan(e.kept, options) : static_cast<std::size_t>(e.kept);
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  e.workers = static_cast<unsigned>(std::clamp<std::size_t>(options.threads ? options.threads : hw, 1,
                                                            std::max<std::size_t>(1, e.simulations)));
  if (e.simulations == 0) return e;
  // The first kept draft that runs: a draft whose tiles do not fit is refused before any simulation, so its
  // time says nothing about the others.
  for (const Draft& d : firstKept(*space, kEstimateSamples)) {
    const auto start = std::chrono::steady_clock::now();
    try {
      evaluateDraft(p, d, options.eval);
    } catch (const std::exception&) {
      continue;
    }
    e.secondsPerSimulation = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    break;
  }
  e.seconds = static_cast<double>(e.simulations) * e.secondsPerSimulation / e.workers;
  return e;
}

std::string estimateText(const RunEstimate& e) {
  char each[32];
  std::snprintf(each, sizeof each, "%.2g s", e.secondsPerSimulation);
  std::string sims = std::to_string(e.simulations);
  for (int at = static_cast<int>(sims.size()) - 3; at > 0; at -= 3)
    sims.insert(static_cast<std::size_t>(at), ",");
  return "about " + durationText(e.seconds) + ": " + sims + " simulation" + (e.simulations == 1 ? "" : "s") +
         " (" + e.strategy + ") at " + each + " each on " + std::to_string(e.workers) + " worker" +
         (e.workers == 1 ? "" : "s");
}

}  // namespace pim
