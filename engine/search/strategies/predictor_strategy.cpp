// SPDX-License-Identifier: Apache-2.0
// DCC 4.4: predict every kept draft, then confirm the best predictions by simulation; when the model is
// unsure of this problem (out of its training distribution, or off by more than kConfirmMoreErrorPct on the
// confirmations), confirm as many again before naming a best.
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <unordered_set>

#include "engine/predict/model_fit.h"
#include "engine/search/strategy.h"

namespace pim {
namespace {

// The k best predicted, best first, plus near-ties of the best within the model's expected error; then, if
// unsure, the next best predictions up to twice as many confirmations in all.
class PredictorStrategy final : public ISearchStrategy {
 public:
  explicit PredictorStrategy(const StrategyContext& c)
      : m_bounded(c.options.boundConfirmations), m_ns(c.records.size(), INFINITY) {
    // PredictionUse::Required: the explorer runs the fallback instead when there is no model.
    if (!c.predictor) throw std::logic_error("predictor strategy built without a model");
    for (std::size_t i = 0; i < c.records.size(); ++i) {
      if (c.records[i].predictedNs) m_ns[i] = *c.records[i].predictedNs;
    }
    m_order = bestPredicted(m_ns, static_cast<std::size_t>(std::max(1, c.options.topK)),
                            c.options.bandErrors * c.predictor->expectedErrorPct(),
                            static_cast<std::size_t>(std::max(0, c.options.maxConfirm)));
    m_first = m_order.size();
    m_outOfDistribution = modelFit(c.problem, c.predictor->metadata()).outOfDistribution();
  }
  std::optional<Proposal> next() override {
    if (m_at >= m_order.size() && !m_decided && m_reported == m_first) extendIfUnsure();
    if (m_at >= m_order.size()) return std::nullopt;
    Proposal p;
    // The first confirmations run to the end even when bounded: whether to confirm more is decided on the
    // error they measure, and a stopped run measures nothing (so bounding them could change the decision).
    p.bounded = m_bounded && m_at >= m_first;
    p.index = m_order[m_at++];
    return p;
  }
  void report(const Proposal& p, const DraftRecord& r) override {
    ++m_reported;
    if (r.simulated && !r.simulated->lowerBound) m_simulatedNs[p.index] = r.simulated->timeNs;
  }
  std::size_t planned() const override { return m_order.size(); }
  // Whether to confirm more is decided on every first confirmation, so it does not depend on thread timing.
  bool awaitingReports() const override { return !m_decided && m_reported < m_first; }

 private:
  void extendIfUnsure() {
    m_decided = true;
    MeasuredError error;  // in record order, so the decision does not depend on completion order
    for (const auto& [index, ns] : m_simulatedNs) error.add(m_ns[index], ns);
    if (!m_outOfDistribution && error.mapePct() <= kConfirmMoreErrorPct) return;
    const std::unordered_set<std::size_t> done(m_order.begin(), m_order.end());
    for (std::size_t i : bestPredicted(m_ns, 2 * m_first)) {
      if (m_order.size() >= 2 * m_first) break;
      if (!done.count(i)) m_order.push_back(i);
    }
  }

  bool m_bounded;
  std::vector<double> m_ns;  // predicted ns per record (inf: not predicted)
  std::vector<std::size_t> m_order;
  std::size_t m_first = 0;  // confirmations planned before any was measured
  std::size_t m_at = 0, m_reported = 0;
  bool m_outOfDistribution = false, m_decided = false;
  std::map<std::size_t, double> m_simulatedNs;  // confirmed record -> simulated ns
};

}  // namespace

StrategyInfo predictorStrategy() {
  return {"predictor",
          "rank the kept drafts with the trained model and simulate the best predictions (DCC); twice as "
          "many when the model is unsure of the problem (out of its training data, or off by more than 5%)",
          PredictionUse::Required,
          "exhaustive",
          [](const StrategyContext& c) { return std::make_unique<PredictorStrategy>(c); },
          [](std::uint64_t kept, const ExploreOptions& o) {
            // The k best predictions and the near-ties, up to maxConfirm in all; twice that when unsure.
            const auto most = 2 * static_cast<std::uint64_t>(std::max({1, o.topK, o.maxConfirm}));
            return static_cast<std::size_t>(std::min(kept, most));
          }};
}

}  // namespace pim
