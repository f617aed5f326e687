// SPDX-License-Identifier: Apache-2.0
// The interval reservation table behind the crossbar profiler's bus and global memory (issue 19;
// ../shared/specs/crossbar.md, "Profiler timing rules").
#include "sim/crossbar/xbar_reservation.h"

#include <algorithm>
#include <iterator>
#include <limits>

namespace pim::xbar {

std::int64_t ReservationTable::reserve(std::int64_t t, std::int64_t ns) {
  if (ns <= 0) return 0;
  m_busyNs += ns;
  auto next = m_intervals.upper_bound(t);  // first interval starting after t
  auto mergeFrom = next;                   // first interval the grant will absorb
  std::int64_t cursor = t;                 // first free nanosecond not yet examined
  std::int64_t mergedStart = t;
  if (next != m_intervals.begin()) {
    auto before = std::prev(next);
    if (before->second >= t) {  // t is inside it, or it ends right at t: the grant joins it
      mergeFrom = before;
      mergedStart = before->first;
      cursor = std::max(cursor, before->second);
    }
  }
  // Fill the gaps in order. Each gap is filled entirely except the last, so every interval walked over
  // becomes part of one busy run from mergedStart to the grant's end.
  std::int64_t remaining = ns;
  std::int64_t end = 0;
  while (true) {
    const std::int64_t gapEnd =
        next == m_intervals.end() ? std::numeric_limits<std::int64_t>::max() : next->first;
    if (gapEnd - cursor >= remaining) {
      end = cursor + remaining;
      break;
    }
    remaining -= gapEnd - cursor;
    cursor = next->second;
    ++next;
  }
  std::int64_t mergedEnd = end;
  if (next != m_intervals.end() && next->first == end) {
    mergedEnd = next->second;
    ++next;
  }
  m_intervals.erase(mergeFrom, next);
  m_intervals.emplace_hint(next, mergedStart, mergedEnd);
  return end - t;
}

void ReservationTable::forgetBefore(std::int64_t t) {
  auto it = m_intervals.begin();
  while (it != m_intervals.end() && it->second <= t) it = m_intervals.erase(it);
}

bool ReservationTable::busy(std::int64_t t) const {
  auto it = m_intervals.upper_bound(t);
  if (it == m_intervals.begin()) return false;
  return std::prev(it)->second > t;
}

}  // namespace pim::xbar
