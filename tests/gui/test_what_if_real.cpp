// SPDX-License-Identifier: Apache-2.0
// What-if that is real (issue 17, item 6): the host fields feed the GPU baseline the speed-ups compare
// against, fields no result reads are shown disabled with the reason, every tooltip gives the unit and the
// source document, fields tied to each other apply together, the dock says what the re-run changed (not
// "re-exploring…" forever), and the Pareto plot keeps the front before the edit as a ghost.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSignalSpy>

#include "engine/target/registry.h"
#include "gui_test_util.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/what_if_panel.h"

using namespace pimgui;

namespace {

std::optional<double> gpuNs(const ExplorationSession& s) {
  for (const pim::Baseline& b : s.baselines())
    if (b.name == "gpu" && b.available) return b.eval.timeNs;
  return std::nullopt;
}

}  // namespace

TEST(WhatIfReal, HostFieldsAreDisabledWithTheReasonWhereNoResultReadsThem) {
  WhatIfPanel panel;
  panel.setBackend(pim::builtinBackends().get("hbm2-pim"));
  QDoubleSpinBox* host = panel.spinBox("system.hostTflops");
  ASSERT_NE(host, nullptr);
  EXPECT_FALSE(host->isEnabled());
  EXPECT_NE(host->toolTip().indexOf(QStringLiteral("reference A100")), -1) << host->toolTip().toStdString();
  EXPECT_NE(panel.unreadReason("pim.crfEntries").indexOf(QStringLiteral("documents")), -1);
  EXPECT_TRUE(panel.spinBox("timing.tRCDRD")->isEnabled());

  panel.setBackend(pim::builtinBackends().get("hbm-pim"));
  EXPECT_TRUE(panel.spinBox("system.hostTflops")->isEnabled());
  EXPECT_TRUE(panel.unreadReason("system.hostBandwidthGBps").isEmpty());
  EXPECT_FALSE(panel.spinBox("core.clockMHz")->isEnabled());
}

// A flag switches the field it chooses between: AttAcc's MAC spacing without the power constraint.
TEST(WhatIfReal, AFlagEnablesTheFieldItSwitchesOn) {
  WhatIfPanel panel;
  panel.setBackend(pim::builtinBackends().get("attacc"));
  EXPECT_FALSE(panel.spinBox("pim.MACAB_to_MACAB_nopower")->isEnabled());
  ASSERT_TRUE(panel.applyValue("pim.power_constraint", 0));
  EXPECT_TRUE(panel.spinBox("pim.MACAB_to_MACAB_nopower")->isEnabled());
}

TEST(WhatIfReal, EveryTooltipGivesTheUnitAndTheSourceDocument) {
  WhatIfPanel panel;
  const pim::Backend& b = pim::builtinBackends().get("attacc");
  panel.setBackend(b);
  int checked = 0;
  for (const pim::Parameter& p : b.parameters) {
    const QDoubleSpinBox* spin = panel.spinBox(p.key);
    if (!spin) continue;
    const QString tip = spin->toolTip();
    EXPECT_NE(tip.indexOf(QStringLiteral("unit: ")), -1) << p.key;
    EXPECT_NE(tip.indexOf(QStringLiteral("source: ") + QString::fromStdString(p.source)), -1) << p.key;
    ++checked;
  }
  EXPECT_GT(checked, 40);
  const QString tip = panel.spinBox("system.hostBandwidthGBps")->toolTip();
  EXPECT_NE(tip.indexOf(QStringLiteral("unit: GB/s")), -1) << tip.toStdString();
  EXPECT_NE(tip.indexOf(QStringLiteral("attacc = shared/specs/attacc.md")), -1) << tip.toStdString();
}

TEST(WhatIfReal, HostBandwidthMovesTheGpuBaselineAndThePlotKeepsTheFrontBefore) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  w.whatIf()->setDebounceMs(10);
  ASSERT_TRUE(w.startSession(test::smallConfig()));
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && !w.session()->baselines().empty(); }, 60000));
  const auto gpuBefore = gpuNs(*w.session());
  ASSERT_TRUE(gpuBefore);
  const std::size_t frontBefore = std::count_if(w.pareto()->points().begin(), w.pareto()->points().end(),
                                                [](const ParetoPlot::Point& p) { return p.front; });
  ASSERT_GT(frontBefore, 0u);
  EXPECT_EQ(w.pareto()->ghost(), nullptr);

  ASSERT_TRUE(w.whatIf()->applyValue("system.hostBandwidthGBps", 6704));
  EXPECT_NE(w.whatIf()->message().indexOf(QStringLiteral("re-exploring")), -1);
  ASSERT_TRUE(test::waitFor([&] { return w.session()->config().backendOverride && w.idle(); }, 60000));
  const auto gpuAfter = gpuNs(*w.session());
  ASSERT_TRUE(gpuAfter);
  EXPECT_NEAR(*gpuAfter, *gpuBefore / 2, *gpuBefore * 1e-6);  // a reduction is memory-bound on the GPU

  // The dock says what the run changed, with both GPU times, instead of "re-exploring…".
  const QString note = w.whatIf()->message();
  EXPECT_EQ(note.indexOf(QStringLiteral("re-exploring")), -1) << note.toStdString();
  EXPECT_NE(note.indexOf(QStringLiteral("GPU only")), -1) << note.toStdString();
  EXPECT_NE(note.indexOf(QStringLiteral("%1 µs").arg(*gpuBefore / 1e3, 0, 'f', 2)), -1) << note.toStdString();

  // The front before the edit stays on the plot, named after the value it had, in the legend.
  ASSERT_NE(w.pareto()->ghost(), nullptr);
  EXPECT_EQ(w.pareto()->ghost()->label, QStringLiteral("front before (hostBandwidthGBps 3352)"));
  EXPECT_EQ(w.pareto()->ghostFront().size(), frontBefore);
  QCPLegend* legend = w.pareto()->plot()->legend;
  bool named = false;
  for (int i = 0; i < legend->itemCount(); ++i)
    if (auto* item = qobject_cast<QCPPlottableLegendItem*>(legend->item(i)))
      named = named || item->plottable()->name() == w.pareto()->ghost()->label;
  EXPECT_TRUE(named);
  if (const QByteArray dir = qgetenv("PIMSCOPE_SCREENSHOTS"); !dir.isEmpty()) {
    QDir().mkpath(QString::fromLocal8Bit(dir));
    w.pareto()->grab().save(QDir(QString::fromLocal8Bit(dir)).filePath(QStringLiteral("whatif_ghost.png")));
    w.saveScreenshots(QString::fromLocal8Bit(dir));
  }

  // A run of another problem is not compared with the edit's: the ghost goes.
  SessionConfig other = test::smallConfig();
  other.shape = "b=1,n=2048";
  ASSERT_TRUE(w.startSession(other));
  EXPECT_EQ(w.pareto()->ghost(), nullptr);
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
}

// The legend has a row of its own under the axes: it can never cover a point.
TEST(WhatIfReal, TheParetoLegendSitsOutsideTheData) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(w.startSession(test::smallConfig()));
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
  QCustomPlot* plot = w.pareto()->plot();
  plot->replot();
  const QRect legend = plot->legend->outerRect();
  const QRect data = plot->axisRect()->rect();
  EXPECT_FALSE(legend.intersects(data))
      << "legend " << legend.y() << ".." << legend.bottom() << ", axes " << data.y() << ".." << data.bottom();
  EXPECT_GE(legend.top(), data.bottom());
}

// dram.channels and group.groupsPerDevice are tied (groups x pseudo-channels per group = channels): each
// edit alone was refused, so neither could ever change. The first now waits, pending, for the second.
TEST(WhatIfReal, TiedFieldsApplyTogetherOnceTheyAgree) {
  WhatIfPanel panel;
  panel.setDebounceMs(10);
  const pim::Backend& shipped = pim::builtinBackends().get("hbm-pim");
  panel.setBackend(shipped);
  QSignalSpy edited(&panel, &WhatIfPanel::backendEdited);
  QString error;
  EXPECT_FALSE(panel.applyValue("dram.channels", 64, &error));
  EXPECT_NE(error.indexOf(QStringLiteral("groupsPerDevice")), -1) << error.toStdString();
  EXPECT_EQ(panel.pending().count("dram.channels"), 1u);
  EXPECT_DOUBLE_EQ(panel.spinBox("dram.channels")->value(), 64);  // kept on screen, marked pending
  EXPECT_TRUE(panel.spinBox("dram.channels")->font().italic());
  EXPECT_NE(panel.message().indexOf(QStringLiteral("Pending")), -1) << panel.message().toStdString();
  EXPECT_EQ(panel.current().hash(), shipped.hash());

  ASSERT_TRUE(panel.applyValue("group.groupsPerDevice", 32));
  EXPECT_TRUE(panel.pending().empty());
  EXPECT_EQ(panel.current().dram.pseudoChannels, 64);
  EXPECT_EQ(panel.current().group.groupsPerDevice, 32);
  EXPECT_FALSE(panel.spinBox("dram.channels")->font().italic());
  EXPECT_TRUE(test::waitFor([&] { return edited.count() == 1; }, 2000));

  // Reset drops a pending edit with the rest.
  EXPECT_FALSE(panel.applyValue("core.coresPerGroup", 128));
  EXPECT_FALSE(panel.pending().empty());
  panel.reset();
  EXPECT_TRUE(panel.pending().empty());
  EXPECT_DOUBLE_EQ(panel.spinBox("core.coresPerGroup")->value(), 64);
}
