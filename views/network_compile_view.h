// SPDX-License-Identifier: Apache-2.0
// Compile a network on a crossbar accelerator (issue 19): choose network, backend, pipeline mode, timing
// mode, weight unfolding and the replication methods to try; each method's compile becomes a row (period,
// throughput, latency, energy, crossbars, provenance) as soon as it is done, off the GUI thread with progress
// and Cancel. The selected row shows its per-core map and its layer pipeline; the Pareto tab puts every row's
// time per inference against its energy; the Compare backends tab runs the network on several backends
// (crossbar and others). Everything here is `pimscope-cli compile` / `compare --network` (same engine calls,
// same numbers).
#pragma once
#include <QWidget>
#include <memory>
#include <vector>

#include "views/network_compile_runner.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLayout;
class QPushButton;
class QTableWidget;
class QTabWidget;

namespace pimgui {

class CoreMap;
class StageChart;
class NetworkComparePanel;

class NetworkCompileView : public QWidget {
  Q_OBJECT
 public:
  /// The candidates' table columns.
  enum Column {
    kMethod,
    kMode,
    kTiming,
    kUnfolding,
    kPeriod,
    kThroughput,
    kFirstBatch,
    kLatency,
    kEnergy,
    kCrossbars,
    kGroups,
    kMvms,
    kSeconds,
    kNote,
    kColumns
  };

  explicit NetworkCompileView(QWidget* parent = nullptr);
  ~NetworkCompileView() override;

  /// Starts compiling with the current choices (the Compile button).
  void compile();
  void cancel();
  bool running() const;
  /// Loads a network file (node-list .json) into the network box and selects it; false with a message in the
  /// status line when it does not load.
  bool openNetworkFile(const QString& path);

  // For tests and screenshots.
  QComboBox* networkBox() const { return m_network; }
  QComboBox* backendBox() const { return m_backend; }
  QComboBox* modeBox() const { return m_mode; }
  QComboBox* timingBox() const { return m_timing; }
  QComboBox* unfoldingBox() const { return m_unfolding; }
  QCheckBox* methodBox(const QString& method) const;
  QTableWidget* table() const { return m_table; }
  QTabWidget* tabs() const { return m_tabs; }
  QLabel* status() const { return m_status; }
  CoreMap* coreMap() const { return m_coreMap; }
  StageChart* pipeline() const { return m_pipeline; }
  QCustomPlot* pareto() const { return m_pareto; }
  NetworkComparePanel* compareBackends() const { return m_compareBackends; }
  const std::vector<CompiledCandidate>& candidates() const { return m_candidates; }

 signals:
  void done();

 private:
  QLayout* buildControls();  // network, backend, modes, methods, Compile and Cancel
  QWidget* buildResults();   // the candidates' table over the tabs
  void connectSignals();
  void addCandidate(const CompiledCandidate& c);
  void showSelected();
  void showPipeline(const std::shared_ptr<const pim::NetworkCompileResult>& r);
  void redrawPareto();
  void setRunning(bool on);

  NetworkCompileRunner* m_runner;
  std::vector<CompiledCandidate> m_candidates;  // in table-insertion order (row data holds the index)
  QComboBox *m_network, *m_backend, *m_mode, *m_timing, *m_unfolding;
  std::vector<QCheckBox*> m_methods;
  QPushButton *m_compile, *m_cancel, *m_open;
  QLabel* m_status;
  QTableWidget* m_table;
  QTabWidget* m_tabs;
  CoreMap* m_coreMap;
  StageChart* m_pipeline;
  QCustomPlot* m_pareto;
  NetworkComparePanel* m_compareBackends;
};

}  // namespace pimgui
