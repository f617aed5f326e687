// SPDX-License-Identifier: Apache-2.0
// Lists pruned drafts for the table's "show pruned" toggle: walks the space in id order off the GUI thread
// and asks the pruner why each draft went, stopping after `cap` pruned drafts (the space can hold billions).
#pragma once
#include <QObject>
#include <atomic>
#include <memory>
#include <vector>

#include "views/draft_row.h"

namespace pimgui {

inline constexpr std::size_t kPrunedListCap = 100000;

/// Synchronous walk (the lister's worker; tests call it directly).
std::vector<DraftRow> listPruned(const pim::Problem& problem, const std::vector<bool>& rules, std::size_t cap,
                                 const std::atomic<bool>& cancel, bool* capped = nullptr);

class PrunedLister : public QObject {
  Q_OBJECT
 public:
  explicit PrunedLister(QObject* parent = nullptr);
  ~PrunedLister() override;
  void start(std::shared_ptr<const pim::Problem> problem, std::vector<bool> rules,
             std::size_t cap = kPrunedListCap);
  void cancel();
  bool busy() const { return m_busy; }

 signals:
  void listed(std::shared_ptr<std::vector<DraftRow>> rows, bool capped);

 private:
  std::shared_ptr<std::atomic<bool>> m_cancel;
  unsigned m_ticket = 0;
  bool m_busy = false;
};

}  // namespace pimgui
