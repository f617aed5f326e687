// SPDX-License-Identifier: Apache-2.0
// GPU-only execution on the host (baselines.h), as a strategy: one analytic evaluation.
#include "engine/search/strategies/one_schedule_strategy.h"

namespace pim {

StrategyInfo gpuStrategy() {
  return {"gpu",
          "GPU-only execution on the host (analytic A100 model, no PIM)",
          PredictionUse::None,
          "",
          [](const StrategyContext& c) {
            return std::make_unique<OneScheduleStrategy>(
                [&problem = c.problem] { return baselineRecord(gpuBaseline(problem)); });
          },
          [](const Problem&, std::uint64_t, const ExploreOptions&) { return std::size_t{1}; }};
}

}  // namespace pim
