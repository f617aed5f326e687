// SPDX-License-Identifier: Apache-2.0
#include "views/breakdown_bars.h"

#include "engine/core/problem.h"
#include "engine/target/registry.h"
#include "views/draft_table_model.h"

namespace pimgui {

std::vector<BreakdownBar> breakdownBars(const DraftTableModel& model, const QList<quint64>& selected,
                                        std::optional<quint64> best,
                                        const std::vector<pim::Baseline>& baselines,
                                        std::optional<int>* reference) {
  std::vector<BreakdownBar> bars;
  const pim::Problem* problem = model.problem();
  if (!problem) {
    reference->reset();
    return bars;
  }
  const pim::ITarget& target = pim::targetOf(problem->backend());
  auto barOf = [&](const QString& label, const pim::Evaluation& e) {
    BreakdownBar b = breakdownBar(label, target, e, e.tCKns);
    b.draft = e.draft;
    return b;
  };
  reference->reset();
  for (const pim::Baseline& b : baselines) {
    if (b.name == "vendor" && b.available) {
      *reference = static_cast<int>(bars.size());
      bars.push_back(barOf(QStringLiteral("vendor"), b.eval));
      bars.back().draft.reset();
    }
  }
  for (const pim::Baseline& b : baselines) {
    if (b.name == "compute-centric" && b.available) {  // DCC Fig. 2's "T": compute first, rearrangement after
      bars.push_back(barOf(QStringLiteral("TVM-like"), b.eval));
      bars.back().draft.reset();
    }
  }
  for (const pim::Baseline& b : baselines) {  // the family's own baselines (upmem: prim-search)
    if (b.available && b.name != "vendor" && b.name != "compute-centric" && b.name != "gpu") {
      bars.push_back(barOf(QString::fromStdString(b.name), b.eval));
      bars.back().draft.reset();
    }
  }
  auto addDraft = [&](quint64 id, const QString& prefix) {
    const int r = model.rowOf(id);
    if (r < 0 || !model.row(r).simulated) return;
    // The best bar is labelled "best" alone: category labels longer than ~12 characters are elided.
    bars.push_back(barOf(prefix == QStringLiteral("best") ? prefix : prefix + QString::number(id),
                         *model.row(r).simulated));
  };
  int shown = 0;
  for (quint64 id : selected) {
    if (shown++ >= kMaxSelectedBars) break;
    addDraft(id, best && *best == id ? QStringLiteral("best") : QStringLiteral("#"));
  }
  if (best && !selected.contains(*best)) addDraft(*best, QStringLiteral("best"));
  for (const pim::Baseline& b : baselines) {
    if (b.name == "gpu" && b.available) {
      BreakdownBar g;
      g.label = QStringLiteral("GPU only");
      g.totalOnly = true;
      g.totalNs = b.eval.timeNs;
      bars.push_back(g);
    }
  }
  return bars;
}

}  // namespace pimgui
