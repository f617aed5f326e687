// SPDX-License-Identifier: Apache-2.0
// Compile a network (issue 19) in the window: the rows are compileNetwork's numbers, the per-core map and the
// layer pipeline show the selected row, the Pareto plot takes every candidate, a network file that does not
// load is refused in the status line, Cancel during the genetic search keeps the rows already compiled, and
// the Run menu opens the view.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QMenuBar>
#include <QTabWidget>
#include <QTableWidget>

#include "engine/kernel/network.h"
#include "engine/target/crossbar/network_compile.h"
#include "engine/target/registry.h"
#include "gui_test_util.h"
#include "tests/test_util.h"
#include "views/core_map.h"
#include "views/main_window.h"
#include "views/network_compare_panel.h"
#include "views/network_compile_view.h"
#include "views/stage_chart.h"

using namespace pimgui;
using pimgui::test::waitFor;

namespace {

void only(NetworkCompileView& v, std::initializer_list<const char*> methods) {
  for (const std::string& name : pim::compileMethodNames()) {
    bool on = false;
    for (const char* m : methods) on = on || name == m;
    v.methodBox(QString::fromStdString(name))->setChecked(on);
  }
}

bool compileAndWait(NetworkCompileView& v, int timeoutMs = 60000) {
  v.compile();
  return waitFor([&] { return !v.running(); }, timeoutMs);
}

int rowOf(const QTableWidget* t, const QString& method) {
  for (int r = 0; r < t->rowCount(); ++r)
    if (t->item(r, 0) && t->item(r, 0)->text() == method) return r;
  return -1;
}

TEST(NetworkCompileView, ListsCrossbarBackendsOnlyAndTheShippedNetworks) {
  NetworkCompileView v;
  ASSERT_GT(v.backendBox()->count(), 0);
  for (int i = 0; i < v.backendBox()->count(); ++i)
    EXPECT_TRUE(pim::compilesNetworks(pim::builtinBackends().get(v.backendBox()->itemText(i).toStdString())));
  EXPECT_EQ(v.backendBox()->currentText(), "crossbar-pimcomp");
  EXPECT_EQ(v.networkBox()->currentText(), "resnet18");
  EXPECT_EQ(static_cast<std::size_t>(v.networkBox()->count()), pim::builtinNetworkNames().size());
}

TEST(NetworkCompileView, RowsAreTheEnginesNumbersAndTheMapsShowTheSelectedRow) {
  NetworkCompileView v;
  only(v, {"balance", "w0h0"});
  // Before any point the log axes carry no numbers (a range of nothing would be invented); after, they do.
  EXPECT_EQ(v.pareto()->xAxis->scaleType(), QCPAxis::stLogarithmic);
  EXPECT_FALSE(v.pareto()->xAxis->tickLabels());
  ASSERT_TRUE(compileAndWait(v));
  ASSERT_EQ(v.table()->rowCount(), 2);
  EXPECT_TRUE(v.pareto()->xAxis->tickLabels());
  EXPECT_TRUE(v.pareto()->yAxis->tickLabels());
  pim::NetworkCompileRequest r;
  const pim::NetworkCompileResult engine =
      pim::compileNetwork(pim::builtinBackends().get("crossbar-pimcomp"),
                          pim::loadNetworkFile(pim::builtinNetworkPath("resnet18")), r);
  const int row = rowOf(v.table(), "balance");
  ASSERT_GE(row, 0);
  EXPECT_EQ(v.table()->item(row, NetworkCompileView::kPeriod)->text(),
            QString::number(*engine.periodNs / 1000.0, 'f', 1));
  EXPECT_EQ(v.table()->item(row, NetworkCompileView::kMvms)->text(), "132500");
  EXPECT_EQ(v.table()->item(row, NetworkCompileView::kUnfolding)->text(), "im2col");
  v.table()->selectRow(row);
  // Core 0 is full under first fit; the last core is empty (5,334 of 9,216 crossbars).
  EXPECT_DOUBLE_EQ(v.coreMap()->value(0), 100.0);
  EXPECT_DOUBLE_EQ(v.coreMap()->value(143), 0.0);
  EXPECT_TRUE(v.coreMap()->tooltip(0).contains("resnetv15_conv0_fwd"));
  EXPECT_EQ(v.coreMap()->coreAt(0, 0), 0);
  EXPECT_EQ(v.coreMap()->coreAt(11, 11), 143);
  v.coreMap()->setMetric(CoreMap::Metric::MvmBusy);
  EXPECT_GT(v.coreMap()->value(0), 0.0);
  EXPECT_LE(v.coreMap()->value(0), 100.0);
  // The bottleneck is a layer and the chart drew its four parts.
  EXPECT_GE(v.pipeline()->bottleneck(), 0);
  EXPECT_EQ(v.pipeline()->plot()->plottableCount(), 4);
  EXPECT_EQ(v.pareto()->graphCount(), 3);
}

TEST(NetworkCompileView, LlRowsShowLatencyAndTheLayerTimeline) {
  NetworkCompileView v;
  only(v, {"balance"});
  v.modeBox()->setCurrentIndex(v.modeBox()->findData("ll"));
  ASSERT_TRUE(compileAndWait(v));
  ASSERT_EQ(v.table()->rowCount(), 1);
  EXPECT_TRUE(v.table()->item(0, NetworkCompileView::kPeriod)->text().isEmpty());  // no period in LL
  EXPECT_FALSE(v.table()->item(0, NetworkCompileView::kLatency)->text().isEmpty());
  v.table()->selectRow(0);
  EXPECT_EQ(v.pipeline()->bottleneck(), -1);
  EXPECT_EQ(v.pipeline()->plot()->plottableCount(), 2);
}

TEST(NetworkCompileView, ANetworkThatDoesNotFitIsARowWithTheReason) {
  NetworkCompileView v;
  only(v, {"balance"});
  v.backendBox()->setCurrentText("crossbar-arch-c");
  ASSERT_TRUE(compileAndWait(v));
  ASSERT_EQ(v.table()->rowCount(), 1);
  EXPECT_TRUE(v.table()->item(0, NetworkCompileView::kNote)->text().contains("74 crossbars"))
      << v.table()->item(0, NetworkCompileView::kNote)->text().toStdString();
}

// In intended LL the core map shows each core's spill traffic, which sums to what the engine reports per
// core; PIMCOMP-NN's timing spills nothing and the metric falls back to crossbar use.
TEST(NetworkCompileView, IntendedLlMapsSpillTrafficPerCore) {
  NetworkCompileView v;
  only(v, {"balance"});
  v.modeBox()->setCurrentIndex(v.modeBox()->findData("ll"));
  v.timingBox()->setCurrentIndex(v.timingBox()->findData("intended"));
  ASSERT_TRUE(compileAndWait(v));
  ASSERT_EQ(v.table()->rowCount(), 1);
  v.table()->selectRow(0);
  v.coreMap()->setMetric(CoreMap::Metric::SpillTraffic);
  ASSERT_EQ(v.coreMap()->metric(), CoreMap::Metric::SpillTraffic);
  double kib = 0;
  for (int c = 0; c < 144; ++c) kib += v.coreMap()->value(c);
  EXPECT_GT(kib, 0);
  EXPECT_TRUE(v.table()->item(0, NetworkCompileView::kNote)->text().contains("through global memory"));
  v.timingBox()->setCurrentIndex(v.timingBox()->findData("pimcomp-nn"));
  ASSERT_TRUE(compileAndWait(v));
  v.table()->selectRow(v.table()->rowCount() - 1);
  EXPECT_EQ(v.coreMap()->metric(), CoreMap::Metric::CrossbarUse);
}

// A network packed largest first (node-order first fit cannot place it) is a result whose note says so.
TEST(NetworkCompileView, ARowSaysWhenTheAgsWerePackedLargestFirst) {
  NetworkCompileView v;
  only(v, {"balance"});
  v.networkBox()->setCurrentText("mobilenet_v1");
  v.backendBox()->setCurrentText("crossbar-arch-a");
  ASSERT_TRUE(compileAndWait(v));
  ASSERT_EQ(v.table()->rowCount(), 1);
  const QString note = v.table()->item(0, NetworkCompileView::kNote)->text();
  EXPECT_TRUE(note.contains("packed largest first")) << note.toStdString();
  EXPECT_TRUE(note.contains("replicas given back")) << note.toStdString();
  EXPECT_FALSE(v.table()->item(0, NetworkCompileView::kPeriod)->text().isEmpty());
}

// The unfolding box reaches the compile: IK,O,K's row has the engine's MVM count (three kernel rows per
// replica), and auto on ResNet-18 on crossbar-arch-a (12 arrays a core) is a row that says how many layers
// could not take the greedy's scatter format (a band wider than a core) and why.
TEST(NetworkCompileView, TheUnfoldingIsAChoiceAndAColumn) {
  NetworkCompileView v;
  only(v, {"balance"});
  v.unfoldingBox()->setCurrentIndex(v.unfoldingBox()->findData("IK,O,K"));
  ASSERT_TRUE(compileAndWait(v));
  pim::NetworkCompileRequest r;
  r.compile.unfolding.all = "IK,O,K";
  const pim::NetworkCompileResult engine =
      pim::compileNetwork(pim::builtinBackends().get("crossbar-pimcomp"),
                          pim::loadNetworkFile(pim::builtinNetworkPath("resnet18")), r);
  ASSERT_EQ(v.table()->rowCount(), 1);
  EXPECT_EQ(v.table()->item(0, NetworkCompileView::kUnfolding)->text(), "IK,O,K");
  EXPECT_EQ(v.table()->item(0, NetworkCompileView::kMvms)->text(), QString::number(engine.mvmCount));
  EXPECT_NE(engine.mvmCount, 132500);
  v.unfoldingBox()->setCurrentIndex(v.unfoldingBox()->findData("auto"));
  v.backendBox()->setCurrentText("crossbar-arch-a");
  ASSERT_TRUE(compileAndWait(v));
  ASSERT_EQ(v.table()->rowCount(), 2);
  // auto compiles with the formats each layer can run and says where the greedy preferred another.
  const int row = v.table()->item(0, NetworkCompileView::kUnfolding)->text().startsWith("auto") ? 0 : 1;
  EXPECT_TRUE(v.table()->item(row, NetworkCompileView::kUnfolding)->text().contains("I,OK2,1"))
      << v.table()->item(row, NetworkCompileView::kUnfolding)->text().toStdString();
  EXPECT_TRUE(v.table()
                  ->item(row, NetworkCompileView::kNote)
                  ->text()
                  .contains("auto unfolding: 6 layers take the best format the schedule runs in place of the "
                            "greedy's I,OK2,1 or IK,OK,1"))
      << v.table()->item(row, NetworkCompileView::kNote)->text().toStdString();
}

// The scatter formats are offered: LL and HT compile them (each row's MVMs are the engine's).
TEST(NetworkCompileView, ScatterUnfoldingsRunInLlAndHt) {
  NetworkCompileView v;
  only(v, {"balance"});
  v.unfoldingBox()->setCurrentIndex(v.unfoldingBox()->findData("IK,OK,1"));
  ASSERT_GE(v.unfoldingBox()->currentIndex(), 0);
  v.modeBox()->setCurrentIndex(v.modeBox()->findData("ll"));
  ASSERT_TRUE(compileAndWait(v));
  pim::NetworkCompileRequest r;
  r.compile.mode = pim::crossbar::PipelineMode::Ll;
  r.compile.unfolding.all = "IK,OK,1";
  const pim::NetworkCompileResult engine =
      pim::compileNetwork(pim::builtinBackends().get("crossbar-pimcomp"),
                          pim::loadNetworkFile(pim::builtinNetworkPath("resnet18")), r);
  ASSERT_EQ(v.table()->rowCount(), 1);
  EXPECT_EQ(v.table()->item(0, NetworkCompileView::kMvms)->text(), QString::number(engine.mvmCount));
  v.modeBox()->setCurrentIndex(v.modeBox()->findData("ht"));
  ASSERT_TRUE(compileAndWait(v));
  ASSERT_EQ(v.table()->rowCount(), 2);
  r.compile.mode = pim::crossbar::PipelineMode::Ht;
  const pim::NetworkCompileResult ht =
      pim::compileNetwork(pim::builtinBackends().get("crossbar-pimcomp"),
                          pim::loadNetworkFile(pim::builtinNetworkPath("resnet18")), r);
  EXPECT_EQ(ht.mvmCount, engine.mvmCount);  // windows x bands whatever the pipeline
  const int row = v.table()->item(0, NetworkCompileView::kMode)->text().contains("HT") ? 0 : 1;
  EXPECT_EQ(v.table()->item(row, NetworkCompileView::kMvms)->text(), QString::number(ht.mvmCount));
  EXPECT_FALSE(v.table()->item(row, NetworkCompileView::kPeriod)->text().isEmpty());
}

TEST(NetworkCompileView, ABadNetworkFileIsRefusedInTheStatusLine) {
  pim::test::TempDir dir;
  const std::string bad = dir.file("bad.json");
  pim::test::writeBytes(bad, "{\"node_list\": [");
  NetworkCompileView v;
  const int before = v.networkBox()->count();
  EXPECT_FALSE(v.openNetworkFile(QString::fromStdString(bad)));
  EXPECT_EQ(v.networkBox()->count(), before);
  EXPECT_TRUE(v.status()->text().contains("bad.json"));
}

TEST(NetworkCompileView, CancelDuringTheGeneticSearchKeepsTheRowsDoneAndTheSearchsBest) {
  NetworkCompileView v;
  only(v, {"balance", "ga"});
  v.compile();
  ASSERT_TRUE(waitFor([&] { return v.table()->rowCount() >= 1; }, 30000));
  QElapsedTimer t;
  t.start();
  v.cancel();
  EXPECT_TRUE(v.status()->text().startsWith("Stopping"));
  ASSERT_TRUE(waitFor([&] { return !v.running(); }, 5000));
  EXPECT_LT(t.elapsed(), 3000);
  EXPECT_TRUE(v.status()->text().startsWith("Cancelled")) << v.status()->text().toStdString();
  ASSERT_EQ(v.table()->rowCount(), 2);  // balance, and the search's best so far, compiled
  const int ga = rowOf(v.table(), "ga");
  ASSERT_GE(ga, 0);
  EXPECT_EQ(v.table()->item(ga, NetworkCompileView::kMvms)->text(), "132500");
  EXPECT_TRUE(
      v.table()->item(ga, NetworkCompileView::kNote)->text().contains("genetic search stopped after "))
      << v.table()->item(ga, NetworkCompileView::kNote)->text().toStdString();
  const auto& candidate = v.candidates().back();
  ASSERT_TRUE(candidate.result);
  EXPECT_TRUE(candidate.result->gaCancelled);
}

TEST(NetworkCompileView, CompareBackendsRunsTheNetworkOnCrossbarAndOtherBackends) {
  NetworkCompileView v;
  v.networkBox()->setCurrentText("lenet5");
  NetworkComparePanel* panel = v.compareBackends();
  panel->choose({"crossbar-arch-a", "pimopt-small", "hbm-pim"});
  panel->compare();
  ASSERT_TRUE(waitFor([&] { return !panel->running(); }, 120000));
  ASSERT_EQ(panel->totals()->rowCount(), 3) << panel->status()->text().toStdString();
  EXPECT_EQ(panel->totals()->item(0, 0)->text(), "crossbar-arch-a");
  EXPECT_EQ(panel->layers()->rowCount(), 5);  // lenet5's CONV and FC layers
  EXPECT_TRUE(panel->verdict()->text().contains("fastest on lenet5"));
  // hbm-pim runs no CONV layer: its cell is a dash saying why.
  int hbm = -1;
  for (int c = 0; c < panel->layers()->columnCount(); ++c)
    if (panel->layers()->horizontalHeaderItem(c)->text().startsWith("hbm-pim")) hbm = c;
  ASSERT_GT(hbm, 0);
  EXPECT_EQ(panel->layers()->item(0, hbm)->text(), "—");
  EXPECT_TRUE(panel->layers()->item(0, hbm)->toolTip().contains("conv-mapping hierarchy"));
  EXPECT_NE(panel->layers()->item(4, hbm)->text(), "—");  // the last FC runs as GEMV
}

// The compile view's Timing box times the crossbar backends of the comparison too.
TEST(NetworkCompileView, CompareBackendsTimesCrossbarBackendsAsTheTimingBoxSays) {
  NetworkCompileView v;
  v.networkBox()->setCurrentText("lenet5");
  v.timingBox()->setCurrentIndex(v.timingBox()->findData("intended"));
  NetworkComparePanel* panel = v.compareBackends();
  panel->choose({"crossbar-arch-a"});
  panel->compare();
  ASSERT_TRUE(waitFor([&] { return !panel->running(); }, 120000));
  ASSERT_EQ(panel->totals()->rowCount(), 1) << panel->status()->text().toStdString();
  EXPECT_TRUE(panel->totals()->item(0, 2)->text().contains("intended timing"))
      << panel->totals()->item(0, 2)->text().toStdString();
}

TEST(NetworkCompileView, CompareBackendsRefusesNoBackendInItsStatusLine) {
  NetworkCompileView v;
  v.compareBackends()->choose({});
  v.compareBackends()->compare();
  EXPECT_FALSE(v.compareBackends()->running());
  EXPECT_TRUE(v.compareBackends()->status()->text().contains("1 to 6"));
}

TEST(NetworkCompileView, TheRunMenuOpensIt) {
  MainWindow w(false);
  QAction* open = nullptr;
  for (QAction* a : w.menuBar()->findChildren<QAction*>())
    if (a->text().contains("Compile a &network")) open = a;
  ASSERT_NE(open, nullptr);
  open->trigger();
  EXPECT_TRUE(w.networkCompileView()->isVisible());
}

}  // namespace
