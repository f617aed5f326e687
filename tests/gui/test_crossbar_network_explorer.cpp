// SPDX-License-Identifier: Apache-2.0
// A whole network in the main window, offscreen (issue 19, part 7): a shipped network picked in the Kernel
// box explores on a crossbar backend with its compiles as rows of the drafts table (period, throughput,
// replicas, crossbars), the cores in the heat map, and a session that reopens as the network; a DRAM-PIM
// backend refuses it in the banner with the way to run it.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QPushButton>
#include <QTemporaryDir>
#include <algorithm>

#include <qcustomplot.h>
#include <QTabWidget>
#include "gui_test_util.h"
#include "views/control_panel.h"
#include "views/draft_analysis.h"
#include "views/draft_details.h"
#include "views/draft_selection.h"
#include "views/draft_table_model.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/stage_chart.h"
#include "views/unit_heatmap.h"
#include "views/verdict_banner.h"

using namespace pimgui;

namespace {

SessionConfig networkConfig() {
  SessionConfig c;
  c.backend = "crossbar-pimcomp";
  c.network = "lenet5";
  c.strategy = "exhaustive";
  c.maxSimulations = 5;  // an even sample of the 7 compiles (lenet5's genetic searches take a second each)
  return c;
}

QComboBox* kernelBox(ControlPanel* panel) {
  for (QComboBox* box : panel->findChildren<QComboBox*>())
    if (box->findData(QStringLiteral("network:lenet5")) >= 0) return box;
  return nullptr;
}

}  // namespace

TEST(CrossbarNetworkExplorer, ANetworksCompilesAreRowsAndItsSessionReopensAsTheNetwork) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  w.controls()->setConfig(networkConfig());
  EXPECT_EQ(w.controls()->config().network, "lenet5");
  EXPECT_EQ(w.controls()->config().kernel, "");
  ASSERT_TRUE(w.startSession(networkConfig()));
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running(); }, 120000));
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.analysis()->latest() != nullptr; }, 60000));
  EXPECT_EQ(w.session()->problem()->title(), "lenet5 (network) on crossbar-pimcomp");

  const DraftTableModel& m = *w.model();
  const int period = test::columnTitled(m, QStringLiteral("period"));
  const int crossbars = test::columnTitled(m, QStringLiteral("crossbars used"));
  const int throughput = test::columnTitled(m, QStringLiteral("throughput"));
  ASSERT_GE(throughput, 0);
  ASSERT_GE(period, 0);
  ASSERT_GE(crossbars, 0);
  int simulated = 0, searches = 0, htPeriods = 0;
  for (int r = 0; r < m.keptRows(); ++r) {
    const QString label = m.data(m.index(r, DraftTableModel::Parts), Qt::DisplayRole).toString();
    searches += label.endsWith(QStringLiteral(" · ga"));
    if (!m.row(r).simulated) continue;
    ++simulated;
    EXPECT_GT(m.data(m.index(r, crossbars), Qt::DisplayRole).toString().remove(',').toDouble(), 0) << r;
    htPeriods += label.startsWith(QStringLiteral("HT · ")) &&
                 m.data(m.index(r, period), Qt::DisplayRole).toString().remove(',').toDouble() > 0;
  }
  EXPECT_EQ(simulated, m.simulatedRows());
  EXPECT_GT(simulated, 2);
  EXPECT_LE(simulated, 5);  // the cap
  EXPECT_EQ(searches, 3);   // HT x im2col and auto, LL x im2col (LL's auto keeps im2col everywhere)
  EXPECT_GT(htPeriods, 0);
  EXPECT_EQ(w.heatmap()->geometry().units(), 144);

  // The details pane's Stages tab draws the selected compile's layer pipeline: an HT row's bottleneck marked.
  quint64 ht = 0;
  for (int r = 0; r < m.keptRows(); ++r)
    if (m.row(r).simulated && m.data(m.index(r, DraftTableModel::Parts)).toString().startsWith("HT · "))
      ht = m.row(r).draft.id;
  w.selection()->set({ht});
  ASSERT_TRUE(test::waitFor(
      [&] { return w.idle() && w.analysis()->latest() && w.analysis()->latest()->draft.id == ht; }, 60000));
  QTabWidget* tabs = w.details()->tabs();
  EXPECT_TRUE(tabs->isTabEnabled(tabs->indexOf(w.details()->stages())));
  EXPECT_GE(w.details()->stages()->bottleneck(), 0);
  EXPECT_EQ(w.details()->stages()->plot()->plottableCount(), 4);  // MVM, vector, memory, communication

  // Throughput is a figure where more is better: on its axis the front keeps the highest, not the lowest.
  const int throughputAxis = kObjectiveCount + throughput - DraftTableModel::ColumnCount;
  ASSERT_EQ(m.factColumn(throughput)->key, "throughput_per_s");
  w.pareto()->setObjectives(static_cast<Objective>(throughputAxis), Objective::Energy);
  const auto& points = w.pareto()->points();
  ASSERT_FALSE(points.empty());
  // On the front exactly the points no other point beats on both: more throughput and less energy.
  for (const auto& p : points) {
    const bool beaten = std::any_of(points.begin(), points.end(), [&](const auto& q) {
      return q.x >= p.x && q.y <= p.y && (q.x > p.x || q.y < p.y);
    });
    EXPECT_EQ(p.front, !beaten) << p.x << " samples/s, " << p.y;
  }
  EXPECT_TRUE(w.pareto()->plot()->xAxis->label().contains(QStringLiteral("higher is better")));

  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("lenet5.pimsession"));
  QString error;
  ASSERT_TRUE(w.saveSession(path, &error)) << error.toStdString();
  MainWindow v(false);
  v.show();
  ASSERT_TRUE(v.openSession(path, &error)) << error.toStdString();
  EXPECT_EQ(v.session()->config().network, "lenet5");
  EXPECT_EQ(v.controls()->config().network, "lenet5");
  ASSERT_TRUE(test::waitFor([&] { return v.idle() && v.model()->keptRows() == m.keptRows(); }, 60000));
  EXPECT_EQ(v.model()->simulatedRows(), simulated);
}

TEST(CrossbarNetworkExplorer, AKernelBackendRefusesANetworkInTheBannerAndItHasNoResidency) {
  MainWindow w(false);
  QComboBox* kernel = kernelBox(w.controls());
  ASSERT_NE(kernel, nullptr);
  SessionConfig c = networkConfig();
  c.backend = "hbm-pim";
  c.network.clear();
  w.controls()->setConfig(c);
  w.show();
  EXPECT_TRUE(w.controls()->residentField()->isVisible());  // gemv on hbm-pim: W resident
  kernel->setCurrentIndex(kernel->findData(QStringLiteral("network:lenet5")));
  EXPECT_FALSE(w.controls()->residentField()->isVisible());  // a network has no tensors to keep
  const QString why = w.verdictBanner()->verdict();
  EXPECT_TRUE(why.startsWith(QStringLiteral("lenet5 cannot run on hbm-pim"))) << why.toStdString();
  EXPECT_TRUE(why.contains(QStringLiteral("compare --network lenet5"))) << why.toStdString();
}
