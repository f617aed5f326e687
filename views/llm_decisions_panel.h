// SPDX-License-Identifier: Apache-2.0
// The LLM view's Decisions tab: the decision table of one system of the run (chosen in a box), the memory
// the request needs against the PIM devices' capacity, and how the weights and the KV cache stay resident.
// Double-clicking a row whose shape is a PIM library kernel asks for that kernel at that shape on the run's
// PIM backend (its edits applied) with the residency the kernel declares (gemv: W; attn: K and V), which is
// how the LLM run keeps them.
#pragma once
#include <QWidget>
#include <memory>
#include <optional>

#include "views/llm_runner.h"
#include "views/session_config.h"

class QComboBox;
class QLabel;
class QTableView;

namespace pimgui {

class LlmDecisionModel;

class LlmDecisionsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LlmDecisionsPanel(QWidget* parent = nullptr);
  /// Shows `run`'s systems (nullptr: none), keeping the system chosen when it is still there.
  void setRun(std::shared_ptr<const LlmRun> run);
  /// Chooses `system` in the box; false when the run has no such system.
  bool showSystem(const QString& system);
  /// The explorer problem of table row `row`; nullopt when the row's shape is not a PIM kernel.
  std::optional<SessionConfig> explorerConfig(int row) const;

  QComboBox* systemBox() const { return m_system; }
  QTableView* table() const { return m_table; }
  LlmDecisionModel* model() const { return m_model; }
  QLabel* memory() const { return m_memory; }
  QLabel* residency() const { return m_residency; }

 signals:
  void exploreRequested(const pimgui::SessionConfig& config);
  /// A line for the view's status ("attention runs on the GPU only: no PIM kernel to open").
  void message(const QString& text);

 private:
  void showChosen();
  void openRow(int row);
  const pim::llm::SystemResult* chosen() const;

  std::shared_ptr<const LlmRun> m_run;
  bool m_userChose = false;  // the user picked a system: later updates keep it
  QComboBox* m_system;
  QTableView* m_table;
  LlmDecisionModel* m_model;
  QLabel* m_memory;
  QLabel* m_residency;
};

}  // namespace pimgui
