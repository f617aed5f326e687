// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pim {

/// Indices along one tensor dimension: the arithmetic progression start, start+stride, ... (count terms).
/// Single-variable affine references over a loop range are exactly such progressions.
struct IndexSet {
  std::int64_t start = 0;
  std::int64_t stride = 1;
  std::int64_t count = 0;

  static IndexSet range(std::int64_t lo, std::int64_t hi) { return {lo, 1, hi > lo ? hi - lo : 0}; }
  bool empty() const { return count == 0; }
  bool contiguous() const { return count <= 1 || stride == 1; }
  std::int64_t lo() const { return start; }
  std::int64_t hi() const { return count ? start + stride * (count - 1) + 1 : start; }  // exclusive
  /// DCC indexing strategy (i): the contiguous range covering the indices.
  IndexSet expanded() const { return range(lo(), hi()); }
  bool operator==(const IndexSet&) const = default;
  /// "[0:3)" for ranges, "{0,2}" / "{0,2,...,14}" (stride form) otherwise, "{}" when empty.
  std::string str() const;
};

/// The indices a core needs along one dimension: a union of progressions, kept disjoint and sorted by start.
struct IndexUnion {
  std::vector<IndexSet> parts;
  std::int64_t count() const;
  std::int64_t lo() const;
  std::int64_t hi() const;
  std::string str() const;  // "[0:3)" or "[0] [2]" style, parts separated by spaces
};

/// Union of index sets; exact when the result is small or the parts are ranges, else the covering range
/// (`exact` reports which).
IndexUnion unite(const std::vector<IndexSet>& sets, bool* exact = nullptr);

}  // namespace pim
