// SPDX-License-Identifier: Apache-2.0
// Map a conv layer on a PIM hierarchy (issue 20), as `pimscope-cli map` does: pick a hierarchy, a network's
// layer, the objective, the mapper (auto, exhaustive, heuristic, ilp), the MILP solver and a time limit; the
// search runs off the GUI thread with its best mapping, proven bound and gap live in the status line and the
// convergence plot, and Cancel keeps the best mapping found. The result pane shows the mapper's verdict, the
// mapping, its latency, energy and row activations, each level's traffic and the loop nest, and a tab the
// MILP solver's own log.
#pragma once
#include <QWidget>
#include <optional>

#include "engine/convmap/mapper.h"
#include "views/layer_map_runner.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;
class QTableWidget;

namespace pimgui {

class SolveProgressPlot;

class LayerMapView : public QWidget {
  Q_OBJECT
 public:
  explicit LayerMapView(QWidget* parent = nullptr);
  ~LayerMapView() override;

  /// Starts mapping the chosen layer (the Map button); a choice that cannot run says why in the status line.
  void map();
  void cancel();
  bool running() const;
  /// Writes the result shown as `map --out` does (a file `rowtrace --mapping` reads); false with the reason
  /// in the status line when there is none or the file cannot be written.
  bool saveMapping(const QString& path);

  // For tests and screenshots.
  QComboBox* hierarchyBox() const { return m_hierarchy; }
  QComboBox* networkBox() const { return m_network; }
  QComboBox* layerBox() const { return m_layer; }
  QComboBox* objectiveBox() const { return m_objective; }
  QComboBox* mapperBox() const { return m_mapper; }
  QComboBox* solverBox() const { return m_solver; }
  QDoubleSpinBox* timeLimitBox() const { return m_timeLimit; }
  QPushButton* mapButton() const { return m_map; }
  QPushButton* cancelButton() const { return m_cancel; }
  QPushButton* saveButton() const { return m_save; }
  QLabel* status() const { return m_status; }
  SolveProgressPlot* progressPlot() const { return m_plot; }
  QPlainTextEdit* resultText() const { return m_text; }
  QPlainTextEdit* solverLog() const { return m_log; }
  QTableWidget* levelTable() const { return m_levels; }
  /// The last run's result (also a cancelled run's best mapping), none before the first or after an error.
  const std::optional<pim::convmap::MapResult>& result() const { return m_result; }

 signals:
  void done();

 private:
  QWidget* buildControls();
  QWidget* buildResults();
  void fillLayers();
  void updateSolverChoice();
  void showProgress(const pim::convmap::MapProgress& p);
  void showOutcome(const LayerMapOutcome& outcome);
  void showResult(const pim::convmap::MapResult& r);
  void setRunning(bool on);
  void showError(const QString& message);

  LayerMapRunner* m_runner;
  QComboBox *m_hierarchy, *m_network, *m_layer, *m_objective, *m_mapper, *m_solver;
  QDoubleSpinBox* m_timeLimit;
  QPushButton *m_map, *m_cancel, *m_save;
  QLabel* m_status;
  SolveProgressPlot* m_plot;
  QTabWidget* m_tabs;
  QPlainTextEdit *m_text, *m_log;
  QTableWidget* m_levels;
  std::optional<pim::convmap::MapResult> m_result;
  // What the running search maps, for the result pane.
  std::optional<pim::convmap::ConvLayer> m_runLayer;
  std::optional<pim::convmap::Hierarchy> m_runHierarchy;
  pim::convmap::ObjectiveSpec m_runObjective;
};

}  // namespace pimgui
