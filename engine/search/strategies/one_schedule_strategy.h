// SPDX-License-Identifier: Apache-2.0
// Strategies that evaluate one fixed schedule, a baseline the space's drafts are compared with.
#pragma once
#include <utility>

#include "engine/common/error.h"
#include "engine/search/baselines.h"
#include "engine/search/strategy.h"

namespace pim {

/// Proposes `evaluate` once (a worker runs it) and stops.
class OneScheduleStrategy final : public ISearchStrategy {
 public:
  explicit OneScheduleStrategy(std::function<DraftRecord()> evaluate) : m_evaluate(std::move(evaluate)) {}
  std::optional<Proposal> next() override {
    if (m_proposed) return std::nullopt;
    m_proposed = true;
    Proposal p;
    p.evaluate = m_evaluate;
    return p;
  }
  void report(const Proposal&, const DraftRecord&) override {}
  std::size_t planned() const override { return 1; }

 private:
  std::function<DraftRecord()> m_evaluate;
  bool m_proposed = false;
};

/// The record of an available baseline (its draft, or id kNoDraft); a baseline that does not exist for the
/// problem ends the exploration: InputError "<name> strategy: <reason>".
inline DraftRecord baselineRecord(const Baseline& b) {
  if (!b.available) throw InputError(b.name + " strategy: " + b.reason);
  DraftRecord r;
  r.draft = b.draft.value_or(Draft{kNoDraft, {}});
  r.simulated = std::make_shared<const Evaluation>(b.eval);
  return r;
}

}  // namespace pim
