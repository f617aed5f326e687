// SPDX-License-Identifier: Apache-2.0
#include "views/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QCloseEvent>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextStream>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

#include "engine/core/problem.h"
#include "views/breakdown_bars.h"
#include "views/breakdown_chart.h"
#include "views/classroom_dialog.h"
#include "views/compare_view.h"
#include "views/control_panel.h"
#include "views/csv_export.h"
#include "views/draft_analysis.h"
#include "views/draft_details.h"
#include "views/draft_filter_proxy.h"
#include "views/draft_selection.h"
#include "views/draft_table_model.h"
#include "views/draft_table_panel.h"
#include "views/elided_label.h"
#include "views/exploration_session.h"
#include "views/layer_map_view.h"
#include "views/llm_view.h"
#include "views/network_compile_view.h"
#include "views/pareto_plot.h"
#include "views/plot_export.h"
#include "views/pruned_lister.h"
#include "views/run_confirmation.h"
#include "views/run_history.h"
#include "views/run_progress.h"
#include "views/search_progress_plot.h"
#include "views/session_document.h"
#include "views/shortcuts_dialog.h"
#include "views/stale_banner.h"
#include "views/unit_heatmap.h"
#include "views/user_guide.h"
#include "views/verdict_banner.h"
#include "views/what_if_panel.h"

namespace pimgui {

namespace {
constexpr int kRefreshMs = 200;     // live table/plot refresh period; progress itself arrives every ~50 ms
constexpr int kInsertChunk = 2000;  // rows merged per event-loop turn
}  // namespace

MainWindow::MainWindow(bool persistLayout, QWidget* parent) : QMainWindow(parent), m_persist(persistLayout) {
  setWindowTitle(tr("PIMScope"));
  setObjectName(QStringLiteral("PIMScopeMainWindow"));
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks | QMainWindow::AllowTabbedDocks);
  m_session = new ExplorationSession(this);
  m_selection = new DraftSelection(this);
  m_model = new DraftTableModel(this);
  m_analysis = new DraftAnalysisRunner(this);
  m_pruned = new PrunedLister(this);

  m_table = new DraftTablePanel(m_model, m_selection);
  m_verdict = new VerdictBanner;
  m_stale = new StaleBanner;
  auto* central = new QWidget;
  auto* centralLayout = new QVBoxLayout(central);
  centralLayout->setContentsMargins(0, 0, 0, 0);
  centralLayout->setSpacing(4);
  centralLayout->addWidget(m_verdict);
  centralLayout->addWidget(m_stale);
  centralLayout->addWidget(m_table, 1);
  setCentralWidget(central);
  m_controls = new ControlPanel;
  m_pareto = new ParetoPlot(m_model, m_selection);
  m_searchProgress = new SearchProgressPlot;
  m_breakdown = new BreakdownChart;
  m_heatmap = new UnitHeatmap;
  m_details = new DraftDetails;
  m_whatIf = new WhatIfPanel;
  m_history = new RunHistory(this);
  m_historyPanel = new RunHistoryPanel(m_history);
  buildDocks();

  // Message, progress and counts share the status bar's width; the texts shrink and end in "…".
  elideStatusMessages(statusBar());
  m_counts = new ElidedLabel;
  keepTextVisible(m_counts);
  m_runProgress = new RunProgress;
  keepTextVisible(m_runProgress);
  statusBar()->addPermanentWidget(m_runProgress);
  statusBar()->addPermanentWidget(m_counts, 1);
  m_undo = new QUndoStack(this);
  m_confirm = new RunConfirmation(this);
  buildMenus();

  connect(m_session, &ExplorationSession::started, this, &MainWindow::onStarted);
  connect(m_session, &ExplorationSession::progressed, this, [this] { onProgress(false); });
  connect(m_session, &ExplorationSession::finished, this, &MainWindow::onFinished);
  connect(m_session, &ExplorationSession::snapshot, this, &MainWindow::onSnapshot);
  connect(m_session, &ExplorationSession::baselinesReady, this, &MainWindow::updateBreakdown);
  connect(m_session, &ExplorationSession::failed, this, [this](const QString& msg) {
    // Nothing ran: the views must not keep showing the previous problem's results as if they were these.
    m_verdict->setVerdict(msg);
    statusBar()->showMessage(tr("Not explored: %1").arg(msg));
    clearResults();
    m_controls->setRunning(m_session->running());
    checkIdle();
  });
  connect(m_controls, &ControlPanel::configChanged, this, &MainWindow::updateVerdict);
  connect(m_selection, &DraftSelection::changed, this, &MainWindow::onSelectionChanged);
  connect(m_analysis, &DraftAnalysisRunner::analysed, this, [this](std::shared_ptr<const DraftAnalysis> a) {
    m_heatmap->setAnalysis(a);
    m_details->setAnalysis(a);
    checkIdle();
  });
  connect(m_pruned, &PrunedLister::listed, this,
          [this](std::shared_ptr<std::vector<DraftRow>> rows, bool capped) {
            const std::size_t n = rows->size();
            m_model->appendPruned(std::move(*rows));
            m_prunedListed = true;
            m_table->setPrunedNote(capped ? tr("pruned: first %L1 listed").arg(n)
                                          : tr("pruned: all %L1 listed").arg(n));
            m_pareto->refresh();
            checkIdle();
          });
  connect(m_table, &DraftTablePanel::showPrunedToggled, this, &MainWindow::setShowPruned);
  connect(m_controls, &ControlPanel::exploreRequested, this, &MainWindow::exploreInteractive);
  connect(m_controls, &ControlPanel::cancelRequested, m_confirm, &RunConfirmation::cancel);
  connect(m_confirm, &RunConfirmation::estimatingChanged, this, [this](const QString& what) {
    // Cancel (and Esc) stop an estimate as they stop a run; a run that starts keeps it enabled.
    m_controls->setRunning(!what.isEmpty() || m_session->running());
    if (what.isEmpty()) {
      statusBar()->clearMessage();  // "estimating…" is over: a question, or the run's own status follows
      updateStatus();               // the bar follows the run again (hidden when none starts)
      return;
    }
    m_runProgress->showBusy(what);
    statusBar()->showMessage(tr("Explore: %1…").arg(what));
  });
  connect(m_confirm, &RunConfirmation::estimateCancelled, this,
          [this] { statusBar()->showMessage(tr("Cancelled before the run started (while estimating it)")); });
  connectWhatIf();
  connect(m_controls, &ControlPanel::cancelRequested, m_session, &ExplorationSession::cancel);
  connect(m_controls, &ControlPanel::openKernelRequested, this, &MainWindow::openKernel);
  connectSessionSignals();
  connectHistory();

  // Compare backends: a separate non-modal window, so the comparison can sit next to the explorer.
  m_compareDialog = new QDialog(this);
  m_compareDialog->setWindowTitle(tr("Compare backends"));
  m_compare = new CompareView;
  auto* compareLayout = new QVBoxLayout(m_compareDialog);
  compareLayout->setContentsMargins(0, 0, 0, 0);
  compareLayout->addWidget(m_compare);
  m_compareDialog->resize(1240, 860);
  connect(m_compare, &CompareView::done, this, &MainWindow::checkIdle);
  connect(m_compare, &CompareView::drillDownRequested, this, [this](const SessionConfig& c, quint64 draft) {
    if (!startSession(c)) return;
    m_selection->set({draft});  // started() cleared the selection; a non-empty one survives the run's end
    raise();
    activateWindow();
  });

  // Compiling a network on a crossbar accelerator: whole networks, not kernels, so a window of its own.
  m_networkDialog = new QDialog(this);
  m_networkDialog->setWindowTitle(tr("Compile a network on a crossbar accelerator"));
  m_network = new NetworkCompileView;
  auto* networkLayout = new QVBoxLayout(m_networkDialog);
  networkLayout->setContentsMargins(0, 0, 0, 0);
  networkLayout->addWidget(m_network);
  m_networkDialog->resize(1240, 860);
  connect(m_network, &NetworkCompileView::done, this, &MainWindow::checkIdle);
  buildLlmWindow();
  buildLayerMapWindow();

  m_defaultState = saveState();  // View > Reset layout returns to it
  fitToScreen();
  if (m_persist) restoreWindowSettings();
  updateBreakdown();
  updateStatus();
}

MainWindow::~MainWindow() {
  m_session->stopAndWait();
  m_pruned->cancel();
  // The stack's destructor signals cleanChanged, which must not reach a half-destroyed window.
  disconnect(m_undo, nullptr, this, nullptr);
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  addSessionActions(file);  // Open… (Ctrl+O), Open Recent, Save (Ctrl+S), Save As…
  file->addAction(tr("Open &DSL file…"), this, &MainWindow::openKernel);
  addScheduleActions(file);
  QAction* allCsv = file->addAction(tr("&Export all rows (CSV)…"), QKeySequence(Qt::CTRL | Qt::Key_E), this,
                                    [this] { exportCsvInteractive(false); });
  QAction* selectedCsv =
      file->addAction(tr("Export se&lected rows (CSV)…"), this, [this] { exportCsvInteractive(true); });
  QMenu* plots = file->addMenu(tr("Export &plot"));
  const std::pair<Plot, QString> plotEntries[] = {{Plot::Pareto, tr("&Pareto plot…")},
                                                  {Plot::Breakdown, tr("Time &breakdown…")},
                                                  {Plot::Heatmap, tr("&Heat map…")},
                                                  {Plot::SearchProgress, tr("&Search progress…")}};
  for (const auto& [which, text] : plotEntries) {
    plots->addAction(text, this, [this, which = which] { exportPlotInteractive(which); });
    // The same export from the plot's own right-click menu.
    addExportContextMenu(plotWidget(which), [this, which = which] { exportPlotInteractive(which); });
  }
  // The table's right-click menu offers both CSV exports.
  m_table->view()->addAction(allCsv);
  m_table->view()->addAction(selectedCsv);
  m_table->view()->setContextMenuPolicy(Qt::ActionsContextMenu);
  file->addAction(tr("Save &screenshots…"), this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Screenshot folder"));
    if (!dir.isEmpty()) statusBar()->showMessage(tr("Wrote %1 screenshots").arg(saveScreenshots(dir).size()));
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  addUndoActions(edit);
  edit->addAction(tr("&Copy selected draft ids"), QKeySequence::Copy, this, [this] {
    QStringList ids;
    for (quint64 id : m_selection->ids()) ids << QString::number(id);
    QApplication::clipboard()->setText(ids.join(QLatin1Char('\n')));
  });
  edit->addAction(tr("&Find…"), QKeySequence::Find, this, [this] {
    m_table->filterBox()->setFocus();
    m_table->filterBox()->selectAll();
  });
  edit->addAction(tr("Select &best draft"), QKeySequence(Qt::CTRL | Qt::Key_B), this, [this] {
    if (auto best = bestDraft()) m_selection->set({*best});
  });
  edit->addAction(tr("C&lear selection"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A), m_selection,
                  &DraftSelection::clear);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QDockWidget* d : {m_controlsDock, m_whatIfDock, m_paretoDock, m_searchProgressDock, m_breakdownDock,
                         m_heatmapDock, m_detailsDock})
    view->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction(tr("Reset Pareto &zoom"), this, [this] { m_pareto->resetView(); });
  view->addAction(tr("Reset &layout"), this, &MainWindow::resetLayout);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(tr("&Explore"), QKeySequence(Qt::Key_F5), this, &MainWindow::exploreInteractive);
  QAction* cancel =
      run->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), m_session, &ExplorationSession::cancel);
  cancel->setShortcutContext(Qt::WindowShortcut);
  connect(cancel, &QAction::triggered, m_confirm, &RunConfirmation::cancel);
  QAction* ask = run->addAction(tr("&Ask before runs over %1 s").arg(RunConfirmation::kLongRunSeconds));
  ask->setObjectName(QStringLiteral("askBeforeLongRuns"));
  ask->setCheckable(true);
  ask->setToolTip(tr("Explore estimates the run first and asks, with the estimate, when it exceeds %1 s")
                      .arg(RunConfirmation::kLongRunSeconds));
  if (m_persist)
    m_confirm->setEnabled(QSettings().value(QStringLiteral("run/askBeforeLongRuns"), true).toBool());
  ask->setChecked(m_confirm->enabled());
  connect(ask, &QAction::toggled, m_confirm, &RunConfirmation::setEnabled);
  connect(m_confirm, &RunConfirmation::enabledChanged, this, [this, ask](bool on) {
    ask->setChecked(on);
    if (m_persist) QSettings().setValue(QStringLiteral("run/askBeforeLongRuns"), on);
  });
  QAction* pruned = run->addAction(tr("Show &pruned drafts"));
  pruned->setCheckable(true);
  connect(pruned, &QAction::toggled, m_table->showPrunedBox(), &QCheckBox::setChecked);
  connect(m_table->showPrunedBox(), &QCheckBox::toggled, pruned, &QAction::setChecked);
  run->addAction(tr("Compare &backends…"), QKeySequence(Qt::CTRL | Qt::Key_K), this,
                 &MainWindow::showCompare);
  run->addAction(tr("Compile a &network on crossbars…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K), this,
                 &MainWindow::showNetworkCompile);
  run->addAction(tr("&LLM inference…"), QKeySequence(Qt::CTRL | Qt::Key_L), this, &MainWindow::showLlm);
  run->addAction(tr("&Map a conv layer on a PIM hierarchy…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M),
                 this, &MainWindow::showLayerMap);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* guide =
      help->addAction(tr("&User guide"), QKeySequence::HelpContents, this, [this] { showUserGuide(this); });
  guide->setObjectName(QStringLiteral("userGuideAction"));
  help->addAction(tr("&Classroom mode…"), this, &MainWindow::openClassroom);
  help->addAction(tr("&Keyboard shortcuts"), this, [this] { showShortcuts(this, menuBar()); });
  help->addAction(tr("&About PIMScope"), this, [this] {
    QMessageBox::about(
        this, tr("About PIMScope"),
        tr("<b>PIMScope</b> %1<br>Design-space explorer for compiling ML kernels onto "
           "Processing-In-Memory hardware. Every number shown comes from the engine: drafts, pruning "
           "verdicts, predictions and bank-level simulations.")
            .arg(QApplication::applicationVersion()));
  });
}

bool MainWindow::startDefaultSession() {
  const bool ok = startSession(SessionConfig{});
  m_resultsDirty = false;  // what every start shows is nothing to save
  updateTitle();
  return ok;
}

void MainWindow::exploreInteractive() {
  const SessionConfig c = requestedConfig();
  m_confirm->request(c, [this, c] { startSession(c); });
}

SessionConfig MainWindow::requestedConfig() const {
  SessionConfig c = m_controls->config();
  if (m_whatIf->modified() && m_whatIf->original().name == c.backend)
    c.backendOverride = std::make_shared<const pim::Backend>(m_whatIf->current());
  return c;
}

void MainWindow::openClassroom() {
  // Non-modal and owned by the window, so it can sit on a projector screen next to the explorer.
  auto* dialog = new ClassroomDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->show();
}

void MainWindow::updateVerdict() {
  QString why = m_controls->inputError();
  if (why.isEmpty()) why = problemVerdict(requestedConfig());
  m_verdict->setVerdict(why);
  m_controls->setExploreAllowed(why.isEmpty());
  updateStale();
}

void MainWindow::updateStale() {
  // Only results on screen can be stale. A panel that does not parse names no problem, so the views show
  // another one whatever was changed (the verdict banner says what does not parse).
  const bool shown = m_session->problem() && (m_model->rowCount() > 0 || m_session->running());
  const QString reason = !shown ? QString()
                         : !m_controls->inputError().isEmpty()
                             ? tr("settings")
                             : staleReason(m_session->config(), requestedConfig());
  m_stale->setStale(reason, shown ? QString::fromStdString(m_session->problem()->title()) : QString());
  for (QDockWidget* d : {m_paretoDock, m_searchProgressDock, m_breakdownDock, m_heatmapDock, m_detailsDock}) {
    if (!d->property("baseTitle").isValid()) d->setProperty("baseTitle", d->windowTitle());
    const QString base = d->property("baseTitle").toString();
    d->setWindowTitle(reason.isEmpty() ? base : tr("%1 — stale").arg(base));
  }
}

void MainWindow::clearResults() {
  m_pruned->cancel();
  m_selection->clear();
  m_analysis->clear();
  m_model->reset(nullptr);
  m_table->setPrunedNote({});
  m_pareto->refresh();
  m_searchProgress->clear();
  updateBreakdown();
  updateStatus();
  updateStale();
}

bool MainWindow::startSession(const SessionConfig& c) {
  m_controls->setConfig(c);
  updateVerdict();
  m_panelConfig = m_controls->config();  // a run's settings are the new baseline for undo, not a step
  m_resultsDirty = true;
  updateTitle();
  m_pareto->setGhost(std::exchange(m_pendingGhost, nullptr));  // only a what-if run keeps one
  m_historyPanel->setOverlayShown(false);
  m_importNote.clear();      // an import sets it after this
  m_showingHistory = false;  // a run brought back but not yet shown in full is superseded
  m_runOrigin.clear();
  return m_session->start(c);
}

void MainWindow::onStarted() {
  m_pruned->cancel();
  m_prunedListed = false;
  m_pendingRecords.reset();
  m_awaitFinal = m_finalArrived = false;
  m_selection->clear();
  m_analysis->clear();
  m_model->reset(m_session->problem());
  m_table->setPrunedNote({});
  m_controls->setRunning(true);
  statusBar()->clearMessage();  // the previous run's "Done in" is not this run's
  updateStale();
  m_runClock.start();
  // A run of another backend (or the first run) starts the what-if form over from the shipped parameters.
  const pim::Backend& backend = m_session->problem()->backend();
  if (!m_session->config().backendOverride && m_whatIf->original().name != backend.name) {
    m_whatIf->setBackend(backend);
    m_whatIfBefore.reset();  // undo of what-if edits starts over with the new form
  }
  m_whatIf->setModelNote(m_session->predictorNote());
  updateTitle();
  if (!m_session->note().isEmpty()) statusBar()->showMessage(m_session->note());
  m_lastRefresh.start();
  onProgress(true);
  if (m_prunedRequested) setShowPruned(true);
}

void MainWindow::onProgress(bool force) {
  // Copying every record is the expensive part: it runs on a pool thread a few times a second and the rows
  // are merged here in chunks (feedRecords), so the event loop keeps turning.
  if (force || !m_lastRefresh.isValid() || m_lastRefresh.elapsed() >= kRefreshMs) {
    m_lastRefresh.restart();
    m_session->requestSnapshot();
  }
  updateStatus();
}

void MainWindow::onSnapshot(std::shared_ptr<const std::vector<pim::DraftRecord>> records, quint64 ticket) {
  m_pendingRecords = std::move(records);
  m_pendingDiffed = false;
  // Only a copy started after the run ended is sure to hold everything.
  if (m_awaitFinal && ticket >= m_finalTicket) {
    m_awaitFinal = false;
    m_finalArrived = true;
  }
  if (!m_feeding) feedRecords();
}

void MainWindow::feedRecords() {
  m_feeding = false;
  if (!m_pendingRecords) return;
  // The rows listed before this snapshot are compared once; the later chunks only insert.
  const bool more = m_model->updateRecords(*m_pendingRecords, kInsertChunk, !m_pendingDiffed);
  m_pendingDiffed = true;
  // The plots walk every row: redrawn a few times a second while a large snapshot is merged, not per chunk
  // (which made listing 4x10^5 drafts quadratic).
  if (!more || !m_lastPlotRefresh.isValid() || m_lastPlotRefresh.elapsed() >= kRefreshMs) {
    m_lastPlotRefresh.restart();
    m_pareto->refresh();
    updateSearchProgress(*m_pendingRecords);
    updateBreakdown();
  }
  updateStatus();
  if (more) {
    m_feeding = true;
    QTimer::singleShot(0, this, &MainWindow::feedRecords);
    return;
  }
  if (m_finalArrived) {
    m_finalArrived = false;
    completeFinish();
  }
}

void MainWindow::onFinished(bool cancelled) {
  m_cancelled = cancelled;
  // Nothing is left to cancel: the engine has stopped, and the views only list what it finished.
  m_controls->setRunning(false);
  m_awaitFinal = true;
  m_finalTicket = m_session->requestSnapshot();
  updateStatus();
}

void MainWindow::completeFinish() {
  m_controls->setRunning(false);
  updateStatus();  // the progress bar goes once the last row is shown
  // Show the best draft in the single-draft views unless the user already picked one; a reopened session
  // shows what was selected when it was saved.
  if (m_restoreSelection) {
    m_selection->set(*m_restoreSelection);
    m_restoreSelection.reset();
    if (m_restoreParetoView) m_pareto->setView(*m_restoreParetoView);
    m_restoreParetoView.reset();
  } else if (m_selection->ids().isEmpty()) {
    if (auto best = bestDraft()) {
      m_selection->set({*best});
    }
  }
  statusBar()->showMessage(finishedText());
  noteWhatIfFinished();
  recordRun();
  checkIdle();
}

std::optional<quint64> MainWindow::bestDraft() const {
  const auto& best = m_session->progress().best;
  if (!best || static_cast<int>(*best) >= m_model->keptRows()) return std::nullopt;
  return m_model->row(static_cast<int>(*best)).draft.id;
}

void MainWindow::onSelectionChanged() {
  updateBreakdown();
  const auto current = m_selection->current();
  if (!current || !m_session->problem()) {
    m_analysis->clear();
    return;
  }
  m_details->setPending(*current);
  m_analysis->request(m_session->problem(), *current, m_session->config().rules,
                      m_session->config().evalOptions());
}

void MainWindow::updateBreakdown() {
  std::optional<int> reference;
  auto bars = breakdownBars(*m_model, m_selection->ids(), bestDraft(), m_session->baselines(), &reference);
  m_breakdown->setBars(std::move(bars), reference);
}

bool MainWindow::idle() const {
  return !m_session->running() && !m_awaitFinal && !m_finalArrived && !m_feeding && !m_analysis->busy() &&
         !m_pruned->busy() && !m_compare->running() && !m_network->running() && !m_llm->running() &&
         !m_layerMap->running();
}

void MainWindow::showNetworkCompile() {
  m_networkDialog->show();
  m_networkDialog->raise();
  m_networkDialog->activateWindow();
}

void MainWindow::showCompare() {
  if (!m_compareDialog->isVisible() && !m_compare->running()) m_compare->loadProblem(m_controls->config());
  m_compareDialog->show();
  m_compareDialog->raise();
  m_compareDialog->activateWindow();
}

void MainWindow::checkIdle() {
  if (idle()) emit becameIdle();
}

void MainWindow::setShowPruned(bool on) {
  m_prunedRequested = on;
  if (on && !m_prunedListed && !m_pruned->busy() && m_session->problem()) {
    m_table->setPrunedNote(m_session->predictor() ? tr("listing and predicting pruned drafts…")
                                                  : tr("listing pruned drafts…"));
    // With a model the lister also predicts the pruned drafts, so the Pareto plot can show them in grey.
    m_pruned->start(m_session->problem(), m_session->config().rules, kPrunedListCap, m_session->predictor(),
                    m_session->config().evalOptions().indexing);
  }
  m_pareto->setShowPruned(on);
}

void MainWindow::openKernel() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open kernel DSL file"), QString(),
                                                    tr("PIM kernels (*.pim);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (!m_controls->setKernelFile(path, &error)) QMessageBox::warning(this, tr("Cannot load kernel"), error);
}

}  // namespace pimgui
