// SPDX-License-Identifier: Apache-2.0
#include "engine/search/strategy.h"

#include "engine/common/error.h"

namespace pim {

const StrategyRegistry& StrategyRegistry::builtin() {
  static const StrategyRegistry reg = [] {
    StrategyRegistry r;
    registerBuiltinStrategies(r);
    return r;
  }();
  return reg;
}

void StrategyRegistry::add(StrategyInfo s) {
  if (find(s.name)) throw InputError("strategies: strategy '" + s.name + "' is registered twice");
  m_strategies.push_back(std::move(s));
}

const StrategyInfo* StrategyRegistry::find(std::string_view name) const {
  for (const StrategyInfo& s : m_strategies)
    if (s.name == name) return &s;
  return nullptr;
}

const StrategyInfo& StrategyRegistry::get(std::string_view name) const {
  if (const StrategyInfo* s = find(name)) return *s;
  throw InputError("unknown strategy '" + std::string(name) + "' (known: " + names(", ", ", ") + ")");
}

std::string StrategyRegistry::names(std::string_view sep, std::string_view lastSep) const {
  std::string out;
  for (std::size_t i = 0; i < m_strategies.size(); ++i) {
    if (i) out += i + 1 == m_strategies.size() ? lastSep : sep;
    out += m_strategies[i].name;
  }
  return out;
}

}  // namespace pim
