// SPDX-License-Identifier: Apache-2.0
#include "views/pruned_lister.h"

#include <QMetaObject>

#include "engine/core/problem.h"
#include "engine/mapping/bank_layout.h"
#include "engine/predict/predictor.h"
#include "engine/target/registry.h"

namespace pimgui {

std::vector<DraftRow> listPruned(const pim::Problem& problem, const std::vector<bool>& rules, std::size_t cap,
                                 const std::atomic<bool>& cancel, bool* capped) {
  std::vector<DraftRow> rows;
  const auto space = pim::targetOf(problem.backend()).candidates(problem, rules);
  bool hitCap = false;
  for (std::uint64_t id = 0; id < space->size() && !cancel.load(std::memory_order_relaxed); ++id) {
    pim::Verdict v = space->why(id);
    if (v.kept) continue;
    if (rows.size() >= cap) {
      hitCap = true;
      break;
    }
    DraftRow row;
    row.draft = space->candidate(id);
    row.pruned = true;
    row.rule = v.rule;
    row.ruleName = v.ruleName;
    row.reason = v.reason;
    rows.push_back(std::move(row));
  }
  if (capped) *capped = hitCap;
  return rows;
}

void estimatePruned(const pim::Problem& problem, const pim::Predictor& predictor,
                    pim::IndexingStrategy indexing, std::vector<DraftRow>& rows,
                    const std::atomic<bool>& cancel, std::size_t maxLayouts) {
  // Batches keep cancel prompt; one model call per batch is as fast as one for everything.
  constexpr std::size_t kBatch = kPrunedPredictionBatch;
  std::vector<pim::Draft> drafts;
  for (std::size_t first = 0; first < rows.size(); first += kBatch) {
    if (cancel.load(std::memory_order_relaxed)) return;
    const std::size_t end = std::min(rows.size(), first + kBatch);
    drafts.clear();
    for (std::size_t i = first; i < end; ++i) drafts.push_back(rows[i].draft);
    const std::vector<double> ns = predictor.predictNs(problem, drafts);
    for (std::size_t i = first; i < end; ++i) rows[i].predictedNs = ns[i - first];
  }
  // A layout costs up to milliseconds for drafts over thousands of cores, so past `maxLayouts` only every
  // k-th row (in id order, the same rows every time) is laid out.
  const std::size_t stride =
      std::max<std::size_t>(1, (rows.size() + maxLayouts - 1) / std::max<std::size_t>(1, maxLayouts));
  const pim::ITarget& target = pim::targetOf(problem.backend());
  for (std::size_t i = 0; i < rows.size(); i += stride) {
    if (cancel.load(std::memory_order_relaxed)) return;
    try {
      const pim::TileMapping m = pim::mapDraft(problem.space(), rows[i].draft, indexing);
      if (const auto layout = target.place(problem, m)) rows[i].unitsUsed = layout->banksUsed;
    } catch (const std::exception&) {
      // Not placeable on this backend: no unit count, so no point on a units-used axis.
    }
  }
}

PrunedLister::PrunedLister(QObject* parent) : QObject(parent) {}

PrunedLister::~PrunedLister() {
  cancel();
  m_tasks.closeAndWait();  // a running walk stops at the cancel flag; then none can post to `this`
}

void PrunedLister::cancel() {
  if (m_cancel) m_cancel->store(true);
  ++m_ticket;
  m_busy = false;
}

void PrunedLister::start(std::shared_ptr<const pim::Problem> problem, std::vector<bool> rules,
                         std::size_t cap, std::shared_ptr<const pim::Predictor> predictor,
                         pim::IndexingStrategy indexing) {
  cancel();
  if (!problem) return;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  const unsigned ticket = m_ticket;
  m_busy = true;
  m_tasks.start([this, ticket, problem, rules = std::move(rules), cap, predictor = std::move(predictor),
                 indexing, flag = m_cancel] {
    bool capped = false;
    auto rows = std::make_shared<std::vector<DraftRow>>(listPruned(*problem, rules, cap, *flag, &capped));
    if (predictor) estimatePruned(*problem, *predictor, indexing, *rows, *flag);
    QMetaObject::invokeMethod(
        this,
        [this, ticket, rows, capped] {
          if (ticket != m_ticket) return;
          m_busy = false;
          emit listed(rows, capped);
        },
        Qt::QueuedConnection);
  });
}

}  // namespace pimgui
