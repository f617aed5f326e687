// SPDX-License-Identifier: Apache-2.0
// Item models under QAbstractItemModelTester, fed by a real exploration.
#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <atomic>
#include <memory>

#include "engine/core/problem.h"
#include "engine/hw/backend.h"
#include "engine/kernel/kernel.h"
#include "engine/kernel/library.h"
#include "engine/target/registry.h"
#include "gui_test_util.h"
#include "views/draft_filter_proxy.h"
#include "views/draft_selection.h"
#include "views/draft_table_model.h"
#include "views/pareto_plot.h"
#include "views/pruned_lister.h"

using namespace pimgui;

using test::smallProblem;

TEST(DraftTableModel, PassesModelTesterWhileGrowingAndWithPrunedRows) {
  auto problem = smallProblem();
  pim::ExploreOptions o;
  o.strategy = "exhaustive";
  o.maxSimulations = 10;
  pim::Explorer explorer(*problem, o);
  std::atomic<bool> cancel{false};
  explorer.run(cancel);
  const auto records = explorer.records();
  ASSERT_FALSE(records.empty());

  DraftTableModel model;
  DraftFilterProxy proxy;
  proxy.setSourceModel(&model);
  QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.reset(problem);
  // Grow in two steps as a live run does.
  const std::vector<pim::DraftRecord> half(records.begin(),
                                           records.begin() + static_cast<long>(records.size() / 2));
  model.updateRecords(half);
  model.updateRecords(records);
  ASSERT_EQ(model.rowCount(), static_cast<int>(records.size()));
  for (std::size_t i = 0; i < records.size(); ++i) {
    EXPECT_EQ(model.row(static_cast<int>(i)).draft.id, records[i].draft.id);
    EXPECT_EQ(model.rowOf(records[i].draft.id), static_cast<int>(i));
    if (records[i].simulated) {
      const QModelIndex sim = model.index(static_cast<int>(i), DraftTableModel::Simulated);
      EXPECT_DOUBLE_EQ(sim.data(DraftTableModel::SortRole).toDouble(), records[i].simulated->timeNs);
      EXPECT_EQ(model.index(static_cast<int>(i), DraftTableModel::Parts).data().toString().toStdString(),
                problem->space().label(records[i].draft));
    }
  }

  std::atomic<bool> stop{false};
  bool capped = false;
  auto pruned = listPruned(*problem, {}, 500, stop, &capped);
  ASSERT_FALSE(pruned.empty());
  model.appendPruned(pruned);
  EXPECT_EQ(model.prunedRows(), static_cast<int>(pruned.size()));
  EXPECT_EQ(proxy.rowCount(), static_cast<int>(records.size()));  // pruned hidden by default
  proxy.setShowPruned(true);
  EXPECT_EQ(proxy.rowCount(), model.rowCount());
  proxy.setText(QStringLiteral("pruned (rule"));
  EXPECT_EQ(proxy.rowCount(), static_cast<int>(pruned.size()));
  proxy.setText({});
  proxy.sort(DraftTableModel::Simulated, Qt::AscendingOrder);
  // Ascending by simulated time: the first row is the best simulated draft.
  const auto best = explorer.best();
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(proxy.index(0, 0).data(DraftTableModel::DraftIdRole).value<quint64>(), best->draft.id);
  for (int c = 0; c < DraftTableModel::ColumnCount; ++c) proxy.sort(c, Qt::DescendingOrder);
}

// A target with kernel-level choices (upmem) adds one column per choice, filled from each candidate's id, and
// the model stays valid when a reset changes the column count.
TEST(DraftTableModel, ChoiceColumnsShowEachCandidatesChoices) {
  const pim::Kernel k = pim::retyped(pim::KernelLibrary::builtin().get("va"), pim::DType::I32);
  auto problem = std::make_shared<const pim::Problem>(pim::builtinBackends().get("upmem"), k,
                                                      pim::parseShape(k, "b=1,n=8192"));
  pim::ExploreOptions o;
  o.strategy = "imtp";
  o.sampling.trials = 24;
  o.sampling.batch = 8;
  pim::Explorer explorer(*problem, o);
  std::atomic<bool> cancel{false};
  explorer.run(cancel);
  const auto records = explorer.records();
  ASSERT_EQ(records.size(), 24u);

  DraftTableModel model;
  DraftFilterProxy proxy;
  proxy.setSourceModel(&model);
  QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.reset(smallProblem());
  EXPECT_EQ(model.columnCount(), DraftTableModel::ColumnCount);
  model.reset(problem);
  const pim::CandidateIds ids = pim::targetOf(problem->backend()).candidateIds(*problem);
  ASSERT_EQ(model.columnCount(), DraftTableModel::ColumnCount + static_cast<int>(ids.axes().size()));
  EXPECT_EQ(model.headerData(DraftTableModel::ColumnCount, Qt::Horizontal).toString(),
            QStringLiteral("tasklets"));
  model.updateRecords(records);
  for (int r = 0; r < model.rowCount(); ++r) {
    const std::vector<int> c = ids.choiceOf(records[static_cast<std::size_t>(r)].draft.id);
    for (std::size_t a = 0; a < ids.axes().size(); ++a) {
      const pim::ChoiceAxis& axis = ids.axes()[a];
      const QString cell =
          model.index(r, DraftTableModel::ColumnCount + static_cast<int>(a)).data().toString();
      const auto v = static_cast<std::size_t>(c[a]);
      EXPECT_EQ(cell.toStdString(), axis.numeric ? std::to_string(axis.values[v]) : axis.texts[v])
          << axis.key;
    }
  }
  for (int c = 0; c < model.columnCount(); ++c) proxy.sort(c, Qt::AscendingOrder);
}

// An empty Pareto plot says why: nothing evaluated, or no draft with a value on one axis (a predicted time in
// a run without predictions).
TEST(ParetoPlot, AnEmptyPlotNamesTheAxisWithoutValues) {
  auto problem = smallProblem();
  pim::ExploreOptions o;
  o.strategy = "exhaustive";
  o.maxSimulations = 6;
  o.predictorSource = [] { return static_cast<const pim::Predictor*>(nullptr); };
  pim::Explorer explorer(*problem, o);
  std::atomic<bool> cancel{false};
  explorer.run(cancel);
  DraftTableModel model;
  DraftSelection selection;
  ParetoPlot plot(&model, &selection);
  model.reset(problem);
  EXPECT_TRUE(plot.emptyNote().contains(QStringLiteral("nothing evaluated")))
      << plot.emptyNote().toStdString();
  EXPECT_FALSE(plot.plot()->xAxis->tickLabels());  // no numbers for a range with nothing in it
  EXPECT_FALSE(plot.plot()->yAxis->tickLabels());
  model.updateRecords(explorer.records());
  plot.setObjectives(Objective::PredictedTime, Objective::Energy);
  EXPECT_TRUE(plot.emptyNote().contains(QStringLiteral("no draft has a value for Predicted time")))
      << plot.emptyNote().toStdString();
  plot.setObjectives(Objective::SimulatedTime, Objective::Energy);
  EXPECT_TRUE(plot.emptyNote().isEmpty());
  EXPECT_TRUE(plot.plot()->xAxis->tickLabels());
  EXPECT_TRUE(plot.plot()->yAxis->tickLabels());
}

TEST(DraftTableModel, HundredThousandRowsStayFast) {
  auto problem = smallProblem();
  DraftTableModel model;
  model.reset(problem);
  pim::MeasuredError measured;
  measured.add(105, 100);  // +5%
  measured.add(95, 100);   // -5%
  model.setPredictionAccuracy(measured, false);
  std::vector<pim::DraftRecord> records;
  const std::uint64_t n = std::min<std::uint64_t>(100000, problem->space().size());
  for (std::uint64_t id = 0; id < n; ++id) {
    pim::DraftRecord r;
    r.draft = problem->space().draft(id);
    r.predictedNs = 1000.0 + static_cast<double>(id % 977);
    records.push_back(std::move(r));
  }
  QElapsedTimer t;
  t.start();
  model.updateRecords(records);
  DraftFilterProxy proxy;
  proxy.setSourceModel(&model);
  proxy.sort(DraftTableModel::Predicted);
  EXPECT_EQ(proxy.rowCount(), static_cast<int>(n));
  EXPECT_LT(t.elapsed(), 5000) << "loading and sorting " << n << " rows";
  EXPECT_TRUE(
      model.index(0, DraftTableModel::Source).data().toString().startsWith(QStringLiteral("predicted ±5")));
}

TEST(ParetoFront, KeepsOnlyNonDominatedPoints) {
  const std::vector<std::pair<double, double>> pts{{1, 5}, {2, 3}, {3, 4}, {4, 1}, {2, 3}, {5, 5}};
  auto front = paretoFront(pts);
  std::sort(front.begin(), front.end());
  EXPECT_EQ(front, (std::vector<std::size_t>{0, 1, 3, 4}));
}
