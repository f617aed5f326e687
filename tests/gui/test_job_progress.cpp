// SPDX-License-Identifier: Apache-2.0
// Progress you can trust beyond Explore (issue 17, item 5): compare shows which backend it searches with its
// n of N and time left, and Cancel ends it; the classroom builds a walkthrough on a pool thread with a busy
// bar and Cancel; Explore asks, with the estimate, before a run estimated above 30 s. The bar is the
// window's (RunProgress) everywhere, not a second one.
#include <gtest/gtest.h>

#include <QAction>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include "gui_test_util.h"
#include "views/classroom_dialog.h"
#include "views/compare_runner.h"
#include "views/compare_view.h"
#include "views/control_panel.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/run_confirmation.h"
#include "views/run_progress.h"

using namespace pimgui;

// It showed a busy bar and the elapsed seconds only: nothing said which backend ran or how far it was.
TEST(JobProgress, CompareNamesTheBackendItSearchesAndCountsItsSimulations) {
  CompareView v;
  v.show();
  v.loadProblem(SessionConfig{});  // gemv b=1,out=4096,in=4096: seconds per backend
  v.choose({QStringLiteral("hbm-pim"), QStringLiteral("attacc")});
  QSignalSpy done(&v, &CompareView::done);
  ASSERT_TRUE(v.compare());
  RunProgress* bar = v.progressBar();
  ASSERT_TRUE(test::waitFor(
      [&] { return bar->isVisible() && bar->text().contains(QStringLiteral("simulating")); }, 60000))
      << bar->text().toStdString();
  const QString text = bar->text();
  EXPECT_TRUE(
      QRegularExpression(QStringLiteral("^(attacc|hbm-pim) \\([12] of 2\\): simulating [0-9,]+ of [0-9,]+"))
          .match(text)
          .hasMatch())
      << text.toStdString();
  EXPECT_GT(bar->maximum(), 0);  // counts, not a busy bar
  QTest::mouseClick(v.cancelButton(), Qt::LeftButton);
  EXPECT_FALSE(bar->isVisible());
  EXPECT_TRUE(v.status().startsWith(QStringLiteral("Cancelled"))) << v.status().toStdString();
  // A late report of the cancelled run does not bring the bar back.
  QTest::qWait(300);
  EXPECT_FALSE(bar->isVisible());
  ASSERT_TRUE(test::waitFor([&] { return !v.runner()->workerAlive(); }, 60000));
}

// "Library kernel -> Load" blocked the window for 8.5 s (about 50 s under load) and clicks queued up.
TEST(JobProgress, ClassroomBuildsOffTheGuiThreadWithABusyBarAndCancel) {
  ClassroomDialog d;
  d.show();
  ASSERT_TRUE(test::waitFor([&] { return !d.loading(); }, 60000));
  ASSERT_EQ(d.stepCount(), 7);
  const QString example = d.subjectText();

  QElapsedTimer t;
  t.start();
  ASSERT_TRUE(d.showLibrary(QStringLiteral("hbm-pim"), QStringLiteral("gemv"),
                            QStringLiteral("b=1,out=4096,in=4096")));
  EXPECT_LT(t.elapsed(), 2000);  // returns at once; the drafts are simulated on a pool thread
  EXPECT_TRUE(d.loading());
  auto* bar = d.findChild<RunProgress*>();
  ASSERT_NE(bar, nullptr);
  EXPECT_TRUE(bar->isVisible());
  EXPECT_TRUE(bar->text().startsWith(QStringLiteral("Building the walkthrough of gemv")))
      << bar->text().toStdString();
  // The window answers while it builds: Next still steps through the example.
  d.next();
  EXPECT_EQ(d.currentStep(), 1);

  QPushButton* cancel = nullptr;
  for (QPushButton* b : d.findChildren<QPushButton*>())
    if (b->text() == QStringLiteral("Cancel")) cancel = b;
  ASSERT_NE(cancel, nullptr);
  ASSERT_TRUE(cancel->isVisible());
  QTest::mouseClick(cancel, Qt::LeftButton);
  EXPECT_FALSE(d.loading());
  EXPECT_FALSE(bar->isVisible());
  EXPECT_EQ(d.subjectText(), QStringLiteral("Cancelled; still showing %1").arg(example));
  EXPECT_EQ(d.stepCount(), 7);

  // A bad shape is refused at once, nothing starts.
  EXPECT_FALSE(d.showLibrary(QStringLiteral("hbm-pim"), QStringLiteral("red"), QStringLiteral("b=0")));
  EXPECT_FALSE(d.loading());
}

namespace {

QAbstractButton* buttonOf(QMessageBox* box, const QString& text) {
  for (QAbstractButton* b : box->buttons())
    if (b->text().remove(QLatin1Char('&')) == text) return b;
  return nullptr;
}

}  // namespace

// The exhaustive strategy on attention started a roughly 20-hour run without a word.
TEST(JobProgress, ExploreAsksBeforeARunEstimatedAboveThirtySeconds) {
  MainWindow w(false);
  w.show();
  ASSERT_TRUE(w.startSession(test::smallConfig()));
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
  RunConfirmation* confirm = w.runConfirmation();
  ASSERT_TRUE(confirm->enabled());

  SessionConfig attn;
  attn.backend = "attacc";
  attn.kernel = "attn";
  attn.shape = "b=4,h=32,l=256,d=128";
  attn.strategy = "exhaustive";
  w.controls()->setConfig(attn);
  w.exploreInteractive();
  EXPECT_TRUE(confirm->estimating());
  EXPECT_TRUE(w.runProgress()->isVisible());  // "estimating the run time" while the sample runs
  ASSERT_TRUE(test::waitFor([&] { return confirm->question() != nullptr; }, 120000));
  ASSERT_TRUE(confirm->lastEstimate().has_value());
  const pim::RunEstimate& e = *confirm->lastEstimate();
  EXPECT_GT(e.seconds, RunConfirmation::kLongRunSeconds);
  EXPECT_EQ(e.strategy, "exhaustive");
  EXPECT_GT(e.simulations, 100000u);
  const QString text = confirm->question()->text();
  EXPECT_NE(text.indexOf(QString::fromStdString(pim::estimateText(e))), -1) << text.toStdString();
  EXPECT_EQ(w.session()->config().kernel, "red");  // nothing started while it asks
  EXPECT_FALSE(w.session()->running());

  QTest::mouseClick(buttonOf(confirm->question(), QStringLiteral("Cancel")), Qt::LeftButton);
  QTest::qWait(50);
  EXPECT_FALSE(w.session()->running());
  EXPECT_EQ(w.session()->config().kernel, "red");

  // Start, and don't ask again: the run starts, and the next long run starts without a question.
  w.exploreInteractive();
  ASSERT_TRUE(test::waitFor([&] { return confirm->question() != nullptr; }, 120000));
  confirm->question()->checkBox()->setChecked(true);
  QTest::mouseClick(buttonOf(confirm->question(), QStringLiteral("Start")), Qt::LeftButton);
  EXPECT_TRUE(w.session()->running());
  EXPECT_EQ(w.session()->config().kernel, "attn");
  EXPECT_FALSE(confirm->enabled());
  auto* ask = w.findChild<QAction*>(QStringLiteral("askBeforeLongRuns"));
  ASSERT_NE(ask, nullptr);
  EXPECT_FALSE(ask->isChecked());
  w.session()->cancel();
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));

  // Asking again (the menu) and a short run: it starts without a question.
  ask->setChecked(true);
  EXPECT_TRUE(confirm->enabled());
  SessionConfig shortRun = test::smallConfig();
  shortRun.strategy = "predictor";  // the panel has no simulation cap: the model's few confirmations
  w.controls()->setConfig(shortRun);
  w.exploreInteractive();
  ASSERT_TRUE(
      test::waitFor([&] { return w.session()->config().kernel == "red" && !confirm->estimating(); }, 60000));
  EXPECT_EQ(confirm->question(), nullptr);
  ASSERT_TRUE(confirm->lastEstimate().has_value());
  EXPECT_LE(confirm->lastEstimate()->seconds, RunConfirmation::kLongRunSeconds);
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
}
