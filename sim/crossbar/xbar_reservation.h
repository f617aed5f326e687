// SPDX-License-Identifier: Apache-2.0
// A shared resource's busy nanoseconds (issue 19; ../shared/specs/crossbar.md, "Profiler timing rules": the
// chip bus and global memory). PIMCOMP-NN keeps a 5e8-entry bool array per chip and grants a request of n ns
// at t the first n free nanoseconds at or after t, not necessarily contiguous, its latency running to the
// last one. This table grants identically from a map of merged busy intervals, so memory follows the number
// of fragments instead of the time span.
#pragma once
#include <cstdint>
#include <map>

namespace pim::xbar {

class ReservationTable {
 public:
  /// Takes the first `ns` free nanoseconds at or after `t` and returns the latency from t to the end of the
  /// last one taken (0 when ns <= 0, as PIMCOMP-NN's loop does nothing then).
  std::int64_t reserve(std::int64_t t, std::int64_t ns);

  /// Drops what lies wholly before t. Only safe when no later request starts before t.
  void forgetBefore(std::int64_t t);

  bool busy(std::int64_t t) const;                  // whether nanosecond t is taken
  std::int64_t busyNs() const { return m_busyNs; }  // every nanosecond ever taken
  std::size_t fragments() const { return m_intervals.size(); }

 private:
  // start -> end (exclusive). Disjoint and never adjacent: touching intervals are merged.
  std::map<std::int64_t, std::int64_t> m_intervals;
  std::int64_t m_busyNs = 0;
};

}  // namespace pim::xbar
