// SPDX-License-Identifier: Apache-2.0
// The Search progress dock: an imtp run's best-so-far curve is the engine's (pim::bestSoFarNs of the
// session's records, trial by trial), a strategy that lists kept drafts gets a note instead, and clearing the
// results clears the curve.
#include <gtest/gtest.h>

#include <QTemporaryDir>
#include <cmath>

#include "engine/search/explorer.h"
#include "gui_test_util.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/search_progress_plot.h"

using namespace pimgui;

namespace {

SessionConfig imtpConfig() {
  SessionConfig c;
  c.backend = "upmem";
  c.kernel = "va";
  c.shape = "b=1,n=8192";
  c.dtype = "i32";
  c.strategy = "imtp";
  c.maxSimulations = 24;  // imtp's trials
  return c;
}

TEST(SearchProgress, ImtpCurveIsTheEnginesBestSoFar) {
  MainWindow w(false);
  w.show();
  ASSERT_TRUE(w.startSession(imtpConfig()));
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running(); }, 60000));
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));

  const std::vector<pim::DraftRecord> records = w.session()->records();
  ASSERT_EQ(records.size(), 24u);
  const std::vector<double> expected = pim::bestSoFarNs(records);
  const std::vector<double>& curve = w.searchProgress()->bestSoFarNs();
  ASSERT_EQ(curve, expected);
  double least = INFINITY;
  for (const pim::DraftRecord& r : records)
    if (r.simulated && !r.simulated->lowerBound) least = std::min(least, r.simulated->timeNs);
  ASSERT_TRUE(std::isfinite(least));
  EXPECT_EQ(curve.back(), least);
  for (std::size_t i = 1; i < curve.size(); ++i) EXPECT_LE(curve[i], curve[i - 1]) << i;
  EXPECT_TRUE(w.searchProgress()->caption().startsWith(QStringLiteral("imtp: best ")))
      << w.searchProgress()->caption().toStdString();
  EXPECT_TRUE(w.searchProgress()->caption().contains(QStringLiteral("after 24 trials")));

  // It exports like every plot.
  QTemporaryDir dir;
  QString error;
  EXPECT_TRUE(w.exportPlot(MainWindow::Plot::SearchProgress, dir.filePath(QStringLiteral("p.png")), &error))
      << error.toStdString();
}

TEST(SearchProgress, StrategiesThatListKeptDraftsSayWhyThereIsNoCurve) {
  MainWindow w(false);
  w.show();
  ASSERT_TRUE(w.startSession(test::smallConfig()));  // exhaustive
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running() && w.idle(); }, 60000));
  EXPECT_TRUE(w.searchProgress()->bestSoFarNs().empty());
  EXPECT_TRUE(w.searchProgress()->caption().contains(QStringLiteral("exhaustive lists the kept drafts")))
      << w.searchProgress()->caption().toStdString();
}

TEST(SearchProgress, ClearEmptiesTheCurve) {
  SearchProgressPlot plot;
  plot.setRecords({}, QStringLiteral("imtp"), true);
  EXPECT_TRUE(plot.bestSoFarNs().empty());
  EXPECT_TRUE(plot.caption().contains(QStringLiteral("No trial of imtp has a time yet")));
  plot.clear();
  EXPECT_TRUE(plot.caption().contains(QStringLiteral("Explore with the imtp strategy")));
}

}  // namespace
