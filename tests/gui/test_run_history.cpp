// SPDX-License-Identifier: Apache-2.0
// Run history (issue 17, item 11): every exploration of the window is listed with its problem, settings,
// best result and time; a past run comes back into the views without exploring; two runs can be compared
// on the Pareto plot. Before, a second run replaced the first for good.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <QAbstractItemModelTester>
#include <QDir>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>

#include "gui_test_util.h"
#include "views/control_panel.h"
#include "views/draft_table_model.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/run_history.h"

using namespace pimgui;

namespace {

QString cell(const RunHistory& h, int row, RunHistory::Column c) {
  return h.data(h.index(row, c)).toString();
}

bool runToEnd(MainWindow& w, const SessionConfig& c) {
  return w.startSession(c) && test::waitFor([&] { return w.idle(); }, 60000);
}

}  // namespace

TEST(RunHistory, EveryExplorationIsListedAndAnEarlierOneComesBackWithoutExploring) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  const SessionConfig first = test::smallConfig();
  ASSERT_TRUE(runToEnd(w, first));
  const int firstRows = w.model()->rowCount();
  const double firstBest = w.session()->progress().bestNs;
  ASSERT_GT(firstBest, 0);
  SessionConfig second = first;
  second.shape = "b=1,n=2048";
  second.stagedRearrangement = false;
  ASSERT_TRUE(runToEnd(w, second));

  RunHistory& h = *w.runHistory();
  ASSERT_EQ(h.rowCount(), 2);
  EXPECT_EQ(w.runHistoryPanel()->selectedRow(), 1) << "the run the views show";
  EXPECT_EQ(cell(h, 0, RunHistory::Number), QStringLiteral("1"));
  EXPECT_NE(cell(h, 0, RunHistory::Problem).indexOf(QStringLiteral("n=4096")), -1);
  EXPECT_NE(cell(h, 1, RunHistory::Problem).indexOf(QStringLiteral("n=2048")), -1);
  EXPECT_EQ(cell(h, 0, RunHistory::Best), QStringLiteral("%1 µs").arg(firstBest / 1e3, 0, 'f', 3));
  EXPECT_EQ(
      cell(h, 0, RunHistory::Settings),
      QStringLiteral("exhaustive · at most 40 simulations · pimscope model · passes I+II · %1 of %1 rules")
          .arg(first.rules.size()));
  EXPECT_NE(cell(h, 1, RunHistory::Settings).indexOf(QStringLiteral("passes II ·")), -1);
  EXPECT_EQ(cell(h, 0, RunHistory::Simulated).toULongLong(), h.entry(0).progress.simulated);
  EXPECT_TRUE(cell(h, 0, RunHistory::Time).endsWith(QStringLiteral(" s")));

  // Double-click the first run: its results and settings are back, nothing is explored or recorded again.
  QTableView* view = w.runHistoryPanel()->view();
  emit view->doubleClicked(h.index(0, RunHistory::Problem));
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.model()->rowCount() == firstRows; }, 30000));
  EXPECT_EQ(w.session()->config().shape, first.shape);
  EXPECT_EQ(w.controls()->config().shape, first.shape);
  EXPECT_TRUE(w.controls()->config().stagedRearrangement);
  EXPECT_DOUBLE_EQ(w.session()->progress().bestNs, firstBest);
  EXPECT_EQ(h.rowCount(), 2);
  EXPECT_NE(w.statusBar()->currentMessage().indexOf(QStringLiteral("Showing run 1")), -1)
      << w.statusBar()->currentMessage().toStdString();
  EXPECT_EQ(w.runHistoryPanel()->selectedRow(), 0);

  // A run after that is recorded again, and selected as the run shown.
  ASSERT_TRUE(runToEnd(w, second));
  EXPECT_EQ(h.rowCount(), 3);
  EXPECT_EQ(w.runHistoryPanel()->selectedRow(), 2);
}

TEST(RunHistory, TwoRunsAreOverlaidOnTheParetoPlot) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  SessionConfig a = test::smallConfig();
  ASSERT_TRUE(runToEnd(w, a));
  const std::size_t frontA = std::count_if(w.pareto()->points().begin(), w.pareto()->points().end(),
                                           [](const ParetoPlot::Point& p) { return p.front; });
  a.shape = "b=1,n=2048";
  ASSERT_TRUE(runToEnd(w, a));

  w.overlayHistoryRun(0);
  ASSERT_NE(w.pareto()->ghost(), nullptr);
  EXPECT_TRUE(w.pareto()->ghost()->label == QStringLiteral("front of run 1"));
  EXPECT_EQ(w.pareto()->ghostFront().size(), frontA);  // the first run's front, beside the second's points
  if (const QByteArray dir = qgetenv("PIMSCOPE_SCREENSHOTS"); !dir.isEmpty()) {
    QDir().mkpath(QString::fromLocal8Bit(dir));
    w.pareto()->grab().save(
        QDir(QString::fromLocal8Bit(dir)).filePath(QStringLiteral("history_overlay.png")));
  }
  w.overlayHistoryRun(std::nullopt);
  EXPECT_EQ(w.pareto()->ghost(), nullptr);

  // A new run takes the overlay off: it compared two runs that are no longer both shown.
  w.overlayHistoryRun(1);
  ASSERT_TRUE(w.startSession(test::smallConfig()));
  EXPECT_EQ(w.pareto()->ghost(), nullptr);
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
}

TEST(RunHistory, ASessionFileKeepsTheHistoryAndAnOlderFileStartsOneWithItsRun) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("red.pimsession"));
  double secondBest = 0;
  {
    MainWindow w(false);
    ASSERT_TRUE(runToEnd(w, test::smallConfig()));
    SessionConfig second = test::smallConfig();
    second.shape = "b=1,n=2048";
    ASSERT_TRUE(runToEnd(w, second));
    secondBest = w.session()->progress().bestNs;
    QString error;
    ASSERT_TRUE(w.saveSession(path, &error)) << error.toStdString();
  }
  MainWindow v(false);
  QString error;
  ASSERT_TRUE(v.openSession(path, &error)) << error.toStdString();
  ASSERT_TRUE(test::waitFor([&] { return v.idle(); }, 30000));
  RunHistory& h = *v.runHistory();
  ASSERT_EQ(h.rowCount(), 2);  // as saved; the run the file shows is one of them, not listed again
  EXPECT_NE(cell(h, 0, RunHistory::Problem).indexOf(QStringLiteral("n=4096")), -1);
  EXPECT_NE(cell(h, 1, RunHistory::Problem).indexOf(QStringLiteral("n=2048")), -1);
  EXPECT_EQ(cell(h, 1, RunHistory::Best), QStringLiteral("%1 µs").arg(secondBest / 1e3, 0, 'f', 3));
  // A restored run comes back into the views and overlays like one of this window's.
  ASSERT_TRUE(v.showHistoryRun(0));
  ASSERT_TRUE(test::waitFor([&] { return v.idle() && v.session()->config().shape == "b=1,n=4096"; }, 30000));
  v.overlayHistoryRun(1);
  ASSERT_NE(v.pareto()->ghost(), nullptr);
  EXPECT_FALSE(v.pareto()->ghostFront().empty());
  // The next run is numbered after the restored ones.
  ASSERT_TRUE(runToEnd(v, test::smallConfig()));
  ASSERT_EQ(h.rowCount(), 3);
  EXPECT_EQ(h.entry(2).number, 3);

  // Format 4 had no history: its run starts one, marked as opened from the file.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.toStdString().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DROP TABLE history; PRAGMA user_version = 4;", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  MainWindow old(false);
  ASSERT_TRUE(old.openSession(path, &error)) << error.toStdString();
  ASSERT_TRUE(test::waitFor([&] { return old.idle() && old.runHistory()->rowCount() == 1; }, 30000));
  EXPECT_EQ(cell(*old.runHistory(), 0, RunHistory::Time), QStringLiteral("opened red.pimsession"));
}

TEST(RunHistory, ACancelledRunIsListedAsSuch) {
  MainWindow v(false);
  SessionConfig slow = test::smallConfig();
  slow.shape = "b=1,n=16777216";
  slow.maxSimulations = 0;
  ASSERT_TRUE(v.startSession(slow));
  ASSERT_TRUE(test::waitFor([&] { return v.session()->progress().simulated > 0; }, 60000));
  v.session()->cancel();
  ASSERT_TRUE(test::waitFor([&] { return v.idle(); }, 60000));
  RunHistory& h = *v.runHistory();
  ASSERT_EQ(h.rowCount(), 1);
  EXPECT_TRUE(cell(h, 0, RunHistory::Time).endsWith(QStringLiteral(", cancelled")));
  EXPECT_EQ(h.entry(0).progress.simulated, static_cast<std::uint64_t>(v.session()->progress().simulated));
}

// The model stays consistent for views while it fills past its cap, and the oldest runs go first with their
// numbers kept by the rest.
TEST(RunHistory, PassesModelTesterAndDropsTheOldestPastItsCap) {
  RunHistory h;
  QAbstractItemModelTester tester(&h, QAbstractItemModelTester::FailureReportingMode::Fatal);
  for (std::size_t i = 0; i < RunHistory::kMaxRuns + 3; ++i) {
    RunEntry e;
    e.problem = QStringLiteral("red[b=1,n=%1] on hbm-pim").arg(i + 1);
    e.wallSeconds = 0.5;
    h.append(std::move(e));
  }
  ASSERT_EQ(h.rowCount(), static_cast<int>(RunHistory::kMaxRuns));
  EXPECT_EQ(h.entry(0).number, 4);
  EXPECT_EQ(h.rowOf(4), 0);
  EXPECT_EQ(h.rowOf(3), -1);
  EXPECT_EQ(cell(h, 0, RunHistory::Best), QStringLiteral("–"));  // no best draft: said, not 0
  EXPECT_EQ(cell(h, 0, RunHistory::Time), QStringLiteral("0.5 s"));
}

// Records at other kernel-level choices than the backend's (UPMEM's imtp trials; the predictor's variants)
// have ids beyond the draft space's size: they come back decoded by the target, choices and all. Before, the
// window decoded ids as drafts and refused the run ("no such draft").
TEST(RunHistory, ARunWithCandidatesAtOtherChoicesComesBack) {
  MainWindow w(false);
  w.resize(1400, 900);
  w.show();
  ASSERT_TRUE(runToEnd(w, test::imtpConfig(16)));
  const std::vector<pim::DraftRecord> before = w.session()->records();
  const std::uint64_t drafts = w.session()->problem()->space().size();
  ASSERT_TRUE(std::any_of(before.begin(), before.end(), [&](const auto& r) { return r.draft.id >= drafts; }));
  ASSERT_TRUE(runToEnd(w, test::smallConfig()));

  emit w.runHistoryPanel()->view()->doubleClicked(w.runHistory()->index(0, RunHistory::Problem));
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.session()->config().backend == "upmem"; }, 30000))
      << w.statusBar()->currentMessage().toStdString();
  const std::vector<pim::DraftRecord> after = w.session()->records();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].draft.id, before[i].draft.id);
    EXPECT_EQ(after[i].draft.parts, before[i].draft.parts) << i;
  }
}
