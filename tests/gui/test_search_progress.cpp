// SPDX-License-Identifier: Apache-2.0
// The Search progress dock: an imtp run's best-so-far curve is the engine's (pim::bestSoFarNs of the
// session's records, trial by trial), a strategy that lists kept drafts gets a note instead, and clearing the
// results clears the curve.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <memory>

#include "engine/search/explorer.h"
#include "gui_test_util.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/search_progress_plot.h"

using namespace pimgui;

namespace {

SessionConfig imtpConfig() { return test::imtpConfig(24); }

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

// A slow early trial puts the axis past 10^7 µs: its labels are written out (10,000,000), not "1e+07", in
// both tickers the plot picks (decades beyond two decades, 1-2-5 within).
TEST(SearchProgress, LargeTimesAreWrittenOut) {
  auto record = [](double ns) {
    pim::DraftRecord r;
    auto e = std::make_shared<pim::Evaluation>();
    e->timeNs = ns;
    r.simulated = std::move(e);
    return r;
  };
  SearchProgressPlot plot;
  plot.resize(400, 300);
  for (const std::vector<double>& times : {std::vector<double>{9e12, 2e9}, std::vector<double>{4e10, 2e10}}) {
    std::vector<pim::DraftRecord> records;
    for (double ns : times) records.push_back(record(ns));
    plot.setRecords(records, QStringLiteral("imtp"), true);
    const QVector<QString> labels = plot.plot()->yAxis->tickVectorLabels();
    ASSERT_FALSE(labels.isEmpty());
    for (const QString& l : labels) EXPECT_FALSE(l.contains(QLatin1Char('e'))) << l.toStdString();
    EXPECT_TRUE(
        std::any_of(labels.begin(), labels.end(), [](const QString& l) { return l.endsWith(",000,000"); }));
  }
}
