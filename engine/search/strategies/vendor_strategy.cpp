// SPDX-License-Identifier: Apache-2.0
// The vendor library's default schedule (baselines.h), as a strategy: one evaluation.
#include "engine/search/strategies/one_schedule_strategy.h"

namespace pim {

StrategyInfo vendorStrategy() {
  return {"vendor",
          "the vendor library's default schedule (one simulation; not every backend has one)",
          PredictionUse::None,
          "",
          [](const StrategyContext& c) {
            return std::make_unique<OneScheduleStrategy>([&problem = c.problem, eval = c.options.eval] {
              return baselineRecord(vendorBaseline(problem, eval));
            });
          },
          [](const Problem&, std::uint64_t, const ExploreOptions&) { return std::size_t{1}; }};
}

}  // namespace pim
