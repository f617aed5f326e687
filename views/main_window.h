// SPDX-License-Identifier: Apache-2.0
// The PIMScope window. It wires the session, the shared selection and the views together and owns menus,
// docks and the status bar; each view does its own drawing.
#pragma once
#include <QElapsedTimer>
#include <QList>
#include <QMainWindow>
#include <QStringList>
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "engine/hw/backend.h"
#include "engine/search/explorer.h"
#include "engine/workflow/session_file.h"

#include "views/session_config.h"

class QDialog;
class QDockWidget;
class QLabel;
class QMenu;
class QUndoStack;

namespace pimgui {

class UnitHeatmap;
class VerdictBanner;
class StaleBanner;
class RunProgress;
class RunHistory;
class RunHistoryPanel;
class ElidedLabel;
class RunConfirmation;
class BreakdownChart;
class CompareView;
class NetworkCompileView;
class LayerMapView;
class LlmView;
class ControlPanel;
class DraftAnalysisRunner;
class DraftDetails;
class DraftSelection;
class DraftTableModel;
class DraftTablePanel;
class ExplorationSession;
class ParetoPlot;
class SearchProgressPlot;
class PrunedLister;
class WhatIfPanel;
struct ParetoGhost;
/// "tRCDRD 19, hostTflops 312": the parameters `after` changed, with their values in `before` (or a count).
QString whatIfChange(const pim::Backend& before, const pim::Backend& after);

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
  /// View > Reset layout: the docks as first built, docked, and a size that fits the screen.
  void resetLayout();
  /// Writes one PNG per view into `dir` (plus the IR and command tabs of the details); returns the paths.
  QStringList saveScreenshots(const QString& dir);
  /// CSV of the drafts table as filtered and sorted (every visible row), or of its selected rows only, in
  /// table order; one writer for both (views/csv_export.h). False with the reason in `error`.
  bool exportCsv(const QString& path, QString* error = nullptr) const;
  bool exportSelectedCsv(const QString& path, QString* error = nullptr) const;
  enum class Plot { Pareto, Breakdown, Heatmap, SearchProgress };
  /// Writes plot `p` as PNG, SVG or PDF (from the suffix) with a title naming the problem
  /// (views/plot_export.h). False with the reason, naming the file, in `error`.
  bool exportPlot(Plot p, const QString& path, QString* error = nullptr) const;

  /// Session files (docs/gui.md, "Sessions"). saveSession writes the finished (or cancelled) exploration,
  /// the baselines and the view state; openSession shows them again without exploring. Both return false
  /// with the reason in `error` (naming the file); a file that cannot be read leaves the window as it was.
  bool saveSession(const QString& path, QString* error = nullptr);
  bool openSession(const QString& path, QString* error = nullptr);
  /// The selected draft as a schedule file (.json), IR text (.ir/.txt), command listing (.cmd) or Chrome
  /// trace
  /// (.trace.json), written atomically (views/schedule_io.h). False with the reason in `error`.
  bool exportSelectedSchedule(const QString& path, QString* error = nullptr) const;
  /// Reads and re-simulates a schedule file (refusing one that no longer reproduces its cycles), explores its
  /// problem and selects its draft. False with the reason, naming the file, in `error`.
  bool importSchedule(const QString& path, QString* error = nullptr);
  /// A CoMoNM mapping file on the problem in the controls: its settings (upmem: tasklets) as a what-if, its
  /// draft selected in a new session. A file of several sub-maps is run and reported in a dialog beside the
  /// window (runSubMapsForWindow), the session left as it is.
  bool importMapping(const QString& path, QString* error = nullptr);
  /// The file the window shows ("" before the first save or open).
  QString sessionPath() const { return m_sessionPath; }
  /// Steering actions (control panel, what-if edits); Edit > Undo/Redo.
  QUndoStack* undoStack() const { return m_undo; }
  /// File > Open Recent, newest first (only kept when the layout persists, i.e. not in tests/screenshots).
  QStringList recentSessions() const;

  ExplorationSession* session() const { return m_session; }
  DraftTableModel* model() const { return m_model; }
  DraftSelection* selection() const { return m_selection; }
  DraftTablePanel* table() const { return m_table; }
  VerdictBanner* verdictBanner() const { return m_verdict; }
  StaleBanner* staleBanner() const { return m_stale; }
  RunProgress* runProgress() const { return m_runProgress; }
  RunConfirmation* runConfirmation() const { return m_confirm; }
  /// Every exploration of this window, newest last (views/run_history.h).
  RunHistory* runHistory() const { return m_history; }
  RunHistoryPanel* runHistoryPanel() const { return m_historyPanel; }
  /// Brings run `row` of the history back into the views and the control panel (nothing is explored);
  /// false with the reason in the status bar when its problem can no longer be built.
  bool showHistoryRun(int row);
  /// Overlays run `row`'s front on the Pareto plot as its ghost (nullopt removes the overlay).
  void overlayHistoryRun(std::optional<int> row);
  /// The status bar's live counts ("simulating · generated … · simulated n · best … · t s").
  QString countsText() const;
  /// Explore (F5, the panel's button): the control panel's problem, after asking when the run is estimated
  /// above 30 s (views/run_confirmation.h).
  void exploreInteractive();
  ParetoPlot* pareto() const { return m_pareto; }
  SearchProgressPlot* searchProgress() const { return m_searchProgress; }
  BreakdownChart* breakdown() const { return m_breakdown; }
  UnitHeatmap* heatmap() const { return m_heatmap; }
  DraftDetails* details() const { return m_details; }
  ControlPanel* controls() const { return m_controls; }
  CompareView* compareView() const { return m_compare; }
  /// Opens the Compare backends window on the control panel's problem (kept as is while one runs).
  void showCompare();
  /// Opens the window that compiles a network on a crossbar accelerator (Run > Compile a network).
  void showNetworkCompile();
  NetworkCompileView* networkCompileView() const { return m_network; }
  /// Opens the LLM inference window (Run > LLM inference…, views/llm_view.h).
  void showLlm();
  LlmView* llmView() const { return m_llm; }
  /// Opens the window that maps a conv layer on a PIM hierarchy (Run > Map a conv layer…).
  void showLayerMap();
  LayerMapView* layerMapView() const { return m_layerMap; }
  /// Sets the control panel to `c` (an undo step; a backend override shows in the what-if form), brings the
  /// window forward and explores exactly `c`, asking first when the run is estimated long (as Explore does).
  void exploreProblem(const SessionConfig& c);
  WhatIfPanel* whatIf() const { return m_whatIf; }
  DraftAnalysisRunner* analysis() const { return m_analysis; }
  std::optional<quint64> bestDraft() const;
  QString failedText() const;    // empty when every draft the run tried was labelled
  bool nothingLabelled() const;  // the run finished and refused every draft it tried
  QString cancelledText() const;
  /// The status message of a finished run; takes the one-off restore and import notes.
  QString finishedText();
  /// " (±x% on n confirmed, out of distribution)" after the predicted count; empty without a model.
  static QString predictionNote(
      const pim::ExploreProgress& p);  // "Cancelled after N of M simulated; ..." from what the views show

 signals:
  /// Emitted whenever the window becomes idle (see idle()).
  void becameIdle();

 protected:
  void closeEvent(QCloseEvent* e) override;

 private:
  // Layout (main_window_layout.cpp).
  void buildDocks();
  QDockWidget* addDock(const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area);
  QRect availableScreenArea() const;
  /// The preferred size within the screen's free area, centred.
  void fitToScreen();
  void restoreWindowSettings();
  void buildMenus();
  void showSubMapsReport(const QString& report);  // main_window_schedule.cpp
  void onStarted();
  void onProgress(bool force);
  void onFinished(bool cancelled);
  void onSnapshot(std::shared_ptr<const std::vector<pim::DraftRecord>> records, quint64 ticket);
  void feedRecords();
  void completeFinish();
  void onSelectionChanged();
  void updateBreakdown();
  void updateStatus();
  /// The search progress plot from `records` of the session's strategy (main_window_status.cpp).
  void updateSearchProgress(const std::vector<pim::DraftRecord>& records);
  void checkIdle();
  /// The engine's verdict on the panel's problem: the banner, and whether Explore is enabled.
  void updateVerdict();
  /// The stale banner and dock titles: whether the panel still asks what the shown results answer.
  void updateStale();
  /// Empties the table, plots, heat map and details (a run that could not start leaves nothing to show).
  void clearResults();
  void openKernel();
  /// File > Export all rows / selected rows (CSV): the dialog, named after the problem, in the last folder.
  void exportCsvInteractive(bool selectedOnly);
  void exportPlotInteractive(Plot p);
  QWidget* plotWidget(Plot p) const;
  QString plotTitle(Plot p) const;
  std::vector<int> tableRows(bool selectedOnly) const;  // model rows in table order
  void setShowPruned(bool on);
  /// The control panel's problem, exploring the what-if backend when it edits the same backend.
  SessionConfig requestedConfig() const;
  void openClassroom();
  void buildLlmWindow();       // views/main_window_llm.cpp
  void buildLayerMapWindow();  // views/main_window_map.cpp
  // Sessions, recent files and undo (views/session_window.cpp; session_document.cpp maps file <-> window).
  void addSessionActions(QMenu* file);
  void addUndoActions(QMenu* edit);
  void addScheduleActions(QMenu* file);  // views/main_window_schedule.cpp
  void connectSessionSignals();
  /// Asks to save unsaved changes; false when the user cancels. Never asks when the layout does not persist.
  bool confirmClose();
  void openSessionInteractive();
  bool saveSessionInteractive(bool saveAs);
  void addRecent(const QString& path);
  void rebuildRecentMenu();
  void updateTitle();
  void recordControls();
  void recordWhatIf(const std::shared_ptr<const pim::Backend>& b);
  void applyControls(const SessionConfig& c);
  void applyWhatIf(const pim::Backend& b);
  // What-if runs (views/main_window_whatif.cpp).
  void connectWhatIf();
  /// Explores `c` keeping the current front as the Pareto plot's ghost when `c` is the same problem on
  /// edited hardware.
  void startWhatIfRun(const SessionConfig& c);
  void noteWhatIfFinished();
  QString bestText() const;  // "0.45 µs", or "–" without a best draft
  // Run history (views/main_window_history.cpp).
  void connectHistory();
  /// Adds the run that just finished to the history (not a run the history itself brought back).
  void recordRun();
  /// Sets the control panel (and the what-if form, for edited hardware) to `config` without recording a step.
  void showConfig(const SessionConfig& config);
  /// The history as a session file stores it, and back (views/main_window_history.cpp). restoreHistory
  /// returns a note naming runs that could not be rebuilt ("" when all were).
  std::vector<pim::SessionRun> historyForFile() const;
  QString restoreHistory(const std::vector<pim::SessionRun>& runs, const QString& path);

  bool m_persist;
  QByteArray m_defaultState;  // the docks as first built
  ExplorationSession* m_session;
  DraftSelection* m_selection;
  DraftTableModel* m_model;
  DraftAnalysisRunner* m_analysis;
  CompareView* m_compare;
  QString m_scheduleFilter;  // the schedule export dialog's last format
  QDialog* m_compareDialog;
  NetworkCompileView* m_network;
  QDialog* m_networkDialog;
  LlmView* m_llm;
  QDialog* m_llmDialog;
  LayerMapView* m_layerMap;
  QDialog* m_layerMapDialog;
  PrunedLister* m_pruned;
  ControlPanel* m_controls;
  DraftTablePanel* m_table;
  VerdictBanner* m_verdict;
  StaleBanner* m_stale;
  ParetoPlot* m_pareto;
  SearchProgressPlot* m_searchProgress;
  BreakdownChart* m_breakdown;
  UnitHeatmap* m_heatmap;
  DraftDetails* m_details;
  WhatIfPanel* m_whatIf;
  QDockWidget* m_whatIfDock;
  QDockWidget* m_controlsDock;
  QDockWidget* m_paretoDock;
  QDockWidget* m_searchProgressDock;
  QDockWidget* m_breakdownDock;
  QDockWidget* m_heatmapDock;
  QDockWidget* m_detailsDock;
  QDockWidget* m_historyDock;
  RunHistory* m_history;
  RunHistoryPanel* m_historyPanel;
  QString m_runOrigin;            // what the next finished run came from ("opened x.pimsession"); "" explored
  bool m_showingHistory = false;  // the run now ending was brought back from the history: not recorded again
  ElidedLabel* m_counts;
  RunProgress* m_runProgress;
  RunConfirmation* m_confirm;
  QUndoStack* m_undo;
  QMenu* m_recentMenu = nullptr;
  QString m_sessionPath;
  bool m_resultsDirty = false;   // results explored since the last save/open
  bool m_applyingState = false;  // undo/redo or a session restore is setting widgets: record nothing
  SessionConfig m_panelConfig;   // the control panel as last recorded (undo's "before")
  std::shared_ptr<const pim::Backend> m_whatIfBefore;  // the what-if backend as last recorded
  std::optional<QList<quint64>> m_restoreSelection;    // applied when the reopened results are in
  std::optional<std::array<double, 4>> m_restoreParetoView;
  QString m_restoreMessage;
  QString m_importNote;  // "Imported x.json: … re-simulated n cycles (recorded m)", shown when its run ends
  QElapsedTimer m_lastRefresh;
  QElapsedTimer m_runClock;  // from Explore to the last row shown: what "Done in" reports
  bool m_prunedRequested = false, m_prunedListed = false;
  std::shared_ptr<const std::vector<pim::DraftRecord>> m_pendingRecords;
  bool m_feeding = false, m_cancelled = false;
  bool m_pendingDiffed = false;  // the rows listed before m_pendingRecords were compared with it
  QElapsedTimer m_lastPlotRefresh;
  bool m_awaitFinal = false, m_finalArrived = false;
  quint64 m_finalTicket = 0;                      // first snapshot taken after the run ended
  std::shared_ptr<ParetoGhost> m_pendingGhost;    // the ghost the next startSession shows (none: cleared)
  bool m_whatIfRun = false;                       // the run was started by a what-if edit or its undo
  QString m_whatIfBestBefore, m_whatIfGpuBefore;  // the run before the edit, as the note shows them
};

/// A window of `size` centred on `area`, moved so that it starts on screen and ends there if it fits.
QRect placeWithin(const QRect& area, QSize size);

}  // namespace pimgui
