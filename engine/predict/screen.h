// SPDX-License-Identifier: Apache-2.0
// The analytic screen before the model (DCC section 4.4 at scale): predicting a few hundred thousand drafts
// would dominate compile time, so beyond a limit only the drafts with the least analytic time estimate
// (feature est_total_ns) are predicted; the estimate is cheap and keeps the good region. One rule, two
// forms: over a list of drafts, and one draft at a time as they are generated.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <tuple>
#include <vector>

#include "engine/codegen/lowering.h"
#include "engine/core/estimator.h"
#include "engine/core/problem.h"

namespace pim {

/// The screen's order: the lesser estimate first, ties to the smaller draft id (the same drafts on every
/// run).
inline bool screensBefore(float estimate, std::uint64_t id, float otherEstimate, std::uint64_t otherId) {
  return std::tie(estimate, id) < std::tie(otherEstimate, otherId);
}

/// The drafts the model is asked about: all of them when there are at most `limit` (or `limit` is 0), else
/// the `limit` first in the screen's order, as indices in index order (ties to the smaller index: the smaller
/// id, as the explorer's drafts are in id order). Shared by the explorer and the Table-4 evaluation.
std::vector<std::size_t> screenForPrediction(const Problem& p, std::span<const Draft* const> drafts,
                                             std::size_t limit, const OptimizerOptions& o = {});

/// The same screen one draft at a time, holding only the `limit` first so far: for a caller that needs the
/// shortlist, not the list of every kept draft. Keeps every draft offered when the target has no estimate.
class ScreenShortlist {
 public:
  ScreenShortlist(const Problem& p, std::size_t limit, const OptimizerOptions& o = {});
  void offer(const Draft& d);
  /// The drafts kept, in id order; the shortlist is empty after.
  std::vector<Draft> take();

 private:
  struct Entry {
    float estimate = 0;
    Draft draft;
  };
  static bool leavesFirst(const Entry& a, const Entry& b);
  std::unique_ptr<ICandidateEstimator> m_estimator;
  std::size_t m_limit;
  std::vector<Entry> m_heap;  // a max-heap in the screen's order: its front is the first to leave
};

}  // namespace pim
