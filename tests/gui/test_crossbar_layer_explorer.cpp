// SPDX-License-Identifier: Apache-2.0
// One conv layer on a crossbar backend in the main window, offscreen, as a user sees it (issue 19, part 7):
// compiled candidates are rows of the drafts table with the family's columns, the heat map draws the
// accelerator's cores with the per-core statistics and names the core in its tooltip (a kernel that is not
// one layer: tests/gui/test_verdicts.cpp). Set PIMSCOPE_SCREENSHOTS=<dir> to keep the pictures.
#include <gtest/gtest.h>

#include <QTemporaryDir>

#include "engine/target/crossbar/core_statistics.h"
#include "gui_test_util.h"
#include "views/control_panel.h"
#include "views/draft_analysis.h"
#include "views/draft_row.h"
#include "views/draft_table_model.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/unit_heatmap.h"

using namespace pimgui;

namespace {

SessionConfig layerConfig() {
  SessionConfig c;
  c.backend = "crossbar-pimcomp";
  c.kernel = "conv2d";
  c.shape = "n=1,k=16,c=8,p=8,q=8,r=3,s=3";
  c.strategy = "exhaustive";
  return c;
}

}  // namespace

TEST(CrossbarLayerExplorer, CompiledCandidatesAreRowsAndCoresAreTheHeatMap) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(w.startSession(layerConfig()));
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running(); }, 120000));
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.analysis()->latest() != nullptr; }, 60000));

  const DraftTableModel& m = *w.model();
  EXPECT_EQ(m.headerData(DraftTableModel::Parts, Qt::Horizontal).toString(),
            "Mode · unfolding · replication");
  const int replicas = test::columnTitled(m, QStringLiteral("replicas"));
  const int crossbars = test::columnTitled(m, QStringLiteral("crossbars used"));
  ASSERT_GE(replicas, 0);
  ASSERT_GE(crossbars, 0);
  int rows = 0;
  bool ht = false, ll = false;
  for (int r = 0; r < m.keptRows(); ++r) {
    ASSERT_TRUE(m.row(r).simulated) << r;  // a handful of candidates: every one is compiled
    ++rows;
    const QString label = m.data(m.index(r, DraftTableModel::Parts), Qt::DisplayRole).toString();
    ht = ht || label.startsWith("HT · ");
    ll = ll || label.startsWith("LL · ");
    EXPECT_GE(m.data(m.index(r, replicas), Qt::DisplayRole).toString().toDouble(), 1) << r;
  }
  EXPECT_GT(rows, 2);
  EXPECT_TRUE(ht && ll);

  UnitHeatmap* hm = w.heatmap();
  EXPECT_EQ(hm->geometry().outerName, "core row");
  EXPECT_EQ(hm->geometry().innerName, "core");
  EXPECT_EQ(hm->geometry().units(), 144);  // crossbar-pimcomp's 12 x 12 cores
  hm->setMetric(pim::crossbarCoreStatistics().front().key);
  double use = 0;
  bool named = false;
  for (int o = 0; o < hm->geometry().outerCount; ++o)
    for (int i = 0; i < hm->geometry().innerCount; ++i) {
      use += hm->cellValue(o, i);
      named = named || hm->cellTooltip(o, i).contains(QStringLiteral("of the accelerator; layer: "));
    }
  EXPECT_GT(use, 0);
  EXPECT_TRUE(named);

  QTemporaryDir tmp;
  const QString keep = qEnvironmentVariable("PIMSCOPE_SCREENSHOTS");
  EXPECT_GE(w.saveScreenshots(keep.isEmpty() ? tmp.path() : keep).size(), 4);
}

// The Timing box (crossbar backends only) times every compiled candidate as the engine does in that mode,
// and a saved session reopens with it; a backend that does not read it neither shows nor applies it.
TEST(CrossbarLayerExplorer, TheTimingBoxTimesTheCandidatesAndIsSaved) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  SessionConfig c = layerConfig();
  c.crossbarTiming = pim::xbar::TimingModel::Intended;
  w.controls()->setConfig(c);
  EXPECT_TRUE(w.controls()->timingBox()->isVisible());
  EXPECT_EQ(w.controls()->config().crossbarTiming, pim::xbar::TimingModel::Intended);
  ASSERT_TRUE(w.startSession(c));
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running(); }, 120000));
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
  const auto problem = w.session()->problem();
  const pim::ITarget& target = pim::targetOf(problem->backend());
  pim::EvalOptions intended, compatible;
  intended.sim.crossbarTiming = pim::xbar::TimingModel::Intended;
  const DraftTableModel& m = *w.model();
  ASSERT_GT(m.keptRows(), 0);
  for (int r = 0; r < m.keptRows(); ++r) {
    const DraftRow& row = m.row(r);
    ASSERT_TRUE(row.simulated) << r;
    EXPECT_EQ(row.simulated->timeNs, target.evaluate(*problem, row.draft, intended).timeNs) << r;
    EXPECT_NE(row.simulated->timeNs, target.evaluate(*problem, row.draft, compatible).timeNs) << r;
  }

  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("intended.pimsession"));
  QString error;
  ASSERT_TRUE(w.saveSession(path, &error)) << error.toStdString();
  MainWindow v(false);
  v.show();
  ASSERT_TRUE(v.openSession(path, &error)) << error.toStdString();
  EXPECT_EQ(v.session()->config().crossbarTiming, pim::xbar::TimingModel::Intended);
  EXPECT_EQ(v.controls()->config().crossbarTiming, pim::xbar::TimingModel::Intended);

  SessionConfig dram;
  dram.backend = "hbm-pim";
  dram.kernel = "red";
  dram.shape = "n=1024";
  dram.crossbarTiming =
      pim::xbar::TimingModel::Intended;  // kept from a crossbar backend: hidden, not applied
  w.controls()->setConfig(dram);
  EXPECT_FALSE(w.controls()->timingBox()->isVisible());
  EXPECT_EQ(w.controls()->config().crossbarTiming, pim::xbar::TimingModel::PimcompNn);
}
