// SPDX-License-Identifier: Apache-2.0
// Workload suites (datasets/suites/*.json): the kernels and shapes `train` and `evaluate` run, read with
// every error naming the file and the entry.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/hw/backend.h"
#include "engine/kernel/kernel.h"

namespace pim {

/// A workload suite: shapes per kernel (datasets/suites/*.json: {"name": ..., "kernels": {"gemv": ["b=1,...",
/// ...]}}), optionally an element type per kernel ("types": {"red": "i64"}: the library kernel retyped, as
/// --dtype does) and backend parameters per kernel ("parameters": {"gemv": {"pim.mulOperandBits": 4.03}}: set
/// on every backend that declares them when that kernel runs, e.g. the operand range a multiply's cost
/// depends on).
struct Suite {
  std::string name;
  std::vector<std::pair<std::string, std::vector<std::string>>> kernels;
  std::map<std::string, DType> types = {};
  std::map<std::string, std::vector<std::pair<std::string, double>>> parameters = {};

  /// Library kernel `name`, retyped where the suite gives it a type.
  Kernel kernel(const std::string& name) const;
  /// `b` with the suite's parameters for kernel `name` that `b` declares (others are left out: they belong
  /// to another family).
  Backend backendFor(const Backend& b, const std::string& name) const;
};
Suite loadSuite(const std::string& path);  // throws InputError naming the file and the entry
/// The union of several suites (kernels and shapes in first-seen order, each shape once), named "a+b":
/// training on the evaluation suite plus shapes that only widen what the model has seen.
Suite loadSuites(const std::vector<std::string>& paths);

}  // namespace pim
