// SPDX-License-Identifier: Apache-2.0
// DCC 4.4: predict every kept draft, then confirm the best predictions by simulation.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/search/strategy.h"

namespace pim {
namespace {

// The k best predicted, best first, plus near-ties of the best within the model's expected error.
class PredictorStrategy final : public ISearchStrategy {
 public:
  explicit PredictorStrategy(const StrategyContext& c) : m_bounded(c.options.boundConfirmations) {
    // PredictionUse::Required: the explorer runs the fallback instead when there is no model.
    if (!c.predictor) throw std::logic_error("predictor strategy built without a model");
    std::vector<double> ns(c.records.size(), INFINITY);
    for (std::size_t i = 0; i < c.records.size(); ++i) {
      if (c.records[i].predictedNs) ns[i] = *c.records[i].predictedNs;
    }
    m_order = bestPredicted(ns, static_cast<std::size_t>(std::max(1, c.options.topK)),
                            c.options.bandErrors * c.predictor->expectedErrorPct(),
                            static_cast<std::size_t>(std::max(0, c.options.maxConfirm)));
  }
  std::optional<Proposal> next() override {
    if (m_at >= m_order.size()) return std::nullopt;
    Proposal p;
    p.index = m_order[m_at++];
    p.bounded = m_bounded;
    return p;
  }
  void report(const Proposal&, const DraftRecord&) override {}
  std::size_t planned() const override { return m_order.size(); }

 private:
  std::vector<std::size_t> m_order;
  std::size_t m_at = 0;
  bool m_bounded;
};

}  // namespace

StrategyInfo predictorStrategy() {
  return {"predictor",
          "rank the kept drafts with the trained model and simulate the best predictions (DCC)",
          PredictionUse::Required,
          "exhaustive",
          [](const StrategyContext& c) { return std::make_unique<PredictorStrategy>(c); },
          [](std::uint64_t kept, const ExploreOptions& o) {
            // The k best predictions and the near-ties, up to maxConfirm in all.
            const auto most = static_cast<std::uint64_t>(std::max({1, o.topK, o.maxConfirm}));
            return static_cast<std::size_t>(std::min(kept, most));
          }};
}

}  // namespace pim
