// SPDX-License-Identifier: Apache-2.0
// Between a MappingMilp's variables and a ConvMapping: decoding a solution, a mapping's values (a warm
// start), and the edits the mappers make to a built model (fix the spatial factors, cut off above an
// incumbent, exclude a mapping already decoded).
#include "engine/convmap/mapping_milp.h"

#include <algorithm>
#include <stdexcept>

namespace pim::convmap {

ConvMapping decodeMapping(const MappingMilp& e, std::span<const double> values) {
  ConvMapping m;
  m.levels.resize(e.keep.size());
  for (auto& l : m.levels)
    for (auto& f : l.factor) f.fill(1);
  for (const auto& f : e.factors)
    for (const auto& [var, v] : f.options)
      if (values[var] > 0.5) m.levels[f.level].factor[f.slot][f.dim] = v;
  for (std::size_t lv = 0; lv < e.keep.size(); ++lv)
    for (int t = 0; t < kTensors; ++t) m.levels[lv].keep[t] = values[e.keep[lv][t]] > 0.5;
  for (std::size_t lv = 0; lv < m.levels.size(); ++lv) {
    auto& l = m.levels[lv];
    for (int d = 0; d < kDims; ++d)
      if (l.factor[SlotTemporal][d] > 1) l.order.push_back(d);
    auto inside = [&](int a, int b) {
      for (const auto& p : e.precedences)
        if (p.level == static_cast<int>(lv) && p.inner == std::min(a, b) && p.outer == std::max(a, b))
          return (values[p.var] > 0.5) == (a < b);
      return a < b;
    };
    std::sort(l.order.begin(), l.order.end(), inside);
  }
  return m;
}

std::vector<std::pair<std::size_t, double>> mappingValues(const MappingMilp& e, const ConvMapping& m) {
  std::vector<std::pair<std::size_t, double>> v;
  for (const auto& f : e.factors)
    for (const auto& [var, value] : f.options)
      v.push_back({var, m.levels[f.level].factor[f.slot][f.dim] == value ? 1.0 : 0.0});
  for (std::size_t lv = 0; lv < e.keep.size(); ++lv)
    for (int t = 0; t < kTensors; ++t) v.push_back({e.keep[lv][t], m.levels[lv].keep[t] ? 1.0 : 0.0});
  for (const auto& p : e.precedences) {
    // The mapping's order, inner to outer, then the loops of factor 1 outermost in dimension order.
    auto order = m.levels[p.level].order;
    for (int d = 0; d < kDims; ++d)
      if (std::find(order.begin(), order.end(), d) == order.end()) order.push_back(d);
    const auto at = [&](int d) { return std::find(order.begin(), order.end(), d) - order.begin(); };
    v.push_back({p.var, at(p.inner) < at(p.outer) ? 1.0 : 0.0});
  }
  return v;
}

void fixSpatial(MappingMilp& e, const std::array<DimFactors, 3>& spatial) {
  std::array<DimFactors, 3> placed{};  // the factors the model can take, to check every one was
  for (auto& slot : placed) slot.fill(1);
  for (const auto& c : e.factors) {
    if (c.level != 0 || c.slot == SlotTemporal) continue;
    for (const auto& [var, factor] : c.options)
      if (factor != spatial[c.slot][c.dim])
        e.model.variables[var].upper = 0;
      else
        placed[c.slot][c.dim] = factor;
  }
  if (placed != spatial) throw std::logic_error("fixSpatial: a spatial factor the MILP has no choice for");
}

void cutOffAbove(MappingMilp& e, double value) {
  e.model.addRow("objective cut-off", e.model.objective.terms, -milp::kInf,
                 value - e.model.objective.constant);
}

// A solution decodes to `m` exactly when every factor choice picks m's factor, every keep is m's and every
// pair of m's loops (factor above 1) is in m's order: the literals below. Pairs with a loop of factor 1 do
// not change the mapping, so they are left free.
void excludeMapping(MappingMilp& e, const ConvMapping& m) {
  std::vector<milp::Term> terms;
  double ones = 0;
  auto literal = [&](std::size_t var, bool one) {
    terms.push_back({var, one ? 1.0 : -1.0});
    ones += one ? 1 : 0;
  };
  for (const auto& f : e.factors)
    for (const auto& [var, value] : f.options)
      if (m.levels[f.level].factor[f.slot][f.dim] == value) literal(var, true);
  for (std::size_t lv = 0; lv < e.keep.size(); ++lv)
    for (int t = 0; t < kTensors; ++t) literal(e.keep[lv][t], m.levels[lv].keep[t]);
  for (const auto& p : e.precedences) {
    const auto& order = m.levels[p.level].order;  // inner to outer
    const auto inner = std::find(order.begin(), order.end(), p.inner);
    const auto outer = std::find(order.begin(), order.end(), p.outer);
    if (inner != order.end() && outer != order.end()) literal(p.var, inner < outer);
  }
  e.model.addRow("exclude a decoded mapping", terms, -milp::kInf, ones - 1);
}

}  // namespace pim::convmap
