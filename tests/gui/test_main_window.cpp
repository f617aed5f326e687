// SPDX-License-Identifier: Apache-2.0
// The main window explores a small session; every view must show exactly what the engine computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include <qcustomplot.h>
#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QTreeWidget>
#include <atomic>

#include "engine/core/problem.h"
#include "engine/hw/backend.h"
#include "engine/target/registry.h"
#include "gui_test_util.h"
#include "views/breakdown_chart.h"
#include "views/draft_analysis.h"
#include "views/draft_details.h"
#include "views/draft_filter_proxy.h"
#include "views/draft_selection.h"
#include "views/draft_table_model.h"
#include "views/draft_table_panel.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/unit_heatmap.h"

using namespace pimgui;

TEST(MainWindow, SmallSessionMatchesEngine) {
  MainWindow w(false);
  std::optional<QAbstractItemModelTester> tester, proxyTester;
  tester.emplace(w.model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  proxyTester.emplace(w.table()->proxy(), QAbstractItemModelTester::FailureReportingMode::Fatal);
  w.show();
  const SessionConfig c = test::smallConfig();
  ASSERT_TRUE(w.startSession(c));
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running(); }, 20000));
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.analysis()->latest() != nullptr; }, 20000));

  // The same exploration run directly on the engine.
  auto problem = w.session()->problem();
  pim::Explorer direct(*problem, w.session()->options());
  std::atomic<bool> cancel{false};
  direct.run(cancel);
  const auto records = direct.records();

  // Table: one row per record, same ids, same simulated times.
  ASSERT_EQ(w.model()->keptRows(), static_cast<int>(records.size()));
  int simulated = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const DraftRow& row = w.model()->row(static_cast<int>(i));
    EXPECT_EQ(row.draft.id, records[i].draft.id);
    ASSERT_EQ(row.simulated != nullptr, records[i].simulated != nullptr);
    if (row.simulated) {
      ++simulated;
      EXPECT_DOUBLE_EQ(row.simulated->timeNs, records[i].simulated->timeNs);
      EXPECT_DOUBLE_EQ(row.simulated->energyPj, records[i].simulated->energyPj);
    }
  }
  // Pareto: one point per simulated draft, coordinates in µs / µJ.
  EXPECT_EQ(static_cast<int>(w.pareto()->points().size()), simulated);
  for (const auto& p : w.pareto()->points()) {
    const DraftRow& row = w.model()->row(w.model()->rowOf(p.id));
    EXPECT_DOUBLE_EQ(p.x, row.simulated->timeNs / 1e3);
    EXPECT_DOUBLE_EQ(p.y, row.simulated->energyPj / 1e6);
  }
  // The best draft is selected and shown everywhere.
  const auto best = direct.best();
  ASSERT_TRUE(best.has_value());
  ASSERT_TRUE(w.selection()->current().has_value());
  EXPECT_EQ(*w.selection()->current(), best->draft.id);
  EXPECT_EQ(w.table()->view()->selectionModel()->selectedRows().size(), 1);
  EXPECT_EQ(w.table()
                ->view()
                ->selectionModel()
                ->selectedRows()
                .front()
                .data(DraftTableModel::DraftIdRole)
                .value<quint64>(),
            best->draft.id);

  // Breakdown: the best draft's bar equals its simulated phases; baselines present.
  bool sawBest = false, sawGpu = false, sawComputeCentric = false;
  for (const BreakdownBar& b : w.breakdown()->bars()) {
    if (b.label == QStringLiteral("TVM-like")) {
      sawComputeCentric = true;
      // DCC's point: the compute-centric choice never beats the data-centric optimum of an exhaustive search.
      EXPECT_GE(b.total(), best->simulated->timeNs * (1 - 1e-9));
    }
    if (b.draft && *b.draft == best->draft.id) {
      sawBest = true;
      ASSERT_EQ(b.segments.size(), 3u);  // DRAM-PIM declares no sub-phases: the three fixed phases
      EXPECT_DOUBLE_EQ(b.ns(QStringLiteral("Input rearrangement")), best->simulated->ns(0));
      EXPECT_DOUBLE_EQ(b.ns(QStringLiteral("Compute")), best->simulated->ns(1));
      EXPECT_DOUBLE_EQ(b.ns(QStringLiteral("Output rearrangement")), best->simulated->ns(2));
    }
    if (b.totalOnly) sawGpu = true;
  }
  EXPECT_TRUE(sawBest);
  EXPECT_TRUE(sawComputeCentric);
  const pim::Baseline gpu = pim::gpuBaseline(*problem);
  EXPECT_EQ(sawGpu, gpu.available);

  // Heat map: cells equal evaluateDraft's per-unit statistics (as the target declares them) and the layout.
  pim::EvalOptions eo = w.session()->config().evalOptions();
  const pim::Evaluation eval = pim::evaluateDraft(*problem, best->draft, eo);
  UnitHeatmap* hm = w.heatmap();
  const auto& backend = problem->backend();
  ASSERT_EQ(hm->geometry().outerCount, backend.totalGroups() * backend.group.pseudoChannelsPerGroup);
  ASSERT_EQ(hm->geometry().innerCount, backend.dram.banksPerPseudoChannel());
  const auto& decls = pim::targetOf(backend).statistics();
  const auto busy =
      std::find_if(decls.begin(), decls.end(), [](const auto& d) { return d.key == "busy_cycles"; });
  ASSERT_NE(busy, decls.end());
  const auto column = static_cast<std::size_t>(busy - decls.begin());
  hm->setMetric("busy_cycles");
  const int inner = hm->geometry().innerCount;
  double sumShown = 0, sumEngine = 0;
  ASSERT_EQ(eval.unitStats.units(), static_cast<std::size_t>(hm->geometry().units()));
  for (std::size_t u = 0; u < eval.unitStats.units(); ++u) {
    const int o = static_cast<int>(u) / inner, i = static_cast<int>(u) % inner;
    EXPECT_DOUBLE_EQ(hm->cellValue(o, i), eval.unitStats.at(u, column));
    sumEngine += eval.unitStats.at(u, column);
  }
  for (int o = 0; o < hm->geometry().outerCount; ++o)
    for (int i = 0; i < inner; ++i) sumShown += hm->cellValue(o, i);
  EXPECT_DOUBLE_EQ(sumShown, sumEngine);
  EXPECT_GT(sumEngine, 0);
  hm->setMetric(UnitHeatmap::kPlacedBytes);
  const auto analysis = w.analysis()->latest();
  ASSERT_TRUE(analysis->layout.has_value());
  int used = 0;
  for (const auto& b : analysis->layout->banks) {
    EXPECT_DOUBLE_EQ(hm->cellValue(b.pseudoChannel, b.bank), b.bytes / 1024.0);
    used += b.bytes > 0;
  }
  EXPECT_GT(used, 0);
  EXPECT_FALSE(
      hm->cellTooltip(analysis->layout->banks.front().pseudoChannel, analysis->layout->banks.front().bank)
          .isEmpty());

  // Details: IR and command listing filled; tiles listed.
  EXPECT_FALSE(w.details()->ir()->toPlainText().isEmpty());
  EXPECT_FALSE(w.details()->commands()->toPlainText().isEmpty());
  EXPECT_GE(w.details()->tiles()->topLevelItemCount(), 2);

  // Linked selection: selecting another row in the table moves every view.
  const QModelIndex other = w.table()->proxy()->index(1, 0);
  const quint64 otherId = other.data(DraftTableModel::DraftIdRole).value<quint64>();
  w.table()->view()->selectionModel()->select(
      other, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  w.table()->view()->selectionModel()->setCurrentIndex(other, QItemSelectionModel::NoUpdate);
  EXPECT_TRUE(w.selection()->contains(otherId));
  ASSERT_TRUE(test::waitFor(
      [&] { return w.analysis()->latest() && w.analysis()->latest()->draft.id == otherId; }, 10000));

  // Show pruned: the pruned drafts appear (greyed, with their rule) and a pruned draft explains itself. The
  // testers re-check every row on each change, which takes minutes with 100,000 pruned rows; pruned rows
  // under the testers are covered by test_models.cpp.
  tester.reset();
  proxyTester.reset();
  w.table()->showPrunedBox()->setChecked(true);
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.model()->prunedRows() > 0; }, 20000));
  EXPECT_EQ(w.table()->proxy()->rowCount(), w.model()->rowCount());
  const DraftRow& pruned = w.model()->row(w.model()->keptRows());
  ASSERT_TRUE(pruned.pruned);
  pim::Pruner pruner(problem->space());
  EXPECT_EQ(pruner.why(pruned.draft.id).rule, pruned.rule);
  w.selection()->set({pruned.draft.id});
  ASSERT_TRUE(test::waitFor(
      [&] { return w.analysis()->latest() && w.analysis()->latest()->draft.id == pruned.draft.id; }, 10000));
  EXPECT_TRUE(w.details()->verdict()->text().contains(QStringLiteral("Pruned by rule %1").arg(pruned.rule)));
  w.table()->showPrunedBox()->setChecked(false);

  // CSV export writes a header and one line per visible row.
  QTemporaryDir dir;
  const QString csv = dir.filePath(QStringLiteral("drafts.csv"));
  ASSERT_TRUE(w.exportCsv(csv));
  QFile f(csv);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  EXPECT_EQ(f.readAll().count('\n'), w.table()->proxy()->rowCount() + 1);
}

TEST(MainWindow, CancelStopsPromptlyAndKeepsRecords) {
  MainWindow w(false);
  SessionConfig c;  // the default GEMV 4096x4096: far too big to finish in the time we wait
  c.strategy = "exhaustive";
  ASSERT_TRUE(w.startSession(c));
  ASSERT_TRUE(test::waitFor([&] { return w.session()->progress().simulated >= 3; }, 20000));
  QElapsedTimer t;
  t.start();
  w.session()->cancel();
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running(); }, 2000));
  const qint64 ms = t.elapsed();
  // Bounds for a shared 2-core CI machine: they catch a window that waits for the worker (seconds), not
  // scheduling noise; the typical figure is printed below (0 ms idle, up to ~200 ms under load).
  EXPECT_LT(ms, 500) << "window saw the stop after " << ms << " ms";
  EXPECT_EQ(w.session()->progress().stage, "cancelled");
  // The explorer checks the flag between simulations, so its worker finishes the simulation in flight
  // (tens of ms, a few hundred on a loaded machine) before it returns.
  ASSERT_TRUE(test::waitFor([&] { return w.session()->cancelLatencyMs().has_value(); }, 5000));
  const double worker = *w.session()->cancelLatencyMs();
  EXPECT_LT(worker, 1000.0);
  std::printf("cancel: window %lld ms, explorer worker returned after %.1f ms\n", static_cast<long long>(ms),
              worker);
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 10000));
  EXPECT_GE(w.model()->keptRows(), 3);
  int simulatedRows = 0;
  for (const DraftRow& r : w.model()->rows()) simulatedRows += r.simulated != nullptr || !r.error.empty();
  EXPECT_GE(simulatedRows, 3);
  EXPECT_GE(w.session()->progress().simulated, 3u);
  EXPECT_EQ(w.session()->progress().stage, "cancelled");
  // The status says what the run finished (it said "kept 68,642 records" after a few hundred simulations).
  EXPECT_TRUE(w.statusBar()->currentMessage().startsWith(
      QStringLiteral("Cancelled after %L1 of").arg(w.session()->progress().simulated)))
      << w.statusBar()->currentMessage().toStdString();
  // A new run starts straight away (the cancelled worker is retired, not waited for).
  t.restart();
  ASSERT_TRUE(w.startSession(test::smallConfig()));
  EXPECT_LT(t.elapsed(), 100);
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 20000));
  EXPECT_GT(w.model()->keptRows(), 0);
}

TEST(MainWindow, EventLoopKeepsTurningDuringExploration) {
  // The default GEMV session (exhaustive, 300 simulations) with 68k kept drafts streaming into the table:
  // the GUI thread must never be blocked for long.
  MainWindow w(false);
  w.show();
  SessionConfig c;
  c.strategy = "exhaustive";
  c.maxSimulations = 300;
  QElapsedTimer clock;
  qint64 last = 0, worst = 0;
  QTimer tick;
  tick.setInterval(10);
  QObject::connect(&tick, &QTimer::timeout, [&] {
    const qint64 now = clock.elapsed();
    worst = std::max(worst, now - last);
    last = now;
  });
  ASSERT_TRUE(w.startSession(c));
  clock.start();
  tick.start();
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
  tick.stop();
  // 210-240 ms on the 2-core CI machine with 68,642 rows merging (page faults are slow there): the bound
  // catches a GUI thread that blocks on the exploration, not that figure, which is printed below.
  EXPECT_LT(worst, 500) << "longest GUI-thread stall " << worst << " ms";
  EXPECT_GT(w.model()->keptRows(), 0);
  std::printf("longest GUI-thread stall during exploration: %lld ms\n", static_cast<long long>(worst));
}

TEST(Screenshots, OnePngPerView) {
  QTemporaryDir dir;
  QProcess proc;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  proc.setProcessEnvironment(env);
  proc.start(QStringLiteral(PIMSCOPE_GUI_BINARY), {QStringLiteral("--screenshot"), dir.path()});
  ASSERT_TRUE(proc.waitForFinished(120000));
  EXPECT_EQ(proc.exitCode(), 0) << proc.readAllStandardError().toStdString();
  for (const char* name : {"main_window", "table", "breakdown", "pareto", "heatmap", "details",
                           "compile_cores", "compile_pipeline", "compile_pareto"}) {
    const QString path = QDir(dir.path()).filePath(QString::fromLatin1(name) + QStringLiteral(".png"));
    QImage img(path);
    EXPECT_FALSE(img.isNull()) << name;
    EXPECT_GT(img.width(), 200) << name;
    EXPECT_GT(img.height(), 150) << name;
  }
}
