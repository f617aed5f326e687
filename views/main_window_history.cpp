// SPDX-License-Identifier: Apache-2.0
// The main window's run history: every finished (or cancelled) exploration and every opened session file is
// recorded with what the views need to show it again; a past run comes back into the views without
// exploring, or its front is overlaid on the Pareto plot beside the run shown.
#include <QDockWidget>
#include <QFileInfo>
#include <QStatusBar>

#include "engine/target/registry.h"
#include "views/control_panel.h"
#include "views/draft_table_model.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/run_history.h"
#include "views/session_document.h"
#include "views/what_if_panel.h"

namespace pimgui {

void MainWindow::connectHistory() {
  connect(m_historyPanel, &RunHistoryPanel::showRequested, this, &MainWindow::showHistoryRun);
  connect(m_historyPanel, &RunHistoryPanel::overlayRequested, this,
          [this](int row) { overlayHistoryRun(row); });
  connect(m_historyPanel, &RunHistoryPanel::overlayRemoved, this,
          [this] { overlayHistoryRun(std::nullopt); });
}

void MainWindow::recordRun() {
  if (std::exchange(m_showingHistory, false)) return;
  RunEntry e;
  e.config = m_session->config();
  e.problem = QString::fromStdString(m_session->problem()->title());
  e.records = m_pendingRecords;  // the final snapshot the views were filled from
  e.baselines = m_session->baselines();
  e.progress = m_session->progress();
  e.predictorErrorPct = m_session->predictorErrorPct();
  e.note = m_session->note();
  e.wallSeconds = m_runClock.elapsed() / 1e3;
  e.cancelled = m_cancelled;
  e.origin = std::exchange(m_runOrigin, QString());
  e.ended = QDateTime::currentDateTime();
  e.objectives = std::make_shared<const ParetoGhost>(
      ParetoPlot::captureGhost(*m_model, tr("front of run %1").arg(m_history->nextNumber())));
  // Selected: the row of the run the views now show, as after showing one from the history.
  m_historyPanel->selectRow(m_history->append(std::move(e)));
}

void MainWindow::showConfig(const SessionConfig& config) {
  m_controls->setConfig(config);
  if (!config.backendOverride) return;
  // The what-if form shows the edit against the shipped backend it came from.
  try {
    m_whatIf->setState(pim::builtinBackends().get(config.backend), *config.backendOverride);
  } catch (const std::exception&) {
    m_whatIf->setBackend(*config.backendOverride);
  }
}

bool MainWindow::showHistoryRun(int row) {
  if (row < 0 || row >= m_history->rowCount()) return false;
  const RunEntry& e = m_history->entry(row);
  const int number = e.number;
  m_applyingState = true;
  showConfig(e.config);
  m_showingHistory = true;
  m_restoreMessage = tr("Showing run %1 of the history (%2)").arg(number).arg(e.problem);
  QString why;
  const auto catchFailure =
      connect(m_session, &ExplorationSession::failed, this, [&](const QString& msg) { why = msg; });
  const bool ok = m_session->adopt(e.config, e.records ? *e.records : std::vector<pim::DraftRecord>{},
                                   e.baselines, e.progress, e.predictorErrorPct, e.note);
  disconnect(catchFailure);
  m_applyingState = false;
  if (!ok) {
    m_showingHistory = false;
    m_restoreMessage.clear();
    statusBar()->showMessage(tr("Cannot show run %1: %2").arg(number).arg(why));
    return false;
  }
  m_panelConfig = m_controls->config();  // undo's baseline is the run shown
  m_resultsDirty = true;                 // a save now writes this run
  updateTitle();
  m_historyPanel->selectRow(m_history->rowOf(number));
  return true;
}

std::vector<pim::SessionRun> MainWindow::historyForFile() const {
  std::vector<pim::SessionRun> out;
  for (int row = 0; row < m_history->rowCount(); ++row) {
    const RunEntry& e = m_history->entry(row);
    pim::SessionRun r;
    r.number = e.number;
    r.data.settings = settingsOf(e.config);
    if (e.records) r.data.records = *e.records;
    r.data.baselines = e.baselines;
    r.data.progress = e.progress;
    r.data.predictorErrorPct = e.predictorErrorPct;
    r.data.note = e.note.toStdString();
    r.wallSeconds = e.wallSeconds;
    r.cancelled = e.cancelled;
    r.origin = e.origin.toStdString();
    r.endedMs = e.ended.toMSecsSinceEpoch();
    out.push_back(std::move(r));
  }
  return out;
}

QString MainWindow::restoreHistory(const std::vector<pim::SessionRun>& runs, const QString& path) {
  std::vector<RunEntry> entries;
  QStringList lost;
  for (const pim::SessionRun& r : runs) {
    try {
      RunEntry e;
      e.number = r.number;
      e.config = configOf(r.data.settings, path);
      const auto problem = makeProblem(e.config);
      e.problem = QString::fromStdString(problem->title());
      pim::SessionData data = r.data;
      pim::resolveDrafts(data, *problem);
      e.records = std::make_shared<const std::vector<pim::DraftRecord>>(std::move(data.records));
      e.baselines = std::move(data.baselines);
      e.progress = r.data.progress;
      e.predictorErrorPct = r.data.predictorErrorPct;
      e.note = QString::fromStdString(r.data.note);
      e.wallSeconds = r.wallSeconds;
      e.cancelled = r.cancelled;
      e.origin = QString::fromStdString(r.origin);
      e.ended = QDateTime::fromMSecsSinceEpoch(r.endedMs);
      // Its front for the overlay, from a model of its own rows (the views show another run).
      DraftTableModel rows;
      rows.reset(problem);
      rows.updateRecords(*e.records);
      e.objectives = std::make_shared<const ParetoGhost>(
          ParetoPlot::captureGhost(rows, tr("front of run %1").arg(r.number)));
      entries.push_back(std::move(e));
    } catch (const std::exception& ex) {
      lost << tr("run %1 (%2)").arg(r.number).arg(QString::fromStdString(ex.what()));
    }
  }
  m_history->restore(std::move(entries));
  return lost.isEmpty() ? QString()
                        : tr("history: could not rebuild %1").arg(lost.join(QStringLiteral("; ")));
}

void MainWindow::overlayHistoryRun(std::optional<int> row) {
  if (row && (*row < 0 || *row >= m_history->rowCount())) return;
  m_pareto->setGhost(row ? m_history->entry(*row).objectives : nullptr);
  m_historyPanel->setOverlayShown(row.has_value());
}

}  // namespace pimgui
