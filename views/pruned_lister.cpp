// SPDX-License-Identifier: Apache-2.0
#include "views/pruned_lister.h"

#include <QMetaObject>
#include <QThreadPool>

#include "engine/search/problem.h"

namespace pimgui {

std::vector<DraftRow> listPruned(const pim::Problem& problem, const std::vector<bool>& rules, std::size_t cap,
                                 const std::atomic<bool>& cancel, bool* capped) {
  std::vector<DraftRow> rows;
  pim::Pruner pruner(problem.space(), rules);
  bool hitCap = false;
  problem.space().forEach([&](const pim::Draft& d) {
    if (cancel.load(std::memory_order_relaxed)) return false;
    pim::Verdict v = pruner.why(d.id);
    if (v.kept) return true;
    if (rows.size() >= cap) {
      hitCap = true;
      return false;
    }
    DraftRow row;
    row.draft = d;
    row.pruned = true;
    row.rule = v.rule;
    row.ruleName = v.ruleName;
    row.reason = v.reason;
    rows.push_back(std::move(row));
    return true;
  });
  if (capped) *capped = hitCap;
  return rows;
}

PrunedLister::PrunedLister(QObject* parent) : QObject(parent) {}

PrunedLister::~PrunedLister() {
  cancel();
  QThreadPool::globalInstance()->waitForDone();
}

void PrunedLister::cancel() {
  if (m_cancel) m_cancel->store(true);
  ++m_ticket;
  m_busy = false;
}

void PrunedLister::start(std::shared_ptr<const pim::Problem> problem, std::vector<bool> rules,
                         std::size_t cap) {
  cancel();
  if (!problem) return;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  const unsigned ticket = m_ticket;
  m_busy = true;
  QThreadPool::globalInstance()->start(
      [this, ticket, problem, rules = std::move(rules), cap, flag = m_cancel] {
        bool capped = false;
        auto rows = std::make_shared<std::vector<DraftRow>>(listPruned(*problem, rules, cap, *flag, &capped));
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
