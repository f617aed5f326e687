// SPDX-License-Identifier: Apache-2.0
// The two-step tuner DCC criticises (ATiM/TVM-like, DCC Fig. 2 and 13): choose by compute alone, and only
// then pay the data rearrangement.
#include <algorithm>

#include "engine/common/error.h"
#include "engine/search/strategy.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

// Rank the drafts by compute alone — a cost model first (the analytic compute estimate, as TVM ranks
// templates), then measured compute-only runs of the best `screen` — keep the best `templates`, and only then
// add their rearrangement cost.
class ComputeCentricStrategy final : public ISearchStrategy {
 public:
  ComputeCentricStrategy(const Problem& p, const std::vector<DraftRecord>& records, std::size_t templates,
                         std::size_t screen)
      : m_templates(templates) {
    const auto estimator = targetOf(p.backend()).estimator(p, {});
    if (!estimator) {
      throw InputError("compute-centric search ranks by the family's analytic compute estimate, and the " +
                       std::string(targetOf(p.backend()).family()) + " family has none");
    }
    std::vector<std::pair<float, std::size_t>> est;
    est.reserve(records.size());
    for (std::size_t i = 0; i < records.size(); ++i)
      est.emplace_back(estimator->estimate(records[i].draft).computeCycles, i);
    const std::size_t n = std::min(screen, est.size());
    std::partial_sort(est.begin(), est.begin() + static_cast<std::ptrdiff_t>(n), est.end());
    for (std::size_t i = 0; i < n; ++i) m_screen.push_back(est[i].second);
  }
  std::optional<Proposal> next() override {
    Proposal p;
    if (m_screened < m_screen.size()) {
      p.index = m_screen[m_screened++];
      p.computeOnly = true;
      return p;
    }
    if (awaitingReports()) return std::nullopt;
    if (!m_ranked) {
      std::sort(m_compute.begin(), m_compute.end());
      if (m_compute.size() > m_templates) m_compute.resize(m_templates);
      m_ranked = true;
    }
    if (m_at >= m_compute.size()) return std::nullopt;
    p.index = m_compute[m_at++].second;
    return p;
  }
  void report(const Proposal& p, const DraftRecord& r) override {
    if (!p.computeOnly) return;
    ++m_reported;
    if (r.computeOnlyCycles) m_compute.emplace_back(*r.computeOnlyCycles, p.index);
  }
  std::size_t planned() const override { return m_screen.size() + m_templates; }
  // The ranking needs every compute-only run: ranking on a partial set made the pick depend on thread timing.
  bool awaitingReports() const override { return !m_ranked && m_reported < m_screen.size(); }

 private:
  std::vector<std::size_t> m_screen;
  std::size_t m_screened = 0;
  std::size_t m_templates;
  std::size_t m_reported = 0;  // compute-only runs reported (with or without a result)
  std::vector<std::pair<std::int64_t, std::size_t>> m_compute;
  bool m_ranked = false;
  std::size_t m_at = 0;
};

}  // namespace

StrategyInfo computeCentricStrategy() {
  return {"compute-centric",
          "choose by compute alone (cost model, then compute-only runs), then add rearrangement (TVM-like)",
          PredictionUse::Shown,
          "",
          [](const StrategyContext& c) {
            const std::size_t cap = c.options.maxSimulations;
            return std::make_unique<ComputeCentricStrategy>(
                c.problem, c.records,
                static_cast<std::size_t>(std::max(1, c.options.computeCentricTemplates)), cap ? cap : 64);
          },
          [](const Problem&, std::uint64_t kept, const ExploreOptions& o) {
            const std::uint64_t screen =
                std::min<std::uint64_t>(kept, o.maxSimulations ? o.maxSimulations : 64);
            return static_cast<std::size_t>(
                screen + std::min<std::uint64_t>(
                             screen, static_cast<std::uint64_t>(std::max(1, o.computeCentricTemplates))));
          }};
}

}  // namespace pim
