// SPDX-License-Identifier: Apache-2.0
#include "engine/common/number_text.h"

#include <cstdio>

namespace pim {

std::string withThousands(std::int64_t v) {
  // Through unsigned, so that the smallest int64 has a magnitude.
  const std::uint64_t magnitude = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  std::string s = std::to_string(magnitude);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return v < 0 ? "-" + s : s;
}

std::string compactNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

std::string withDecimals(double v, int decimals) {
  const int n = std::snprintf(nullptr, 0, "%.*f", decimals, v);
  std::string s(static_cast<std::size_t>(n), '\0');
  std::snprintf(s.data(), s.size() + 1, "%.*f", decimals, v);
  return s;
}

}  // namespace pim
