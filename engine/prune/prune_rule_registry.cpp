// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "engine/common/error.h"
#include "engine/prune/prune_rule.h"

namespace pim {

void PruneRuleRegistry::add(std::unique_ptr<IPruneRule> rule) {
  // Names key the rules in session files and numbers in verdicts ("pruned by rule N"): both must be unique.
  for (const auto& r : m_rules) {
    if (r->name() == rule->name() || r->number() == rule->number())
      throw InputError("prune rules: rule " + std::to_string(rule->number()) + " '" +
                       std::string(rule->name()) + "' clashes with rule " + std::to_string(r->number()) +
                       " '" + std::string(r->name()) + "'");
  }
  m_rules.push_back(std::move(rule));
}

std::optional<std::size_t> PruneRuleRegistry::find(std::string_view name) const {
  const auto it =
      std::find_if(m_rules.begin(), m_rules.end(), [&](const auto& r) { return r->name() == name; });
  if (it == m_rules.end()) return std::nullopt;
  return static_cast<std::size_t>(it - m_rules.begin());
}

}  // namespace pim
