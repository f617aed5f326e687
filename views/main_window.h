// SPDX-License-Identifier: Apache-2.0
// The PIMScope window. It wires the session, the shared selection and the views together and owns menus,
// docks and the status bar; each view does its own drawing.
#pragma once
#include <QElapsedTimer>
#include <QMainWindow>
#include <QStringList>
#include <memory>
#include <optional>
#include <vector>

#include "engine/search/explorer.h"

#include "views/session_config.h"

class QDockWidget;
class QLabel;

namespace pimgui {

class BankHeatmap;
class BreakdownChart;
class ControlPanel;
class DraftAnalysisRunner;
class DraftDetails;
class DraftSelection;
class DraftTableModel;
class DraftTablePanel;
class ExplorationSession;
class ParetoPlot;
class PrunedLister;
class WhatIfPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  /// `persistLayout`: restore/save dock layout with QSettings (off in tests and screenshots for a fixed
  /// look).
  explicit MainWindow(bool persistLayout = true, QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Starts exploring `c` (cancelling any run); false when the input is invalid.
  bool startSession(const SessionConfig& c);
  /// Starts the default session: GEMV b=1,out=4096,in=4096 on hbm-pim with the shipped model.
  bool startDefaultSession();
  /// True when nothing runs: exploration finished, baselines in, selected draft analysed.
  bool idle() const;
  /// Writes one PNG per view into `dir` (plus the IR and command tabs of the details); returns the paths.
  QStringList saveScreenshots(const QString& dir);
  bool exportCsv(const QString& path) const;

  ExplorationSession* session() const { return m_session; }
  DraftTableModel* model() const { return m_model; }
  DraftSelection* selection() const { return m_selection; }
  DraftTablePanel* table() const { return m_table; }
  ParetoPlot* pareto() const { return m_pareto; }
  BreakdownChart* breakdown() const { return m_breakdown; }
  BankHeatmap* heatmap() const { return m_heatmap; }
  DraftDetails* details() const { return m_details; }
  ControlPanel* controls() const { return m_controls; }
  WhatIfPanel* whatIf() const { return m_whatIf; }
  DraftAnalysisRunner* analysis() const { return m_analysis; }
  std::optional<quint64> bestDraft() const;

 signals:
  /// Emitted whenever the window becomes idle (see idle()).
  void becameIdle();

 protected:
  void closeEvent(QCloseEvent* e) override;

 private:
  QDockWidget* addDock(const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area);
  void buildMenus();
  void onStarted();
  void onProgress(bool force);
  void onFinished(bool cancelled);
  void onSnapshot(std::shared_ptr<const std::vector<pim::DraftRecord>> records, quint64 ticket);
  void feedRecords();
  void completeFinish();
  void onSelectionChanged();
  void updateBreakdown();
  void updateStatus();
  void checkIdle();
  void openKernel();
  void exportCsvInteractive();
  void setShowPruned(bool on);
  /// The control panel's problem, exploring the what-if backend when it edits the same backend.
  SessionConfig requestedConfig() const;
  void openClassroom();

  bool m_persist;
  ExplorationSession* m_session;
  DraftSelection* m_selection;
  DraftTableModel* m_model;
  DraftAnalysisRunner* m_analysis;
  PrunedLister* m_pruned;
  ControlPanel* m_controls;
  DraftTablePanel* m_table;
  ParetoPlot* m_pareto;
  BreakdownChart* m_breakdown;
  BankHeatmap* m_heatmap;
  DraftDetails* m_details;
  WhatIfPanel* m_whatIf;
  QDockWidget* m_whatIfDock;
  QDockWidget* m_controlsDock;
  QDockWidget* m_paretoDock;
  QDockWidget* m_breakdownDock;
  QDockWidget* m_heatmapDock;
  QDockWidget* m_detailsDock;
  QLabel* m_counts;
  QElapsedTimer m_lastRefresh;
  bool m_prunedRequested = false, m_prunedListed = false;
  std::shared_ptr<const std::vector<pim::DraftRecord>> m_pendingRecords;
  bool m_feeding = false, m_cancelled = false;
  bool m_awaitFinal = false, m_finalArrived = false;
  quint64 m_finalTicket = 0;  // first snapshot taken after the run ended
};

}  // namespace pimgui
