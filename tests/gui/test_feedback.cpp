// SPDX-License-Identifier: Apache-2.0
// Help and feedback (issue 17, items 8 and 9): a stale marker when the controls no longer ask what the shown
// results answer, a filter box that keeps its width next to "Show pruned", and export dialogs that suggest a
// file name naming the problem and open in the last export folder.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTest>

#include "engine/target/registry.h"
#include "gui_test_util.h"
#include "views/control_panel.h"
#include "views/draft_selection.h"
#include "views/draft_table_model.h"
#include "views/draft_table_panel.h"
#include "views/exploration_session.h"
#include "views/export_paths.h"
#include "views/main_window.h"
#include "views/stale_banner.h"
#include "views/what_if_panel.h"

using namespace pimgui;

namespace {

QString dockTitle(const MainWindow& w, const char* name) {
  auto* d = w.findChild<QDockWidget*>(QString::fromLatin1(name));
  return d ? d->windowTitle() : QString();
}

}  // namespace

// Nothing marked results as stale when the control panel no longer matched them.
TEST(Feedback, ChangingADimensionMarksTheResultsStaleUntilTheyAreExploredAgain) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(w.startSession(test::smallConfig()));
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
  EXPECT_FALSE(w.staleBanner()->isVisible());
  EXPECT_EQ(dockTitle(w, "pareto"), QStringLiteral("Pareto plot"));

  QLineEdit* n = w.controls()->dimensionField(QStringLiteral("n"));
  ASSERT_NE(n, nullptr);
  n->selectAll();
  QTest::keyClicks(n, QStringLiteral("8192"));
  EXPECT_TRUE(w.staleBanner()->isVisible());
  EXPECT_EQ(w.staleBanner()->reason(), QStringLiteral("dimension n"));
  EXPECT_NE(w.staleBanner()->text().indexOf(QStringLiteral("n=4096")), -1)
      << w.staleBanner()->text().toStdString();
  EXPECT_EQ(dockTitle(w, "pareto"), QStringLiteral("Pareto plot — stale"));
  EXPECT_EQ(dockTitle(w, "breakdown"), QStringLiteral("Time breakdown — stale"));

  // A value that does not parse leaves the views stale too (they show n=4096, which the panel no longer
  // says).
  n->selectAll();
  QTest::keyClicks(n, QStringLiteral("x"));
  EXPECT_TRUE(w.staleBanner()->isVisible());
  EXPECT_EQ(w.staleBanner()->reason(), QStringLiteral("settings"));
  EXPECT_EQ(dockTitle(w, "pareto"), QStringLiteral("Pareto plot — stale"));

  // Typing the value back matches the results again.
  n->selectAll();
  QTest::keyClicks(n, QStringLiteral("4096"));
  EXPECT_FALSE(w.staleBanner()->isVisible());

  n->selectAll();
  QTest::keyClicks(n, QStringLiteral("8192"));
  ASSERT_TRUE(w.staleBanner()->isVisible());
  SessionConfig c = w.controls()->config();
  c.maxSimulations = 40;
  ASSERT_TRUE(w.startSession(c));
  EXPECT_FALSE(w.staleBanner()->isVisible());
  EXPECT_EQ(dockTitle(w, "pareto"), QStringLiteral("Pareto plot"));
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
  EXPECT_FALSE(w.staleBanner()->isVisible());
}

TEST(Feedback, AnEditedBackendIsAStaleReasonOfItsOwn) {
  SessionConfig shown = test::smallConfig();
  SessionConfig asked = shown;
  EXPECT_TRUE(staleReason(shown, asked).isEmpty());
  pim::Backend edited = pim::builtinBackends().get("hbm-pim");
  edited.setParameters({{"system.devices", 8}});
  asked.backendOverride = std::make_shared<const pim::Backend>(edited);
  EXPECT_EQ(staleReason(shown, asked), QStringLiteral("what-if hardware"));
  asked.strategy = "predictor";
  EXPECT_EQ(staleReason(shown, asked), QStringLiteral("settings"));
}

// A run labelled by another model or timed in another timing shows other numbers: both make the views stale.
TEST(Feedback, TheLabellingModelAndTheTimingAreStaleReasons) {
  SessionConfig shown = test::smallConfig();
  SessionConfig asked = shown;
  asked.crossbarTiming = pim::xbar::TimingModel::Intended;
  EXPECT_EQ(staleReason(shown, asked), QStringLiteral("timing"));
  asked = shown;
  asked.model = pim::LabelModel::DccKernel;
  EXPECT_EQ(staleReason(shown, asked), QStringLiteral("labelling model"));
}

// "Show pruned" and a long count squeezed the filter box to "Fi...".
TEST(Feedback, TheFilterKeepsItsWidthNextToShowPrunedAndALongCount) {
  DraftTableModel model;
  DraftSelection selection;
  DraftTablePanel panel(&model, &selection);
  panel.resize(720, 400);
  panel.show();
  panel.showPrunedBox()->setChecked(true);
  panel.setPrunedNote(QStringLiteral("listing and predicting pruned drafts… pruned: first 100,000 listed"));
  QTest::qWait(20);
  QLineEdit* filter = panel.filterBox();
  EXPECT_GE(filter->width(), filter->fontMetrics().horizontalAdvance(filter->placeholderText()))
      << "filter " << filter->width() << " px";
  EXPECT_LE(panel.countLabel()->geometry().right(), panel.width());
}

TEST(Feedback, ExportNamesSayWhatTheFileHolds) {
  SessionConfig c;  // gemv b=1,out=4096,in=4096 on hbm-pim
  EXPECT_EQ(exportBaseName(c, QStringLiteral("drafts")),
            QStringLiteral("gemv_b1_out4096_in4096_hbm-pim_drafts"));
  c.backendOverride = std::make_shared<const pim::Backend>(pim::builtinBackends().get("hbm-pim"));
  c.kernelFile = "/tmp/my kernel.pim";
  EXPECT_EQ(exportBaseName(c, QStringLiteral("pareto")),
            QStringLiteral("my_kernel_b1_out4096_in4096_hbm-pim_whatif_pareto"));
}

TEST(Feedback, ExportDialogsOpenInTheLastExportFolder) {
  QTemporaryDir dir;
  const QString file = QDir(dir.path()).filePath(QStringLiteral("a.csv"));
  rememberExportFolder(file);
  EXPECT_EQ(lastExportFolder(), QFileInfo(file).absolutePath());
  EXPECT_EQ(suggestedExportPath(QStringLiteral("b.png")), QDir(dir.path()).filePath(QStringLiteral("b.png")));
}
