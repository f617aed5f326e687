// SPDX-License-Identifier: Apache-2.0
// Exact one-hot building blocks for MILPs over products of divisors (docs/convmap.md "The MILP"): a
// choice among the divisors of a number linked to linear exponent expressions per prime, a tuple of choices
// (continuous, forced by one-hot marginals), and an indicator times a choice. Integer coefficients in every
// linking row; nothing approximates.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/milp/milp.h"

namespace pim::convmap {

using LinearExpr = std::vector<milp::Term>;
using PrimeExprs = std::map<std::int64_t, LinearExpr>;  // prime -> an exponent as a linear expression
using ChoiceKey = std::vector<std::int64_t>;

/// Prime -> multiplicity.
std::map<std::int64_t, int> primeExponents(std::int64_t v);
void append(LinearExpr& to, const LinearExpr& from, double scale = 1);

/// One-hot options (binary, or continuous where one-hot components force them), each with the component
/// values it stands for.
struct Choice {
  std::vector<std::size_t> vars;
  std::vector<ChoiceKey> keys;
};

/// sum over options of value(key) x weights[option] (indicatorWeights), zero values left out.
LinearExpr weighted(const Choice& c, const std::vector<std::size_t>& weights,
                    const std::function<double(const ChoiceKey&)>& value);

class OneHotModel {
 public:
  explicit OneHotModel(milp::MilpModel& m) : m_(m) {}
  milp::MilpModel& model() { return m_; }

  /// A variable fixed at `value` (integer).
  std::size_t fixed(const std::string& name, double value);
  /// One-hot over the divisors of `product` (keys {divisor}), its exponent of each prime equal to
  /// `exponents` (a prime missing there: exponent 0).
  Choice divisorChoice(const std::string& name, std::int64_t product, const PrimeExprs& exponents);
  /// The tuples of the parts' options (keys concatenated), continuous, each part's option equal to the sum of
  /// the tuples holding it: with one-hot parts only their product is feasible.
  Choice tupleChoice(const std::string& name, const std::vector<const Choice*>& parts);
  /// Per option, w = [option chosen and indicator = 1] for a 0/1 `indicator`: w <= option, sum of w =
  /// indicator. Several values of the same product read the same weights (weighted()).
  std::vector<std::size_t> indicatorWeights(const Choice& c, std::size_t indicator);
  /// sum over options of value(key) x w: indicatorWeights, then weighted().
  LinearExpr indicatorProduct(const Choice& c, std::size_t indicator,
                              const std::function<double(const ChoiceKey&)>& value);

 private:
  milp::MilpModel& m_;
};

}  // namespace pim::convmap
