// SPDX-License-Identifier: Apache-2.0
#include "engine/predict/screen.h"

#include <algorithm>
#include <numeric>
#include <thread>

#include "engine/common/threads.h"
#include "engine/target/registry.h"

namespace pim {
std::vector<std::size_t> screenForPrediction(const Problem& p, std::span<const Draft* const> drafts,
                                             std::size_t limit, const OptimizerOptions& o) {
  std::vector<std::size_t> chosen(drafts.size());
  std::iota(chosen.begin(), chosen.end(), 0);
  const auto estimator = targetOf(p.backend()).estimator(p, o);
  if (limit == 0 || chosen.size() <= limit || !estimator) return chosen;
  std::vector<float> estimate(drafts.size());
  // Contiguous slices on every hardware thread (extraction is const and maps each draft independently).
  const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t slice = (drafts.size() + threads - 1) / threads;
  auto work = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) estimate[i] = estimator->estimate(*drafts[i]).totalNs;
  };
  auto workSlice = [&](std::size_t t) {
    work(std::min(drafts.size(), t * slice), std::min(drafts.size(), (t + 1) * slice));
  };
  std::vector<std::thread> pool;
  const std::size_t started = startThreads(pool, threads - 1, [&](std::size_t t) { workSlice(t + 1); });
  workSlice(0);
  // Slices of threads the system would not start are done here.
  for (std::size_t t = started + 1; t < threads; ++t) workSlice(t);
  for (auto& t : pool) t.join();
  // Ties to the smaller index (the smaller id for drafts in id order).
  std::nth_element(
      chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(limit), chosen.end(),
      [&](std::size_t a, std::size_t b) { return screensBefore(estimate[a], a, estimate[b], b); });
  chosen.resize(limit);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

ScreenShortlist::ScreenShortlist(const Problem& p, std::size_t limit, const OptimizerOptions& o)
    : m_estimator(targetOf(p.backend()).estimator(p, o)), m_limit(limit) {}

bool ScreenShortlist::leavesFirst(const Entry& a, const Entry& b) {
  return screensBefore(a.estimate, a.draft.id, b.estimate, b.draft.id);
}

void ScreenShortlist::offer(const Draft& d) {
  if (!m_estimator || m_limit == 0) return m_heap.push_back({0, d});
  const float estimate = m_estimator->estimate(d).totalNs;
  if (m_heap.size() == m_limit) {
    const Entry& last = m_heap.front();
    if (!screensBefore(estimate, d.id, last.estimate, last.draft.id)) return;
    std::pop_heap(m_heap.begin(), m_heap.end(), leavesFirst);
    m_heap.back() = {estimate, d};
  } else {
    m_heap.push_back({estimate, d});
  }
  std::push_heap(m_heap.begin(), m_heap.end(), leavesFirst);
}

std::vector<Draft> ScreenShortlist::take() {
  std::sort(m_heap.begin(), m_heap.end(),
            [](const Entry& a, const Entry& b) { return a.draft.id < b.draft.id; });
  std::vector<Draft> out;
  out.reserve(m_heap.size());
  for (Entry& e : m_heap) out.push_back(std::move(e.draft));
  m_heap.clear();
  return out;
}

}  // namespace pim
