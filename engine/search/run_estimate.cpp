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
#include "sim/channel_cache.h"

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
  e.simulations = s->plan ? s->plan(p, e.kept, options) : static_cast<std::size_t>(e.kept);
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  e.workers = static_cast<unsigned>(std::clamp<std::size_t>(options.threads ? options.threads : hw, 1,
                                                            std::max<std::size_t>(1, e.simulations)));
  if (e.simulations == 0) return e;
  // Drafts differ in cost (a draft on 8 banks simulates faster than one on 5,120), so the sample is spread
  // over the kept drafts: the first that runs at each of kEstimatePoints evenly spaced positions (a draft
  // whose tiles do not fit is refused before any simulation, so its time says nothing), averaged.
  std::vector<std::vector<Draft>> points(kEstimatePoints);
  const std::uint64_t stride = std::max<std::uint64_t>(1, e.kept / kEstimatePoints);
  std::uint64_t at = 0;
  space->forEachKept([&](const Draft& d) {
    const std::uint64_t point = at / stride, offset = at % stride;
    ++at;
    if (point >= kEstimatePoints) return false;
    if (offset < kEstimateSamples) points[point].push_back(d);
    return true;
  });
  // Timed as a worker simulates: without per-unit statistics and with a channel-run cache kept across drafts
  // (drafts of one problem share many channel programs, and a run reuses them thousands of times). The first
  // draft that runs at a point fills the cache: it is timed only when nothing else runs within the point's
  // budget. Up to kTimedPerPoint drafts are timed per point, within kSecondsPerPoint.
  EvalOptions eval = workerEvalOptions(options);
  sim::ChannelRunCache cache;
  eval.cache = &cache;
  double total = 0;
  int timed = 0;
  const auto began = std::chrono::steady_clock::now();
  for (const std::vector<Draft>& candidates : points) {
    // Past the budget the points sampled so far stand for the rest: slow drafts make a short estimate.
    if (timed > 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() >=
                         kEstimateBudgetSeconds)
      break;
    double first = 0, rest = 0, spent = 0;
    int ran = 0;
    for (const Draft& d : candidates) {
      const auto start = std::chrono::steady_clock::now();
      try {
        evaluateDraft(p, d, eval);
      } catch (const std::exception&) {
        continue;
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      (ran++ == 0 ? first : rest) += s;
      spent += s;
      if (ran > static_cast<int>(kTimedPerPoint) || spent >= kSecondsPerPoint) break;
    }
    if (ran == 1) total += first, timed += 1;
    if (ran > 1) total += rest, timed += ran - 1;
  }
  if (timed > 0) e.secondsPerSimulation = total / timed;
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
