// SPDX-License-Identifier: Apache-2.0
#include "engine/prune/prune_rule.h"

namespace pim {

std::vector<std::unique_ptr<IPruneRule>> builtinPruneRules() {
  std::vector<std::unique_ptr<IPruneRule>> rules;
  rules.push_back(makeRedundantRule());
  rules.push_back(makeSimdAlignmentRule());
  rules.push_back(makePerformanceEquivalenceRule());
  return rules;
}

}  // namespace pim
