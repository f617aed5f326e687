// SPDX-License-Identifier: Apache-2.0
// A conv layer on a pim-hierarchy backend in the window, offscreen, as a user sees it (issue 20, part 9): the
// controls show only what the family reads, the table lists mappings with their row activations, the Pareto
// plot offers row activations as an axis, the heat map shows banks against time slices with the tensor each
// bank holds, and the details pane shows the loop nest. Set PIMSCOPE_SCREENSHOTS=<dir> to keep the pictures.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "engine/core/problem.h"
#include "gui_test_util.h"
#include "views/control_panel.h"
#include "views/draft_analysis.h"
#include "views/draft_details.h"
#include "views/draft_table_model.h"
#include "views/draft_table_panel.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/run_confirmation.h"
#include "views/unit_heatmap.h"

using namespace pimgui;

namespace {

SessionConfig convConfig() {
  SessionConfig c;
  c.backend = "pimopt-small";
  c.kernel = "conv2d";
  c.shape = "n=1,k=8,c=8,p=4,q=4,r=3,s=3";
  c.strategy = "exhaustive";
  return c;
}

/// The visible check boxes of the control panel whose text starts with `prefix`.
int visibleBoxes(const ControlPanel& panel, const QString& prefix) {
  int n = 0;
  for (const QCheckBox* box : panel.findChildren<QCheckBox*>())
    n += box->isVisible() && box->text().startsWith(prefix);
  return n;
}

}  // namespace

TEST(PimHierarchyViews, ControlsShowOnlyTheSettingsTheFamilyReads) {
  MainWindow w(false);
  w.show();
  SessionConfig dcc = convConfig();
  dcc.backend = "hbm-pim";
  dcc.kernel = "gemv";
  dcc.shape = "b=1,out=256,in=256";
  dcc.model = pim::LabelModel::DccKernel;
  w.controls()->setConfig(dcc);
  EXPECT_TRUE(w.controls()->residentField()->isVisible());
  EXPECT_GT(visibleBoxes(*w.controls(), "Rule "), 0);
  EXPECT_EQ(visibleBoxes(*w.controls(), "Optimizer "), 2);
  EXPECT_EQ(w.controls()->config().model, pim::LabelModel::DccKernel);

  SessionConfig conv = convConfig();
  conv.model = pim::LabelModel::DccKernel;  // kept from a DRAM-PIM backend: hidden here, not applied
  w.controls()->setConfig(conv);
  EXPECT_FALSE(w.controls()->residentField()->isVisible());
  EXPECT_EQ(visibleBoxes(*w.controls(), "Rule "), 0);
  EXPECT_EQ(visibleBoxes(*w.controls(), "Optimizer "), 0);
  EXPECT_EQ(w.controls()->config().model, pim::LabelModel::PimScope);
  // A resident list that would be wrong for the kernel does not block a family that does not read it.
  w.controls()->residentField()->setText(QStringLiteral("nosuch"));
  EXPECT_TRUE(w.controls()->inputError().isEmpty()) << w.controls()->inputError().toStdString();
}

TEST(PimHierarchyViews, ConvLayerShowsMappingsRowActivationsAndTheLoopNest) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(w.startSession(convConfig()));
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running(); }, 120000));
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.analysis()->latest() != nullptr; }, 60000));
  // No tensor of a conv mapping is "resident": the title says none.
  EXPECT_EQ(w.session()->problem()->title().find("resident"), std::string::npos);

  // Table: mapping labels under the family's own title, row activations as columns.
  const DraftTableModel& m = *w.model();
  EXPECT_EQ(m.headerData(DraftTableModel::Parts, Qt::Horizontal).toString(), "Mapping | layout");
  const int total = test::columnTitled(m, QStringLiteral("row acts total"));
  ASSERT_GE(total, 0);
  int evaluated = 0;
  for (int r = 0; r < m.keptRows(); ++r) {
    if (!m.row(r).simulated) continue;
    ++evaluated;
    EXPECT_TRUE(m.data(m.index(r, total), Qt::DisplayRole).isValid());
  }
  ASSERT_GT(evaluated, 1);
  EXPECT_TRUE(m.data(m.index(0, DraftTableModel::Parts), Qt::DisplayRole).toString().contains("layout"));
  // A mapping has no host rearrangement and no group padding: those columns are hidden, not zeros.
  for (int c : {DraftTableModel::InRearr, DraftTableModel::OutRearr, DraftTableModel::Padding}) {
    EXPECT_FALSE(m.reports(c)) << c;
    EXPECT_TRUE(w.table()->view()->isColumnHidden(c)) << c;
    EXPECT_EQ(m.data(m.index(0, c), Qt::DisplayRole).toString(), QStringLiteral("–")) << c;
  }
  EXPECT_FALSE(w.table()->view()->isColumnHidden(DraftTableModel::Compute));

  // Pareto: row activations as an axis, one point per evaluated mapping.
  ParetoPlot* plot = w.pareto();
  ASSERT_EQ(plot->axisCount(), kObjectiveCount + 4);
  EXPECT_FALSE(plot->offersAxis(Objective::RearrangementTime));  // no host rearrangement: not offered
  EXPECT_TRUE(plot->offersAxis(Objective::ComputeTime));
  plot->setObjectives(Objective::SimulatedTime, static_cast<Objective>(kObjectiveCount + 3));
  EXPECT_EQ(plot->plot()->yAxis->label(), "Row acts total (count)");
  EXPECT_EQ(static_cast<int>(plot->points().size()), evaluated);
  for (const auto& p : plot->points()) EXPECT_GE(p.y, 1.0);  // every layer's data comes from DRAM

  // Heat map: banks against time slices, per-bank row activations, the bank's tensor in the tooltip.
  UnitHeatmap* hm = w.heatmap();
  EXPECT_EQ(hm->geometry().outerName, "time slice");
  EXPECT_EQ(hm->geometry().innerName, "bank");
  hm->setMetric("activations");
  double activations = 0;
  bool named = false;
  for (int o = 0; o < hm->geometry().outerCount; ++o)
    for (int i = 0; i < hm->geometry().innerCount; ++i) {
      activations += hm->cellValue(o, i);
      const QString tip = hm->cellTooltip(o, i);
      named = named || tip.contains("input") || tip.contains("weight") || tip.contains("output");
    }
  EXPECT_GT(activations, 0);
  EXPECT_TRUE(named);

  // Details: the loop nest.
  EXPECT_TRUE(w.details()->commands()->toPlainText().contains("for "))
      << w.details()->commands()->toPlainText().toStdString();

  QTemporaryDir tmp;
  const QString keep = qEnvironmentVariable("PIMSCOPE_SCREENSHOTS");
  EXPECT_GE(w.saveScreenshots(keep.isEmpty() ? tmp.path() : keep).size(), 4);
}

// Before a run the window maps the layer (the searches behind the candidate list), showing each search's
// best, bound and gap as it goes; Cancel stops it and no run starts.
TEST(PimHierarchyViews, TheLayerSolveIsShownLiveAndCancelStopsIt) {
  RunConfirmation confirm(nullptr);
  QStringList seen;
  QObject::connect(&confirm, &RunConfirmation::estimatingChanged, [&](const QString& what) { seen << what; });
  QSignalSpy cancelled(&confirm, &RunConfirmation::estimateCancelled);
  SessionConfig c = convConfig();
  c.backend = "pimopt-default";
  c.kernel = "conv2d_s2";
  c.shape = "n=1,k=64,c=3,p=56,q=56,r=7,s=7";  // seconds of searching: no other test maps it
  bool started = false;
  confirm.request(c, [&] { started = true; });
  auto live = [&] {
    for (const QString& s : seen)
      if (s.startsWith("mapping the layer (latency, 1 of 3): best ") && s.contains(", gap ")) return true;
    return false;
  };
  ASSERT_TRUE(test::waitFor(live, 60000)) << seen.join('\n').toStdString();
  confirm.cancel();
  EXPECT_EQ(cancelled.count(), 1);
  EXPECT_FALSE(confirm.estimating());
  QTest::qWait(300);
  EXPECT_FALSE(started);
}
