// SPDX-License-Identifier: Apache-2.0
// Integer rounding shared by the whole engine (tile counts, bursts, rows, parts): one definition, not a copy
// per file.
#pragma once
#include <cstdint>

namespace pim {

/// a / b rounded up (towards +infinity), for any signs with b != 0. Never forms a + b - 1, so it cannot
/// overflow where a / b does not.
constexpr std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if (a % b != 0 && ((a < 0) == (b < 0))) ++q;
  return q;
}

/// a rounded up to a multiple of m (a >= 0, m > 0).
constexpr std::int64_t roundUp(std::int64_t a, std::int64_t m) { return ceilDiv(a, m) * m; }

}  // namespace pim
