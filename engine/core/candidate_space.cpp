// SPDX-License-Identifier: Apache-2.0
#include "engine/core/candidate_space.h"

#include <algorithm>
#include <queue>
#include <utility>

namespace pim {

std::vector<Draft> firstKept(const ICandidateSpace& space, std::size_t limit) {
  auto later = [](const Draft& a, const Draft& b) { return a.id < b.id; };
  std::priority_queue<Draft, std::vector<Draft>, decltype(later)> heap(later);
  if (limit == 0) return {};
  space.forEachKept([&](const Draft& d) {
    if (heap.size() < limit) {
      heap.push(d);
    } else if (d.id < heap.top().id) {
      heap.pop();
      heap.push(d);
    }
    return true;
  });
  std::vector<Draft> out;
  for (; !heap.empty(); heap.pop()) out.push_back(heap.top());
  std::reverse(out.begin(), out.end());
  return out;
}

DraftCandidateSpace::DraftCandidateSpace(const DraftSpace& space, std::vector<bool> enabled,
                                         const PruneRuleRegistry& rules)
    : m_space(space), m_pruner(space, std::move(enabled), rules) {}

}  // namespace pim
