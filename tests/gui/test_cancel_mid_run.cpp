// SPDX-License-Identifier: Apache-2.0
// Cancel as a user presses it: during the estimate before a run, and in the middle of a run's confirmations.
// The window must stop at once and show exactly what the run finished, with the status bar's counts equal
// to what the table shows, and nothing arriving afterwards.
#include <gtest/gtest.h>

#include <QAction>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTest>
#include <functional>

#include "gui_test_util.h"
#include "views/control_panel.h"
#include "views/draft_table_model.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/run_confirmation.h"

namespace pimgui {
namespace {

SessionConfig attentionOnAttacc() {
  SessionConfig c;  // the panel's attention: a predictor run of a few seconds (about 5 s on an idle machine)
  c.backend = "attacc";
  c.kernel = "attn";
  c.shape = "b=1,h=32,l=2048,d=128";
  c.strategy = "predictor";
  return c;
}

int simulatedIn(const std::vector<pim::DraftRecord>& records) {
  int n = 0;
  for (const pim::DraftRecord& r : records) n += r.simulated || !r.error.empty();
  return n;
}

// Explore first estimates the run on a pool thread; Cancel stayed disabled meanwhile, so a Cancel pressed
// in the first second or two did nothing and the run started anyway.
TEST(CancelMidRun, CancelDuringTheEstimateStartsNoRun) {
  MainWindow w(false);
  w.show();
  QSignalSpy started(w.session(), &ExplorationSession::started);
  w.controls()->setConfig(attentionOnAttacc());
  ASSERT_TRUE(w.runConfirmation()->enabled());
  QTest::mouseClick(w.controls()->exploreButton(), Qt::LeftButton);
  ASSERT_TRUE(w.runConfirmation()->estimating());
  ASSERT_TRUE(w.controls()->cancelButton()->isEnabled());
  QTest::mouseClick(w.controls()->cancelButton(), Qt::LeftButton);
  EXPECT_FALSE(w.runConfirmation()->estimating());
  EXPECT_FALSE(w.controls()->cancelButton()->isEnabled());
  EXPECT_TRUE(w.controls()->exploreButton()->isEnabled());
  // The estimate's sample simulations finish on their own; no run may follow them.
  QTest::qWait(3000);
  EXPECT_EQ(started.count(), 0);
  EXPECT_FALSE(w.session()->running());
  EXPECT_TRUE(w.statusBar()->currentMessage().startsWith(QStringLiteral("Cancelled before the run started")))
      << w.statusBar()->currentMessage().toStdString();
}

/// Explores `c` from the panel, presses Cancel once `when` holds, and checks that the window stops at once
/// and shows exactly what the run finished: the status bar's counts equal the table's, and nothing arrives
/// once the worker has returned.
void cancelAndCheck(const SessionConfig& c, const std::function<bool(const pim::ExploreProgress&)>& when) {
  MainWindow w(false);
  w.show();
  w.runConfirmation()->setEnabled(false);  // start at once: the estimate is the other test's business
  w.controls()->setConfig(c);
  // Cancel is pressed as the report that satisfies `when` arrives (polling could miss a short stage).
  bool pressed = false, enabled = false;
  QObject::connect(w.session(), &ExplorationSession::progressed, &w, [&](const pim::ExploreProgress& p) {
    if (pressed || !when(p)) return;
    pressed = true;
    enabled = w.controls()->cancelButton()->isEnabled();
    QTest::mouseClick(w.controls()->cancelButton(), Qt::LeftButton);
  });
  QTest::mouseClick(w.controls()->exploreButton(), Qt::LeftButton);
  ASSERT_TRUE(w.session()->running());
  ASSERT_TRUE(test::waitFor([&] { return pressed; }, 120000));
  EXPECT_TRUE(enabled);
  EXPECT_FALSE(w.session()->running());
  EXPECT_FALSE(w.controls()->cancelButton()->isEnabled());
  EXPECT_EQ(w.session()->progress().stage, "cancelled");
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));

  const pim::ExploreProgress done = w.session()->progress();
  EXPECT_EQ(done.stage, "cancelled");
  const int shown = w.model()->simulatedRows();
  int rows = 0, predictedRows = 0;
  for (int r = 0; r < w.model()->keptRows(); ++r) {
    rows += w.model()->row(r).simulated || !w.model()->row(r).error.empty();
    predictedRows += w.model()->row(r).predictedNs.has_value();
  }
  EXPECT_EQ(shown, rows);
  EXPECT_EQ(static_cast<std::uint64_t>(shown), done.simulated);
  EXPECT_EQ(static_cast<std::uint64_t>(predictedRows), done.predicted);
  const QString status = w.statusBar()->currentMessage();
  // Before the simulations were planned there is no "N of M" to report (it read "0 of 0 simulated").
  const QString expected =
      done.toSimulate == 0
          ? QStringLiteral("Cancelled before any draft was simulated")
          : QStringLiteral("Cancelled after %L1 of %L2 simulated").arg(shown).arg(done.toSimulate);
  EXPECT_TRUE(status.startsWith(expected)) << status.toStdString();
  const QString counts = w.countsText();
  EXPECT_TRUE(counts.startsWith(QStringLiteral("cancelled"))) << counts.toStdString();
  EXPECT_NE(counts.indexOf(QStringLiteral("predicted %L1 ").arg(predictedRows)), -1) << counts.toStdString();
  EXPECT_NE(counts.indexOf(QStringLiteral("simulated %L1 ").arg(shown)), -1) << counts.toStdString();

  // Once the worker has returned (its simulation or prediction batch in flight finished), the run still
  // holds exactly what was shown.
  ASSERT_TRUE(test::waitFor([&] { return w.session()->cancelLatencyMs().has_value(); }, 10000));
  QTest::qWait(300);
  const auto records = w.session()->records();
  EXPECT_EQ(simulatedIn(records), shown);
  int predictedRecords = 0;
  for (const pim::DraftRecord& r : records) predictedRecords += r.predictedNs.has_value();
  EXPECT_EQ(predictedRecords, predictedRows);
  EXPECT_EQ(w.model()->simulatedRows(), shown);
  EXPECT_TRUE(w.idle());
  std::printf(
      "cancelled at stage %s after %d of %llu simulated, %d predicted; worker returned %.1f ms after\n",
      w.session()->progress().stage.c_str(), shown, static_cast<unsigned long long>(done.toSimulate),
      predictedRows, *w.session()->cancelLatencyMs());
}

// A Cancel while the model predicted waited for every prediction (one call over 20,000 drafts), and the
// predictions were stored after the window had read the counts: the table listed predicted rows while the
// status said "predicted 0"; the status said "done" while Cancel was still enabled and the table kept
// filling.
TEST(CancelMidRun, CancelWhilePredictingShowsExactlyWhatItFinished) {
  cancelAndCheck(attentionOnAttacc(), [](const pim::ExploreProgress& p) { return p.stage == "predicting"; });
}

// A Cancel in the middle of the simulations: the simulation in flight was recorded after the window had
// read the counts, so the status counted fewer simulations than the table showed.
// A Cancel while the drafts are screened, before anything is predicted or simulated.
TEST(CancelMidRun, CancelWhileScreeningSaysNothingWasSimulated) {
  cancelAndCheck(attentionOnAttacc(), [](const pim::ExploreProgress& p) { return p.stage == "screening"; });
}

TEST(CancelMidRun, CancelWhileSimulatingShowsExactlyWhatItFinished) {
  SessionConfig c = attentionOnAttacc();
  c.strategy = "exhaustive";  // 392,354 simulations: still simulating when Cancel is pressed
  cancelAndCheck(c,
                 [](const pim::ExploreProgress& p) { return p.stage == "simulating" && p.simulated >= 2; });
}

}  // namespace
}  // namespace pimgui
