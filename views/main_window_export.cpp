// SPDX-License-Identifier: Apache-2.0
// The main window's exports: the drafts table as CSV (all rows as filtered and sorted, or the selected ones),
// the plots as PNG/SVG/PDF, and a picture of every view. Dialogs suggest a file name naming the problem and
// open in the last export folder (views/export_paths.h).
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QItemSelectionModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <algorithm>

#include "engine/core/problem.h"
#include "views/breakdown_chart.h"
#include "views/csv_export.h"
#include "views/draft_analysis.h"
#include "views/draft_details.h"
#include "views/draft_filter_proxy.h"
#include "views/draft_table_panel.h"
#include "views/exploration_session.h"
#include "views/export_paths.h"
#include "views/main_window.h"
#include "views/network_compile_view.h"
#include "views/pareto_plot.h"
#include "views/plot_export.h"
#include "views/search_progress_plot.h"
#include "views/unit_heatmap.h"

namespace pimgui {

std::vector<int> MainWindow::tableRows(bool selectedOnly) const {
  const DraftFilterProxy* proxy = m_table->proxy();
  std::vector<int> rows;
  if (!selectedOnly) {
    rows.reserve(static_cast<std::size_t>(proxy->rowCount()));
    for (int r = 0; r < proxy->rowCount(); ++r) rows.push_back(proxy->mapToSource(proxy->index(r, 0)).row());
    return rows;
  }
  QModelIndexList selected = m_table->view()->selectionModel()->selectedRows();
  std::sort(selected.begin(), selected.end(),
            [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
  for (const QModelIndex& i : selected) rows.push_back(proxy->mapToSource(i).row());
  return rows;
}

bool MainWindow::exportCsv(const QString& path, QString* error) const {
  return writeDraftsCsv(*m_model, tableRows(false), path, error);
}

bool MainWindow::exportSelectedCsv(const QString& path, QString* error) const {
  const std::vector<int> rows = tableRows(true);
  if (rows.empty()) {
    if (error) *error = tr("No rows selected: nothing written to %1").arg(QDir::toNativeSeparators(path));
    return false;
  }
  return writeDraftsCsv(*m_model, rows, path, error);
}

void MainWindow::exportCsvInteractive(bool selectedOnly) {
  if (selectedOnly && tableRows(true).empty()) {
    statusBar()->showMessage(tr("Select rows in the drafts table first"));
    return;
  }
  const QString what = selectedOnly ? QStringLiteral("drafts_selected") : QStringLiteral("drafts");
  const QString path = QFileDialog::getSaveFileName(
      this, selectedOnly ? tr("Export selected rows") : tr("Export all rows"),
      suggestedExportPath(exportBaseName(m_session->config(), what) + QStringLiteral(".csv")),
      tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  rememberExportFolder(path);
  QString error;
  const bool ok = selectedOnly ? exportSelectedCsv(path, &error) : exportCsv(path, &error);
  statusBar()->showMessage(ok ? tr("Exported %1").arg(path) : error);
}

QWidget* MainWindow::plotWidget(Plot p) const {
  switch (p) {
    case Plot::Pareto:
      return m_pareto;
    case Plot::Breakdown:
      return m_breakdown;
    case Plot::Heatmap:
      return m_heatmap;
    case Plot::SearchProgress:
      return m_searchProgress;
  }
  return nullptr;
}

QString MainWindow::plotTitle(Plot p) const {
  // The exported file stands alone: name the problem (and for the heat map the draft) it shows.
  QString problem = m_session->problem() ? QString::fromStdString(m_session->problem()->title()) : QString();
  if (m_session->config().backendOverride) problem += tr(" (what-if backend)");
  QString what;
  switch (p) {
    case Plot::Pareto:
      what = tr("Pareto plot");
      break;
    case Plot::Breakdown:
      what = tr("Time breakdown");
      break;
    case Plot::Heatmap: {
      const auto a = m_analysis->latest();
      what = a ? tr("Heat map of draft %1").arg(a->draft.id) : tr("Heat map");
      break;
    }
    case Plot::SearchProgress:
      what = tr("Search progress (%1)").arg(QString::fromStdString(m_session->config().strategy));
      break;
  }
  return problem.isEmpty() ? what : what + QStringLiteral(" — ") + problem;
}

bool MainWindow::exportPlot(Plot p, const QString& path, QString* error) const {
  return pimgui::exportPlot(plotWidget(p), path, error, plotTitle(p));
}

void MainWindow::exportPlotInteractive(Plot p) {
  static const char* names[] = {"pareto", "breakdown", "heatmap", "search_progress"};
  const QString path = pimgui::exportPlotInteractive(
      this, plotWidget(p),
      exportBaseName(m_session->config(), QString::fromLatin1(names[static_cast<int>(p)])), plotTitle(p));
  if (!path.isEmpty()) statusBar()->showMessage(tr("Exported %1").arg(path));
}

QStringList MainWindow::saveScreenshots(const QString& dir) {
  QDir().mkpath(dir);
  QStringList written;
  const std::pair<const char*, QWidget*> shots[] = {
      {"main_window", this},    {"table", m_table},         {"breakdown", m_breakdownDock},
      {"pareto", m_paretoDock}, {"heatmap", m_heatmapDock}, {"details", m_detailsDock}};
  for (const auto& [name, widget] : shots) {
    const QString path = QDir(dir).filePath(QString::fromLatin1(name) + QStringLiteral(".png"));
    if (widget->grab().save(path)) written << path;
  }
  // The details dock's other tabs too: the IR and command listing with their highlighting.
  QTabWidget* tabs = m_details->tabs();
  const int shown = tabs->currentIndex();
  for (int i : {1, 2}) {
    tabs->setCurrentIndex(i);
    const QString path = QDir(dir).filePath(i == 1 ? QStringLiteral("details_ir.png")
                                                   : QStringLiteral("details_commands.png"));
    if (m_detailsDock->grab().save(path)) written << path;
  }
  tabs->setCurrentIndex(shown);
  // Docks sharing a tab with another (what-if with the controls, the history with the details, the search
  // progress with the Pareto plot): brought forward for their picture only.
  auto grabTab = [&](QDockWidget* dock, QDockWidget* shownBefore, const char* name) {
    dock->raise();
    QApplication::processEvents();
    const QString path = QDir(dir).filePath(QString::fromLatin1(name) + QStringLiteral(".png"));
    if (dock->grab().save(path)) written << path;
    shownBefore->raise();
  };
  grabTab(m_whatIfDock, m_controlsDock, "whatif");
  grabTab(m_historyDock, m_detailsDock, "history");
  grabTab(m_searchProgressDock, m_paretoDock, "search_progress");
  if (!m_network->candidates().empty()) {  // only when a network was compiled (pimscope --screenshot does)
    QTabWidget* compileTabs = m_network->tabs();
    const char* names[] = {"compile_cores.png", "compile_pipeline.png", "compile_pareto.png"};
    for (int i = 0; i < compileTabs->count() && i < 3; ++i) {
      compileTabs->setCurrentIndex(i);
      QApplication::processEvents();
      const QString path = QDir(dir).filePath(QString::fromLatin1(names[i]));
      if (m_network->grab().save(path)) written << path;
    }
    compileTabs->setCurrentIndex(0);
  }
  written << m_llm->saveScreenshots(dir);  // only when a request was run (pimscope --screenshot runs one)
  if (m_compare->comparison()) {           // only when a comparison was run (pimscope --screenshot runs one)
    const QString compare = QDir(dir).filePath(QStringLiteral("compare.png"));
    if (m_compare->grab().save(compare)) written << compare;
  }
  return written;
}

}  // namespace pimgui
