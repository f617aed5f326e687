// SPDX-License-Identifier: Apache-2.0
// The main window's layout: its docks, a first size that fits the screen, View > Reset layout, and the
// geometry kept between runs.
#include <algorithm>

#include <QCloseEvent>
#include <QDockWidget>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>

#include "views/breakdown_chart.h"
#include "views/control_panel.h"
#include "views/draft_details.h"
#include "views/exploration_session.h"
#include "views/export_paths.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/run_history.h"
#include "views/search_progress_plot.h"
#include "views/unit_heatmap.h"
#include "views/what_if_panel.h"

namespace pimgui {

namespace {
constexpr QSize kPreferredSize(1680, 1050);
}  // namespace

void MainWindow::buildDocks() {
  m_controlsDock = addDock(tr("Controls"), QStringLiteral("controls"), m_controls, Qt::LeftDockWidgetArea);
  m_paretoDock = addDock(tr("Pareto plot"), QStringLiteral("pareto"), m_pareto, Qt::RightDockWidgetArea);
  m_searchProgressDock = addDock(tr("Search progress"), QStringLiteral("search_progress"), m_searchProgress,
                                 Qt::RightDockWidgetArea);
  tabifyDockWidget(m_paretoDock, m_searchProgressDock);
  m_paretoDock->raise();
  m_breakdownDock =
      addDock(tr("Time breakdown"), QStringLiteral("breakdown"), m_breakdown, Qt::RightDockWidgetArea);
  m_heatmapDock = addDock(tr("Heat map"), QStringLiteral("heatmap"), m_heatmap, Qt::BottomDockWidgetArea);
  m_detailsDock =
      addDock(tr("Draft details"), QStringLiteral("details"), m_details, Qt::BottomDockWidgetArea);
  m_whatIfDock = addDock(tr("What-if hardware"), QStringLiteral("whatif"), m_whatIf, Qt::LeftDockWidgetArea);
  tabifyDockWidget(m_controlsDock, m_whatIfDock);
  m_controlsDock->raise();
  splitDockWidget(m_heatmapDock, m_detailsDock, Qt::Horizontal);
  m_historyDock =
      addDock(tr("Run history"), QStringLiteral("history"), m_historyPanel, Qt::BottomDockWidgetArea);
  tabifyDockWidget(m_detailsDock, m_historyDock);
  m_detailsDock->raise();
  resizeDocks({m_controlsDock, m_paretoDock}, {290, 560}, Qt::Horizontal);
  resizeDocks({m_paretoDock, m_breakdownDock}, {1, 1}, Qt::Vertical);
  resizeDocks({m_heatmapDock}, {330}, Qt::Vertical);
  resizeDocks({m_heatmapDock, m_detailsDock}, {3, 2}, Qt::Horizontal);
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& name, QWidget* w,
                                 Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(name);  // saveState/restoreState key
  dock->setWidget(w);
  addDockWidget(area, dock);
  return dock;
}

QRect MainWindow::availableScreenArea() const {
  const QScreen* s = screen() ? screen() : QGuiApplication::primaryScreen();
  return s ? s->availableGeometry() : QRect(QPoint(0, 0), kPreferredSize);
}

QRect placeWithin(const QRect& area, QSize size) {
  QRect r(QPoint(0, 0), size);
  r.moveCenter(area.center());
  // Centring a window wider than 95% of the screen (its minimum size wins over the preferred one) pushed its
  // right edge 18 px off a 1280-px screen: keep the top-left corner on screen and the rest as far as it goes.
  r.moveLeft(std::max(area.left(), std::min(r.left(), area.right() + 1 - r.width())));
  r.moveTop(std::max(area.top(), std::min(r.top(), area.bottom() + 1 - r.height())));
  return r;
}

void MainWindow::fitToScreen() {
  // The preferred size, or 95% of the screen's free area (the frame and a panel need the rest), but never
  // below the window's minimum, placed on screen: the status bar must be on screen at first start.
  const QRect area = availableScreenArea();
  const QRect placed =
      placeWithin(area, kPreferredSize.boundedTo(area.size() * 0.95).expandedTo(minimumSizeHint()));
  resize(placed.size());
  move(placed.topLeft());
  // On a short screen the bottom row gives way first, and the plots above it share the rest evenly (at
  // 1280x800 the breakdown chart was left 120 px, too little for its axis labels).
  resizeDocks({m_heatmapDock}, {std::min(330, height() / 3)}, Qt::Vertical);
  resizeDocks({m_paretoDock, m_breakdownDock}, {1, 1}, Qt::Vertical);
}

void MainWindow::resetLayout() {
  restoreState(m_defaultState);
  for (QDockWidget* d : findChildren<QDockWidget*>()) d->setFloating(false);
  fitToScreen();
}

void MainWindow::restoreWindowSettings() {
  restoreExportFolder();  // export dialogs open where the last export went, across runs
  QSettings s;
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  // Saved on a larger screen (or a second one no longer attached): fit this one instead.
  if (!availableScreenArea().contains(frameGeometry())) fitToScreen();
}

void MainWindow::closeEvent(QCloseEvent* e) {
  if (!confirmClose()) {
    e->ignore();
    return;
  }
  m_session->stopAndWait();
  if (m_persist) {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
  }
  QMainWindow::closeEvent(e);
}

}  // namespace pimgui
