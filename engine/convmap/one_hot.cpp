// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/one_hot.h"

#include "engine/convmap/mapspace.h"

namespace pim::convmap {

std::map<std::int64_t, int> primeExponents(std::int64_t v) {
  std::map<std::int64_t, int> e;
  for (auto p : primeFactors(v)) ++e[p];
  return e;
}

void append(LinearExpr& to, const LinearExpr& from, double scale) {
  for (const auto& t : from) to.push_back({t.var, t.coef * scale});
}

std::size_t OneHotModel::fixed(const std::string& name, double value) {
  return m_.addVariable(name, value, value, true);
}

Choice OneHotModel::divisorChoice(const std::string& name, std::int64_t product,
                                  const PrimeExprs& exponents) {
  Choice c;
  const auto values = divisors(product);
  LinearExpr one;
  for (auto v : values) {
    c.vars.push_back(values.size() == 1 ? fixed(name, 1) : m_.addBinary(name + "=" + std::to_string(v)));
    c.keys.push_back({v});
    one.push_back({c.vars.back(), 1});
  }
  m_.addRow(name + " one-hot", one, 1, 1);
  for (const auto& [p, n] : primeExponents(product)) {
    LinearExpr row;
    for (std::size_t i = 0; i < values.size(); ++i)
      if (auto e = primeExponents(values[i]); e.count(p)) row.push_back({c.vars[i], double(e[p])});
    if (auto it = exponents.find(p); it != exponents.end()) append(row, it->second, -1);
    m_.addRow(name + " exponent of " + std::to_string(p), row, 0, 0);
  }
  return c;
}

Choice OneHotModel::tupleChoice(const std::string& name, const std::vector<const Choice*>& parts) {
  std::vector<std::vector<std::size_t>> index{{}};  // per tuple, the option of each part
  for (const auto* part : parts) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& idx : index)
      for (std::size_t i = 0; i < part->vars.size(); ++i) {
        next.push_back(idx);
        next.back().push_back(i);
      }
    index = std::move(next);
  }
  Choice c;
  for (const auto& idx : index) {
    ChoiceKey key;
    for (std::size_t k = 0; k < parts.size(); ++k)
      key.insert(key.end(), parts[k]->keys[idx[k]].begin(), parts[k]->keys[idx[k]].end());
    c.vars.push_back(m_.addVariable(name, 0, 1));
    c.keys.push_back(std::move(key));
  }
  for (std::size_t k = 0; k < parts.size(); ++k)
    for (std::size_t i = 0; i < parts[k]->vars.size(); ++i) {
      LinearExpr row{{parts[k]->vars[i], -1}};
      for (std::size_t j = 0; j < index.size(); ++j)
        if (index[j][k] == i) row.push_back({c.vars[j], 1});
      m_.addRow(name + " marginal", row, 0, 0);
    }
  return c;
}

std::vector<std::size_t> OneHotModel::indicatorWeights(const Choice& c, std::size_t indicator) {
  LinearExpr sum{{indicator, -1}};
  std::vector<std::size_t> weights;
  for (const auto option : c.vars) {
    const auto w = m_.addVariable("w", 0, 1);
    m_.addRow("w <= option", {{w, 1}, {option, -1}}, -milp::kInf, 0);
    sum.push_back({w, 1});
    weights.push_back(w);
  }
  m_.addRow("w sums to the indicator", sum, 0, 0);
  return weights;
}

LinearExpr weighted(const Choice& c, const std::vector<std::size_t>& weights,
                    const std::function<double(const ChoiceKey&)>& value) {
  LinearExpr result;
  for (std::size_t i = 0; i < c.vars.size(); ++i)
    if (const double v = value(c.keys[i]); v != 0) result.push_back({weights[i], v});
  return result;
}

LinearExpr OneHotModel::indicatorProduct(const Choice& c, std::size_t indicator,
                                         const std::function<double(const ChoiceKey&)>& value) {
  return weighted(c, indicatorWeights(c, indicator), value);
}

}  // namespace pim::convmap
