// SPDX-License-Identifier: Apache-2.0
// The tests' roofline family (tests/families/roofline_target.h) appears in every view, offscreen, from its
// target's declarations alone: table (its unit name on the units column), breakdown, Pareto plot, heat map
// (its geometry and statistics), details (its listing) and compare. Set PIMSCOPE_SCREENSHOTS=<dir> to keep
// the pictures.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <algorithm>

#include "engine/core/problem.h"
#include "engine/target/registry.h"
#include "gui_test_util.h"
#include "tests/families/roofline_target.h"
#include "views/breakdown_chart.h"
#include "views/compare_view.h"
#include "views/draft_analysis.h"
#include "views/draft_details.h"
#include "views/draft_table_model.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/unit_heatmap.h"

using namespace pimgui;

namespace {

SessionConfig rooflineConfig() {
  SessionConfig c;
  c.backend = "roofline-test";
  c.kernel = "mul";
  c.shape = "b=1,n=4096";
  c.strategy = "exhaustive";
  return c;
}

QString screenshotDir(const QTemporaryDir& tmp) {
  const QString keep = qEnvironmentVariable("PIMSCOPE_SCREENSHOTS");
  return keep.isEmpty() ? tmp.path() : keep;
}

/// A picture that is not one flat colour (something was drawn).
bool drawn(const QString& path) {
  const QImage img(path);
  if (img.isNull()) return false;
  const QRgb first = img.pixel(0, 0);
  for (int y = 0; y < img.height(); y += 7)
    for (int x = 0; x < img.width(); x += 7)
      if (img.pixel(x, y) != first) return true;
  return false;
}

}  // namespace

TEST(TargetFamilyViews, RooflineFamilyAppearsInEveryView) {
  const pim::Backend& backend = pim::test::registerRooflineFamily();
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(w.startSession(rooflineConfig()));
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running(); }, 60000));
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.analysis()->latest() != nullptr; }, 60000));

  // Table: simulated (analytic) rows, and the units column named by the family's geometry.
  int evaluated = 0;
  for (int r = 0; r < w.model()->keptRows(); ++r) evaluated += w.model()->row(r).simulated != nullptr;
  EXPECT_GT(evaluated, 0);
  EXPECT_EQ(w.model()->headerData(DraftTableModel::UnitsUsed, Qt::Horizontal).toString(), "Cores");
  // Pareto: one point per evaluated draft.
  EXPECT_EQ(static_cast<int>(w.pareto()->points().size()), evaluated);
  w.pareto()->setObjectives(Objective::SimulatedTime, Objective::UnitsUsed);
  EXPECT_EQ(w.pareto()->plot()->yAxis->label(), "Cores used");
  // Breakdown: the best draft's bar in the family's categories, its compute phase split into the two
  // sub-phases it declares.
  ASSERT_FALSE(w.breakdown()->bars().empty());
  QStringList categories;
  for (const BreakdownBar::Segment& s : w.breakdown()->bars().front().segments) categories << s.category;
  EXPECT_EQ(categories,
            (QStringList{"Input rearrangement", "operations", "local-memory stall", "Output rearrangement"}));
  // Heat map: the family's chips x cores and its declared statistics.
  const auto analysis = w.analysis()->latest();
  ASSERT_TRUE(analysis->evaluation.has_value()) << analysis->error;
  UnitHeatmap* hm = w.heatmap();
  EXPECT_EQ(hm->geometry().outerName, "chip");
  EXPECT_EQ(hm->geometry().outerCount, backend.totalGroups());
  EXPECT_EQ(hm->geometry().innerCount, backend.coresPerGroup());
  QStringList keys;
  for (const auto& m : hm->metrics()) keys << QString::fromStdString(m.key);
  EXPECT_EQ(keys, (QStringList{"bytes", "ops", "busy_ns"}));
  hm->setMetric("busy_ns");
  const pim::UnitStatistics& stats = analysis->evaluation->unitStats;
  for (std::size_t u = 0; u < stats.units(); ++u) {
    const int inner = hm->geometry().innerCount;
    EXPECT_DOUBLE_EQ(hm->cellValue(static_cast<int>(u) / inner, static_cast<int>(u) % inner), stats.at(u, 2));
  }
  EXPECT_TRUE(hm->cellTooltip(0, 0).contains("Chip 0, core 0"));
  // Every used core is equally busy: the colour scale still spans 0 to that value (QCustomPlot's own rescale
  // kept the previous metric's range when every cell was equal).
  double busiest = 0;
  for (std::size_t u = 0; u < stats.units(); ++u) busiest = std::max(busiest, stats.at(u, 2));
  const auto* scale = static_cast<QCPColorScale*>(hm->plot()->plotLayout()->element(0, 1));
  EXPECT_DOUBLE_EQ(scale->axis()->range().lower, 0.0);
  EXPECT_DOUBLE_EQ(scale->axis()->range().upper, busiest);
  // Details: the family's listing.
  EXPECT_TRUE(w.details()->commands()->toPlainText().startsWith("chip 0 core 0: load "));

  QTemporaryDir tmp;
  const QString dir = screenshotDir(tmp);
  const QStringList shots = w.saveScreenshots(dir);
  EXPECT_GE(shots.size(), 6);
  for (const QString& s : shots) EXPECT_TRUE(drawn(s)) << s.toStdString();

  // Compare: the family beside a DRAM-PIM backend, with its reasons for the baselines it lacks.
  CompareView v;
  v.resize(1100, 700);
  v.show();
  v.loadProblem(rooflineConfig());
  v.choose({"hbm-pim", "roofline-test"}, "hbm-pim");
  QSignalSpy done(&v, &CompareView::done);
  ASSERT_TRUE(v.compare());
  ASSERT_TRUE(test::waitFor([&] { return done.count() > 0; }, 120000));
  ASSERT_NE(v.comparison(), nullptr);
  bool listed = false;
  for (int r = 0; r < v.table()->rowCount(); ++r)
    for (int c = 0; c < v.table()->columnCount(); ++c)
      if (auto* item = v.table()->item(r, c); item && item->text() == "roofline-test") listed = true;
  EXPECT_TRUE(listed);
  const QString comparePng = QDir(dir).filePath("compare.png");
  ASSERT_TRUE(v.grab().save(comparePng));
  EXPECT_TRUE(drawn(comparePng));
}
