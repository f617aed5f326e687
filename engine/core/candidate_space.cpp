// SPDX-License-Identifier: Apache-2.0
#include "engine/core/candidate_space.h"

#include <algorithm>
#include <queue>
#include <utility>

#include "engine/common/error.h"

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

ChoiceCandidateSpace::ChoiceCandidateSpace(std::unique_ptr<ICandidateSpace> drafts, CandidateIds ids)
    : m_drafts(std::move(drafts)), m_ids(std::move(ids)) {}

void ChoiceCandidateSpace::checkRange(std::uint64_t id) const {
  if (id >= m_ids.count())
    throw InputError("candidate " + std::to_string(id) + " is outside 0.." +
                     std::to_string(m_ids.count() - 1) + " (" + std::to_string(m_ids.drafts()) +
                     " drafts x " + std::to_string(m_ids.choices()) + " kernel-level choices)");
}

Draft ChoiceCandidateSpace::candidate(std::uint64_t id) const {
  checkRange(id);
  Draft d = m_drafts->candidate(m_ids.draftOf(id));
  d.id = id;
  return d;
}

std::string ChoiceCandidateSpace::label(const Draft& d) const {
  const std::string choices = m_ids.label(d.id);
  return m_drafts->label(d) + (choices.empty() ? "" : " {" + choices + "}");
}

Verdict ChoiceCandidateSpace::why(std::uint64_t id) const {
  checkRange(id);
  Verdict v = m_drafts->why(m_ids.draftOf(id));
  // The twins are drafts with the same choices.
  const std::vector<int> choice = m_ids.choiceOf(id);
  v.draft = id;
  if (v.twin) v.twin = m_ids.id(*v.twin, choice);
  if (v.keptTwin) v.keptTwin = m_ids.id(*v.keptTwin, choice);
  return v;
}

}  // namespace pim
