// SPDX-License-Identifier: Apache-2.0
// DCC's compile without the predictor: simulate every kept draft.
#include "engine/search/strategy.h"

namespace pim {
namespace {

// Every candidate once, in id order; with a cap, an even sample across the space.
class ExhaustiveStrategy final : public ISearchStrategy {
 public:
  ExhaustiveStrategy(std::size_t n, std::size_t cap)
      : m_n(n), m_stride(cap && n > cap ? (n + cap - 1) / cap : 1) {}
  std::optional<Proposal> next() override {
    if (m_at >= m_n) return std::nullopt;
    Proposal p;
    p.index = m_at;
    m_at += m_stride;
    return p;
  }
  void report(const Proposal&, const DraftRecord&) override {}
  std::size_t planned() const override { return (m_n + m_stride - 1) / m_stride; }

 private:
  std::size_t m_n, m_stride, m_at = 0;
};

}  // namespace

StrategyInfo exhaustiveStrategy() {
  return {"exhaustive",
          "simulate every kept draft (with --max-simulations, an even sample of them)",
          PredictionUse::Shown,
          "",
          [](const StrategyContext& c) {
            return std::make_unique<ExhaustiveStrategy>(c.records.size(), c.options.maxSimulations);
          },
          [](const Problem&, std::uint64_t kept, const ExploreOptions& o) {
            return ExhaustiveStrategy(static_cast<std::size_t>(kept), o.maxSimulations).planned();
          }};
}

}  // namespace pim
