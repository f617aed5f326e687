// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
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

/// The progressions of a union. Almost every union is one range, and a mapping holds one per tensor axis of
/// every core of every simulated draft, so a single part lives inline and only longer lists use the heap.
class IndexSetList {
 public:
  IndexSetList() = default;
  IndexSetList(std::initializer_list<IndexSet> l) {
    for (const IndexSet& s : l) push_back(s);
  }
  void push_back(const IndexSet& s) {
    if (m_size == 0) {
      m_one = s;
    } else {
      if (m_size == 1) m_more.assign(1, m_one);
      m_more.push_back(s);
    }
    ++m_size;
  }
  void clear() {
    m_size = 0;
    m_more.clear();
  }
  std::size_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }
  const IndexSet* begin() const { return m_size <= 1 ? &m_one : m_more.data(); }
  const IndexSet* end() const { return begin() + m_size; }
  IndexSet* begin() { return m_size <= 1 ? &m_one : m_more.data(); }
  IndexSet* end() { return begin() + m_size; }
  const IndexSet& operator[](std::size_t i) const { return begin()[i]; }
  const IndexSet& front() const { return *begin(); }
  const IndexSet& back() const { return begin()[m_size - 1]; }
  IndexSet& back() { return begin()[m_size - 1]; }
  bool operator==(const IndexSetList& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  IndexSet m_one;
  std::vector<IndexSet> m_more;  // every part once there are two or more
  std::size_t m_size = 0;
};

/// The indices a core needs along one dimension: a union of progressions, kept disjoint and sorted by start.
struct IndexUnion {
  IndexSetList parts;
  std::int64_t count() const;
  std::int64_t lo() const;
  std::int64_t hi() const;
  std::string str() const;  // "[0:3)" or "[0] [2]" style, parts separated by spaces
};

/// Union of index sets; exact when the result is small or the parts are ranges, else the covering range
/// (`exact` reports which).
IndexUnion unite(const std::vector<IndexSet>& sets, bool* exact = nullptr);

}  // namespace pim
