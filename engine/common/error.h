// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pim {

/// An error caused by user input (a file, a flag, a size). The message already names what and where
/// ("datasets/backends/x.json: timing.tRCD: must be a positive integer"); callers print it as one line.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One hardware limit a schedule breaks: which (a short key such as "WRAM" or "tasklets", for counts by
/// reason) and the message with the value and the bound.
struct LimitViolation {
  std::string limit, message;
  bool operator==(const LimitViolation&) const = default;
};

/// A schedule refused by a family's verifier before anything is evaluated: every limit it breaks (what()
/// joins their messages with "; ").
class LimitError : public InputError {
 public:
  explicit LimitError(std::vector<LimitViolation> v) : InputError(joined(v)), m_violations(std::move(v)) {}
  const std::vector<LimitViolation>& violations() const { return m_violations; }

 private:
  static std::string joined(const std::vector<LimitViolation>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "; ") + x.message;
    return s;
  }
  std::vector<LimitViolation> m_violations;
};

}  // namespace pim
