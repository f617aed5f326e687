// SPDX-License-Identifier: Apache-2.0
// Everything the single-draft views need about the selected draft (tile mapping, bank layout, a simulation
// with the per-bank table, IR text, command listing, verdict), computed on a pool thread because a simulation
// can take longer than a frame. Only the newest request is delivered.
#pragma once
#include <QObject>
#include <memory>
#include <optional>
#include <string>

#include "engine/mapping/bank_layout.h"
#include "engine/mapping/tile_mapping.h"
#include "engine/prune/pruner.h"
#include "engine/search/evaluate.h"
#include "views/pool_tasks.h"

namespace pimgui {

struct DraftAnalysis {
  std::shared_ptr<const pim::Problem> problem;
  pim::Draft draft;
  std::string label;  // the draft as its target's candidate space prints it
  pim::Verdict verdict;
  std::optional<pim::TileMapping> mapping;
  std::optional<pim::BankLayout> layout;
  std::optional<pim::Evaluation> evaluation;  // with per-bank statistics
  std::string irText, commands, error;
  double milliseconds = 0;  // how long the analysis took (shown in the details pane)
};

/// Runs the analysis synchronously (used by the runner and by tests).
DraftAnalysis analyseDraft(std::shared_ptr<const pim::Problem> problem, const pim::Draft& draft,
                           const std::vector<bool>& rules, const pim::EvalOptions& options);

class DraftAnalysisRunner : public QObject {
  Q_OBJECT
 public:
  explicit DraftAnalysisRunner(QObject* parent = nullptr);
  ~DraftAnalysisRunner() override;
  void request(std::shared_ptr<const pim::Problem> problem, std::uint64_t draftId, std::vector<bool> rules,
               pim::EvalOptions options);
  void clear();
  std::shared_ptr<const DraftAnalysis> latest() const { return m_latest; }
  bool busy() const { return m_pending > 0; }

 signals:
  void analysed(std::shared_ptr<const DraftAnalysis> analysis);

 private:
  std::shared_ptr<const DraftAnalysis> m_latest;
  unsigned m_ticket = 0;
  int m_pending = 0;
  PoolTasks m_tasks;  // last: its tasks capture `this`
};

}  // namespace pimgui
