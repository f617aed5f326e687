// SPDX-License-Identifier: Apache-2.0
#include "engine/crossbar/accelerator.h"

namespace pim::crossbar {
namespace {

/// 9216 -> "9,216": array counts are read by people comparing them with the paper's tables.
std::string grouped(std::int64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > (s.front() == '-' ? 1 : 0); i -= 3)
    s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

}  // namespace

std::string describe(const Accelerator& a) {
  return grouped(a.cores()) + " cores (" + std::to_string(a.coresX) + " x " + std::to_string(a.coresY) +
         ") in " + std::to_string(a.chips) + (a.chips == 1 ? " chip" : " chips") + ", " +
         grouped(a.crossbarsPerCore) + (a.crossbarsPerCore == 1 ? " array" : " arrays") + " of " +
         std::to_string(a.rows) + " x " + std::to_string(a.cols) + " per core: " + grouped(a.crossbars()) +
         " arrays";
}

}  // namespace pim::crossbar
