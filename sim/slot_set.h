// SPDX-License-Identifier: Apache-2.0
#pragma once
// The occupied command-bus slots of one channel: a sorted vector of cycles. The scheduler inserts near the
// end, looks up within its look-ahead window and drops everything behind its frontier, so the live set stays
// small (at most the window's width) and a contiguous array beats a node-based std::set: no allocation per
// command, and the dropped prefix is only an index move until it is worth compacting.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace pim::sim {

class SlotSet {
 public:
  // The earliest cycle at or after t that no command occupies.
  int64_t firstFreeFrom(int64_t t) const {
    for (auto it = std::lower_bound(begin(), end(), t); it != end() && *it == t; ++it) ++t;
    return t;
  }
  void insert(int64_t t) {
    if (m_v.size() == m_head || m_v.back() < t) {
      m_v.push_back(t);
      return;
    }
    const auto it = std::lower_bound(begin(), end(), t);
    if (*it != t) m_v.insert(it, t);
  }
  // Forgets every slot before t.
  void eraseBelow(int64_t t) {
    m_head = size_t(std::lower_bound(begin(), end(), t) - m_v.begin());
    if (m_head > 64 && m_head * 2 > m_v.size()) {
      m_v.erase(m_v.begin(), m_v.begin() + std::ptrdiff_t(m_head));
      m_head = 0;
    }
  }
  void shift(int64_t dt) {
    for (auto it = begin(); it != end(); ++it) *it += dt;
  }
  size_t size() const { return m_v.size() - m_head; }
  bool empty() const { return size() == 0; }
  template <typename F>
  void forEachFrom(int64_t lo, F&& f) const {
    for (auto it = std::lower_bound(begin(), end(), lo); it != end(); ++it) f(*it);
  }

 private:
  std::vector<int64_t>::iterator begin() { return m_v.begin() + std::ptrdiff_t(m_head); }
  std::vector<int64_t>::iterator end() { return m_v.end(); }
  std::vector<int64_t>::const_iterator begin() const { return m_v.begin() + std::ptrdiff_t(m_head); }
  std::vector<int64_t>::const_iterator end() const { return m_v.end(); }

  std::vector<int64_t> m_v;
  size_t m_head = 0;  // m_v[0, m_head) are dropped slots not yet compacted away
};

}  // namespace pim::sim
