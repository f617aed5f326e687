// SPDX-License-Identifier: Apache-2.0
#include "engine/prune/prune_rule.h"

namespace pim {

void registerBuiltinPruneRules(PruneRuleRegistry& r) {
  r.add(makeRedundantRule());
  r.add(makeSimdAlignmentRule());
  r.add(makePerformanceEquivalenceRule());
}

const PruneRuleRegistry& PruneRuleRegistry::builtin() {
  static const PruneRuleRegistry reg = [] {
    PruneRuleRegistry r;
    registerBuiltinPruneRules(r);
    return r;
  }();
  return reg;
}

}  // namespace pim
