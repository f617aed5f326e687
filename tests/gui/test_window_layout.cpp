// SPDX-License-Identifier: Apache-2.0
// The window's first size fits the screen (its status bar was off-screen on a 1600x1000 display), and View >
// Reset layout brings back docks that were closed or floated.
#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QComboBox>
#include <QDockWidget>
#include <QGuiApplication>
#include <QLineEdit>
#include <QMenuBar>
#include <QScreen>
#include <QStatusBar>
#include <cmath>

#include <qcustomplot.h>

#include "gui_test_util.h"
#include "views/control_panel.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/run_progress.h"
#include "views/shortcuts_dialog.h"
#include "views/unit_heatmap.h"

using namespace pimgui;

// At 1280x800 the window was sized to 95% of the screen and centred, and then grew to its minimum width
// (1,267 px) from that corner: its right edge was 18 px off the screen. It is placed at the size it will
// have.
TEST(WindowLayout, FirstStartFitsTheScreen) {
  const QRect area(0, 0, 1280, 800);
  EXPECT_EQ(placeWithin(area, QSize(1267, 761)), QRect(6, 19, 1267, 761));
  EXPECT_EQ(placeWithin(area, QSize(1216, 760)), QRect(32, 20, 1216, 760));
  // Larger than the screen: it starts on the screen, where its title bar and menus are.
  EXPECT_EQ(placeWithin(QRect(100, 30, 1280, 770), QSize(1400, 900)).topLeft(), QPoint(100, 30));
  MainWindow w(false);
  w.show();
  const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
  EXPECT_GE(w.frameGeometry().left(), screen.left());
  EXPECT_GE(w.frameGeometry().top(), screen.top());
  if (w.minimumSizeHint().width() <= screen.width()) {
    EXPECT_LE(w.frameGeometry().right(), screen.right());
  }
  if (w.minimumSizeHint().height() <= screen.height()) {
    EXPECT_LE(w.frameGeometry().bottom(), screen.bottom());
  }
}

TEST(WindowLayout, ResetLayoutBringsBackClosedAndFloatingDocks) {
  MainWindow w(false);
  w.show();
  const QList<QDockWidget*> docks = w.findChildren<QDockWidget*>();
  ASSERT_GE(docks.size(), 6);
  docks[0]->close();
  docks[1]->setFloating(true);
  w.resetLayout();
  for (QDockWidget* d : docks) {
    EXPECT_FALSE(d->isFloating()) << d->objectName().toStdString();
    EXPECT_FALSE(d->isHidden()) << d->objectName().toStdString();
  }
}

// With no points both axes used to scale to a zero-width range and draw a solid wall of tick labels.
TEST(WindowEmptyStates, AnEmptyParetoPlotSaysSoInsteadOfAWallOfTicks) {
  MainWindow w(false);
  w.resize(1200, 800);
  w.show();
  ParetoPlot* p = w.pareto();
  ASSERT_TRUE(p->points().empty());
  EXPECT_FALSE(p->emptyNote().isEmpty());
  p->plot()->replot();
  for (QCPAxis* a : {p->plot()->xAxis, p->plot()->yAxis}) {
    EXPECT_GT(a->range().size(), 0.0);
    EXPECT_LE(a->tickVector().size(), 12) << a->label().toStdString();
  }
  // The heat map shows no one-cell map in the colour of zero (it read as "every unit idle").
  EXPECT_FALSE(w.heatmap()->plot()->plottable(0)->visible());
  // PIMSCOPE_SCREENSHOTS=<dir> keeps the empty views as pictures.
  if (const QString dir = qEnvironmentVariable("PIMSCOPE_SCREENSHOTS"); !dir.isEmpty())
    w.saveScreenshots(dir);
}

// Progress: a bar with n of N while the run goes and until its last row is shown; the previous run's
// "Done in" is gone as soon as the next one starts.
TEST(WindowProgress, ABarCountsTheRunAndDoneInIsTheWholeRun) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  SessionConfig c = test::smallConfig();
  // GEMV simulations take a few ms each: long enough for the bar to be seen counting on a busy machine.
  c.kernel = "gemv";
  c.shape = "b=1,out=1024,in=1024";
  c.maxSimulations = 600;
  ASSERT_TRUE(w.startSession(c));
  bool sawCount = false;
  ASSERT_TRUE(test::waitFor(
      [&] {
        if (w.runProgress()->isVisible() && w.runProgress()->format().contains(QStringLiteral(" of ")))
          sawCount = true;
        return w.idle() && !w.session()->running();
      },
      60000));
  EXPECT_TRUE(sawCount);
  EXPECT_FALSE(w.runProgress()->isVisible());
  EXPECT_TRUE(w.statusBar()->currentMessage().startsWith(QStringLiteral("Done in")))
      << w.statusBar()->currentMessage().toStdString();

  ASSERT_TRUE(w.startSession(c));
  EXPECT_FALSE(w.statusBar()->currentMessage().startsWith(QStringLiteral("Done in")));
  EXPECT_TRUE(w.runProgress()->isVisible());
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && !w.session()->running(); }, 60000));
}

// Help: every control of the panel explains itself, and Help > Keyboard shortcuts lists what the menus bind
// (read from the menus, so it cannot drift).
TEST(WindowHelp, EveryControlHasATooltipAndShortcutsAreListed) {
  MainWindow w(false);
  for (QWidget* c : w.controls()->findChildren<QWidget*>()) {
    if (!qobject_cast<QAbstractButton*>(c) && !qobject_cast<QComboBox*>(c) && !qobject_cast<QLineEdit*>(c))
      continue;
    if (qobject_cast<QComboBox*>(c->parentWidget())) continue;  // a combo box's own line edit
    EXPECT_FALSE(c->toolTip().isEmpty())
        << c->metaObject()->className() << " " << c->objectName().toStdString() << " "
        << c->property("text").toString().toStdString();
  }
  const QStringList shortcuts = menuShortcuts(w.menuBar());
  EXPECT_TRUE(shortcuts.contains(QStringLiteral("Run > Explore\tF5"))) << shortcuts.join('\n').toStdString();
  EXPECT_GE(shortcuts.size(), 10);
}

// A count axis (units used) ticked "bank 2.5"; it ticks whole numbers, on linear and log scales.
TEST(WindowPlots, CountAxesTickWholeNumbers) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(w.startSession(test::smallConfig()));
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && !w.session()->running(); }, 60000));
  ParetoPlot* p = w.pareto();
  ASSERT_FALSE(p->points().empty());
  p->setObjectives(Objective::SimulatedTime, Objective::UnitsUsed);
  for (bool log : {false, true}) {
    p->setLogAxes(log);
    // Zoomed in to a narrow band of counts, where the default ticker falls back to fractions.
    p->plot()->yAxis->setRange(60, 62);
    p->plot()->replot();
    const QVector<double> ticks = p->plot()->yAxis->tickVector();
    ASSERT_FALSE(ticks.isEmpty());
    for (double t : ticks) EXPECT_EQ(t, std::round(t)) << (log ? "log " : "linear ") << t;
  }
}
