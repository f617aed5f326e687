// SPDX-License-Identifier: Apache-2.0
#include "engine/search/strategy.h"

namespace pim {

// Each is defined in engine/search/strategies/<name>_strategy.cpp.
StrategyInfo predictorStrategy();
StrategyInfo exhaustiveStrategy();
StrategyInfo computeCentricStrategy();
StrategyInfo vendorStrategy();
StrategyInfo gpuStrategy();
StrategyInfo imtpStrategy();

void registerBuiltinStrategies(StrategyRegistry& r) {
  r.add(predictorStrategy());
  r.add(exhaustiveStrategy());
  r.add(computeCentricStrategy());
  r.add(imtpStrategy());
  r.add(vendorStrategy());
  r.add(gpuStrategy());
}

}  // namespace pim
