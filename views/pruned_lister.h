// SPDX-License-Identifier: Apache-2.0
// Lists pruned drafts for the table's "show pruned" toggle: walks the space in id order off the GUI thread
// and asks the pruner why each draft went, stopping after `cap` pruned drafts (the space can hold billions).
// With the session's predictor it also predicts each listed draft's time (the same batched model call the
// explorer makes) and counts the units its target places it on, so the Pareto plot can place pruned drafts
// on the predicted-time and units-used axes without pretending they were simulated.
#pragma once
#include <QObject>
#include <atomic>
#include <memory>
#include <vector>

#include "engine/mapping/tile_mapping.h"
#include "views/draft_row.h"
#include "views/pool_tasks.h"

namespace pim {
class Predictor;
}

namespace pimgui {

inline constexpr std::size_t kPrunedListCap = 100000;

/// Synchronous walk (the lister's worker; tests call it directly).
std::vector<DraftRow> listPruned(const pim::Problem& problem, const std::vector<bool>& rules, std::size_t cap,
                                 const std::atomic<bool>& cancel, bool* capped = nullptr);

/// Pruned drafts laid out on the banks at most (see estimatePruned).
inline constexpr std::size_t kPrunedLayoutCap = 10000;

/// Drafts per model call in estimatePruned (a prediction depends on its batch: coarse to fine).
inline constexpr std::size_t kPrunedPredictionBatch = 4096;

/// Sets `predictedNs` of every row (Predictor::predictNs in batches, the explorer's call) and `unitsUsed`
/// (mapDraft + ITarget::place under `indexing`: what a simulation would report) of every row when there are
/// at most `maxLayouts`, else of every k-th row, k = ceil(rows / maxLayouts). Stops when `cancel` is set;
/// rows not reached keep no values. A draft the target cannot place keeps no unit count.
void estimatePruned(const pim::Problem& problem, const pim::Predictor& predictor,
                    pim::IndexingStrategy indexing, std::vector<DraftRow>& rows,
                    const std::atomic<bool>& cancel, std::size_t maxLayouts = kPrunedLayoutCap);

class PrunedLister : public QObject {
  Q_OBJECT
 public:
  explicit PrunedLister(QObject* parent = nullptr);
  ~PrunedLister() override;
  /// Lists pruned drafts of `problem`; with a `predictor`, also estimates them (estimatePruned).
  void start(std::shared_ptr<const pim::Problem> problem, std::vector<bool> rules,
             std::size_t cap = kPrunedListCap, std::shared_ptr<const pim::Predictor> predictor = nullptr,
             pim::IndexingStrategy indexing = pim::IndexingStrategy::Exact);
  void cancel();
  bool busy() const { return m_busy; }

 signals:
  void listed(std::shared_ptr<std::vector<DraftRow>> rows, bool capped);

 private:
  std::shared_ptr<std::atomic<bool>> m_cancel;
  unsigned m_ticket = 0;
  bool m_busy = false;
  PoolTasks m_tasks;  // last: its tasks capture `this`
};

}  // namespace pimgui
