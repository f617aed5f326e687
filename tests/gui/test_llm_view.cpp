// SPDX-License-Identifier: Apache-2.0
// LLM inference in the window (issue 21): the view's bars, lines and decision rows are runInference's
// numbers (GPT-3 13B, batch 1, 128 input and 8 output tokens on gpu and attacc-full); an input the engine
// refuses is named next to Run and nothing runs; Cancel keeps the systems already finished and the view runs
// again; the CSV is the CLI's; a small request stream is served online and offline; Run > LLM inference…
// (Ctrl+L) opens the view, and a PIM row of the decision table opens its kernel, shape and declared residency
// in the explorer.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "engine/llm/llm_export.h"
#include "gui_test_util.h"
#include "views/control_panel.h"
#include "views/exploration_session.h"
#include "views/llm_breakdown_chart.h"
#include "views/llm_decision_model.h"
#include "views/llm_decisions_panel.h"
#include "views/llm_serve_chart.h"
#include "views/llm_token_chart.h"
#include "views/llm_view.h"
#include "views/llm_warmup_panel.h"
#include "views/main_window.h"
#include "views/run_confirmation.h"

using namespace pimgui;
using pimgui::test::waitFor;

namespace {

/// Types the request into the form as a user would and ticks exactly `systems`.
void ask(LlmView& v, const QString& batch, const QString& lin, const QString& lout,
         const QStringList& systems) {
  v.modelBox()->setCurrentIndex(v.modelBox()->findData(QStringLiteral("gpt3-13b")));
  v.batchField()->setText(batch);
  v.linField()->setText(lin);
  v.loutField()->setText(lout);
  v.chooseSystems(systems);
}

/// Clicks Run and waits for the view's `done`.
bool runAndWait(LlmView& v, int timeoutMs = 30000) {
  QSignalSpy done(&v, &LlmView::done);
  QTest::mouseClick(v.runButton(), Qt::LeftButton);
  return waitFor([&] { return done.count() > 0; }, timeoutMs);
}

const QStringList kGpuAndFull = {QStringLiteral("gpu"), QStringLiteral("attacc-full")};

pim::llm::InferenceResult engineRun() {
  pim::llm::LlmSimulator sim(pim::llm::LlmSetup{});
  return pim::llm::runInference(sim, {pim::llm::parseSystem("gpu"), pim::llm::parseSystem("attacc-full")}, 1,
                                128, 8);
}

QString fileText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

TEST(LlmView, BarsLinesAndDecisionsAreTheEnginesNumbers) {
  LlmView v;
  v.show();
  QAbstractItemModelTester tester(v.decisions()->model(),
                                  QAbstractItemModelTester::FailureReportingMode::Fatal);
  ask(v, "1", "128", "8", kGpuAndFull);
  ASSERT_TRUE(runAndWait(v)) << v.status()->text().toStdString();
  EXPECT_TRUE(v.error()->text().isEmpty()) << v.error()->text().toStdString();
  ASSERT_TRUE(v.lastRun());
  const pim::llm::InferenceResult engine = engineRun();

  // Breakdown: two bars, gpu the reference at 1.0, attacc-full at its time over gpu's.
  const auto& bars = v.breakdown()->bars();
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_EQ(bars[0].system, "gpu");
  EXPECT_DOUBLE_EQ(bars[0].total, 1.0);
  EXPECT_EQ(bars[0].speedup, "1.00x");
  EXPECT_EQ(v.breakdown()->reference(), "gpu");
  ASSERT_TRUE(engine.systems[1].available);
  EXPECT_DOUBLE_EQ(bars[1].total, engine.systems[1].meanTokenMs / engine.systems[0].meanTokenMs);
  double stacked = 0;
  for (double part : bars[1].parts) stacked += part;
  EXPECT_NEAR(stacked, bars[1].total, 1e-9);
  // One stack layer per phase; the LM head's only when it is timed.
  EXPECT_EQ(v.breakdown()->plot()->plottableCount(), static_cast<int>(pim::llm::Phase::LmHead));
  EXPECT_EQ(v.breakdown()->plot()->yAxis->label(), "time per token (normalised to GPU)");

  // Per token: one line per system, one point per decode step (lout - 1).
  QCustomPlot* lines = v.tokens()->plot();
  ASSERT_EQ(lines->graphCount(), 2);
  for (int g = 0; g < 2; ++g) {
    ASSERT_EQ(lines->graph(g)->dataCount(), 7);
    EXPECT_DOUBLE_EQ(lines->graph(g)->data()->at(0)->value, engine.systems[g].steps[0].ms);
  }

  // Decisions: attacc-full is shown first (the first system that ran with PIM) and has a PIM kernel row.
  LlmDecisionsPanel* d = v.decisions();
  EXPECT_EQ(d->systemBox()->currentData().toString(), "attacc-full");
  ASSERT_GT(d->model()->rowCount(), 0);
  EXPECT_EQ(static_cast<std::size_t>(d->model()->rowCount()), engine.systems[1].decisions.size());
  int pimRow = -1;
  for (int r = 0; r < d->model()->rowCount() && pimRow < 0; ++r)
    if (llmPimKernelOf(d->model()->decision(r).shape)) pimRow = r;
  ASSERT_GE(pimRow, 0);
  const QString shape = d->model()->index(pimRow, LlmDecisionModel::kShape).data().toString();
  EXPECT_TRUE(shape.startsWith("gemv[") || shape.startsWith("attn[")) << shape.toStdString();
  EXPECT_TRUE(d->memory()->text().contains("GB of weights")) << d->memory()->text().toStdString();
  EXPECT_TRUE(d->residency()->text().startsWith("Residency: weights are laid out once"));

  // Export: the CLI's CSV writers, byte for byte.
  QTemporaryDir dir;
  const QString tokens = dir.filePath("tokens.csv"), decisions = dir.filePath("decisions.csv");
  QString error;
  ASSERT_TRUE(v.exportTokensCsv(tokens, &error)) << error.toStdString();
  ASSERT_TRUE(v.exportDecisionsCsv(decisions, &error)) << error.toStdString();
  EXPECT_EQ(fileText(tokens).toStdString(), pim::llm::tokenSeriesCsv(engine));
  EXPECT_EQ(fileText(decisions).toStdString(), pim::llm::decisionsCsv(engine));
  ASSERT_TRUE(v.exportChart(LlmView::Chart::Breakdown, dir.filePath("b.png"), &error)) << error.toStdString();
  EXPECT_FALSE(QImage(dir.filePath("b.png")).isNull());
  EXPECT_FALSE(v.exportServedCsv(dir.filePath("served.csv"), &error));  // no stream was served
}

TEST(LlmView, ShapesOfPimKernelsOpenAtTheirFirstLength) {
  const auto gemv = llmPimKernelOf("gemv[b=1,out=15360,in=5120]");
  ASSERT_TRUE(gemv);
  EXPECT_EQ(gemv->kernel, "gemv");
  EXPECT_EQ(gemv->dims, "b=1,out=15360,in=5120");
  const auto attn = llmPimKernelOf("attn[b=1,h=40,l=2049..2175,d=128]");
  ASSERT_TRUE(attn);
  EXPECT_EQ(attn->kernel, "attn");
  EXPECT_EQ(attn->dims, "b=1,h=40,l=2049,d=128");
  EXPECT_FALSE(llmPimKernelOf("1x15360x5120"));
  EXPECT_FALSE(llmPimKernelOf("1x2049x128 (x40) (l=2049..2079)"));
}

TEST(LlmView, ARefusedInputIsNamedAndNothingRuns) {
  LlmView v;
  ask(v, "0", "128", "8", kGpuAndFull);
  ASSERT_TRUE(runAndWait(v));
  EXPECT_TRUE(v.error()->text().startsWith("Batch: 0 is outside 1..")) << v.error()->text().toStdString();
  EXPECT_EQ(v.lastRun(), nullptr);
  EXPECT_TRUE(v.breakdown()->bars().empty());
  EXPECT_EQ(v.batchField()->text(), "0");  // nothing the user typed is changed
  EXPECT_TRUE(v.runButton()->isEnabled());

  ask(v, "1", "0", "8", kGpuAndFull);
  ASSERT_TRUE(runAndWait(v));
  EXPECT_TRUE(v.error()->text().startsWith("Input tokens: 0 is outside 1.."))
      << v.error()->text().toStdString();
  EXPECT_EQ(v.lastRun(), nullptr);

  // Refused before the engine: not a number, no system ticked (no run, so no `done`).
  ask(v, "1", "128", "eight", kGpuAndFull);
  v.run();
  EXPECT_EQ(v.error()->text(), "Output tokens: 'eight' is not a whole number");
  EXPECT_FALSE(v.running());
  ask(v, "1", "128", "8", {});
  v.run();
  EXPECT_TRUE(v.error()->text().startsWith("Systems: tick at least one"));
  EXPECT_FALSE(v.running());
}

TEST(LlmView, CancelKeepsTheFinishedSystemsAndTheViewRunsAgain) {
  LlmView v;
  // Long enough that attacc-full is still running when Cancel comes (gpu 0.1 s, attacc-full about 7 s).
  ask(v, "1", "128", "3000", kGpuAndFull);
  QSignalSpy done(&v, &LlmView::done);
  v.run();
  EXPECT_TRUE(v.running());
  EXPECT_FALSE(v.batchField()->isEnabled());  // a run in progress disables the inputs
  EXPECT_FALSE(v.systemBox("gpu")->isEnabled());
  ASSERT_TRUE(waitFor([&] { return v.lastRun() && v.lastRun()->result.systems.size() == 1; }, 20000));
  ASSERT_TRUE(waitFor([&] { return v.status()->text().startsWith("attacc-full (2 of 2): step"); }, 10000));
  QTest::mouseClick(v.cancelButton(), Qt::LeftButton);
  ASSERT_TRUE(waitFor([&] { return done.count() > 0; }, 10000));
  EXPECT_FALSE(v.running());
  ASSERT_TRUE(v.lastRun());
  ASSERT_EQ(v.lastRun()->result.systems.size(), 1u);
  EXPECT_TRUE(v.lastRun()->result.systems[0].available);
  EXPECT_EQ(v.breakdown()->bars().size(), 1u);
  EXPECT_TRUE(v.status()->text().startsWith("Cancelled after")) << v.status()->text().toStdString();
  EXPECT_TRUE(v.status()->text().contains("1 of 2 systems kept"));
  EXPECT_TRUE(v.batchField()->isEnabled());

  ask(v, "1", "128", "8", kGpuAndFull);
  ASSERT_TRUE(runAndWait(v));
  EXPECT_EQ(v.breakdown()->bars().size(), 2u);
}

TEST(LlmView, ASecondRunOfTheSameSetupReusesTheLookupTable) {
  LlmView v;
  ask(v, "1", "128", "4", {QStringLiteral("attacc-full+dcc")});
  ASSERT_TRUE(runAndWait(v));
  ASSERT_TRUE(v.lastRun());
  const pim::llm::SystemResult first = v.lastRun()->result.systems.at(0);
  ASSERT_TRUE(first.available) << first.reason;
  EXPECT_GT(first.compileMs, 0);  // DCC compiled its shapes
  ASSERT_TRUE(runAndWait(v));
  const pim::llm::SystemResult& again = v.lastRun()->result.systems.at(0);
  EXPECT_EQ(again.compileMs, 0);  // all in the table the first run filled
  EXPECT_DOUBLE_EQ(again.meanTokenMs, first.meanTokenMs);
}

TEST(LlmView, RunMenuOpensItAndAPimRowOpensItsKernelInTheExplorer) {
  MainWindow w(false);
  w.show();
  w.runConfirmation()->setEnabled(false);  // no estimate dialog in between
  QAction* open = nullptr;
  for (QAction* menu : w.menuBar()->actions())
    if (menu->menu() && menu->text() == "&Run")
      for (QAction* a : menu->menu()->actions())
        if (a->text() == "&LLM inference…") open = a;
  ASSERT_NE(open, nullptr);
  EXPECT_EQ(open->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_L));
  open->trigger();
  LlmView* v = w.llmView();
  ASSERT_TRUE(v->isVisible());

  ask(*v, "1", "128", "8", kGpuAndFull);
  ASSERT_TRUE(runAndWait(*v));
  LlmDecisionsPanel* d = v->decisions();
  int attention = -1;
  for (int r = 0; r < d->model()->rowCount(); ++r)
    if (d->model()->decision(r).shape.starts_with("attn[")) attention = r;
  ASSERT_GE(attention, 0);
  QTableView* table = d->table();
  const QRect cell = table->visualRect(d->model()->index(attention, LlmDecisionModel::kShape));
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
  QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());

  EXPECT_EQ(w.session()->config().backend, "attacc");
  EXPECT_FALSE(w.session()->config().backendOverride);  // 5 devices, power constraint on: the shipped attacc
  EXPECT_EQ(w.session()->config().kernel, "attn");
  EXPECT_EQ(w.session()->config().shape, "b=1,h=40,l=129,d=128");
  EXPECT_FALSE(w.session()->config().resident.has_value());  // what attn declares: K and V
  EXPECT_EQ(w.controls()->residentField()->text().remove(' '), "K,V");
  EXPECT_TRUE(w.undoStack()->canUndo());  // the problem the panel had is one Undo away
  w.session()->cancel();
  EXPECT_TRUE(waitFor([&] { return w.idle(); }, 30000));
}

TEST(LlmView, WarmUpServesTheStreamOnlineAndOffline) {
  LlmView v;
  LlmWarmupPanel* w = v.warmup();
  EXPECT_EQ(w->systemBox()->currentText(), "attacc-full+dcc");
  w->requestsField()->setText("3");
  w->batchField()->setText("1");
  w->linField()->setText("32-16");  // refused by the engine, naming the field
  v.serve();
  EXPECT_FALSE(v.running());
  EXPECT_TRUE(w->error()->text().startsWith("Input tokens: 32:16 is not a range"))
      << w->error()->text().toStdString();

  w->linField()->setText("16-32");
  w->loutField()->setText("2-4");
  QSignalSpy done(&v, &LlmView::done);
  QTest::mouseClick(w->runButton(), Qt::LeftButton);
  ASSERT_TRUE(waitFor([&] { return done.count() > 0; }, 30000)) << v.status()->text().toStdString();
  const auto& runs = w->runs();
  ASSERT_EQ(runs.size(), 2u);
  pim::llm::StreamSpec spec;
  spec.requests = 3;
  spec.batch = 1;
  spec.linMin = 16, spec.linMax = 32, spec.loutMin = 2, spec.loutMax = 4;
  const auto asked = pim::llm::streamRequests(spec);
  for (const auto& run : runs) {
    ASSERT_EQ(run.requests.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(run.requests[i].lin, asked[i].lin);
  }
  EXPECT_EQ(runs[0].mode, pim::llm::LookupMode::Online);
  EXPECT_GT(runs[0].warmup, 0);  // the online table compiled while serving
  EXPECT_EQ(runs[1].warmup, 0);  // the offline one before the stream
  EXPECT_EQ(runs[0].tableSize, runs[1].tableSize);
  EXPECT_EQ(w->chart()->plot()->graphCount(), 2);
  EXPECT_TRUE(w->chart()->caption()->text().contains("warm-up"));
  QTemporaryDir dir;
  QString error;
  ASSERT_TRUE(v.exportServedCsv(dir.filePath("served.csv"), &error)) << error.toStdString();
  EXPECT_EQ(fileText(dir.filePath("served.csv")).toStdString(), pim::llm::servedCsv(runs));
}

// Ticking "LM head" times the final norm and LM head (--lm-head): the breakdown gains its layer and
// attacc-full's bar is the engine's with the head; the decision table gains its row. The lookup table is
// kept.
TEST(LlmView, TheLmHeadBoxTimesTheHeadAsTheCliDoes) {
  LlmView v;
  ask(v, "1", "128", "4", kGpuAndFull);
  v.lmHeadBox()->setChecked(true);
  ASSERT_TRUE(runAndWait(v)) << v.status()->text().toStdString();
  pim::llm::LlmSetup setup;
  setup.lmHead = true;
  pim::llm::LlmSimulator sim(setup);
  const auto engine = pim::llm::runInference(
      sim, {pim::llm::parseSystem("gpu"), pim::llm::parseSystem("attacc-full")}, 1, 128, 4);
  ASSERT_TRUE(engine.lmHead);
  EXPECT_EQ(v.breakdown()->plot()->plottableCount(), pim::llm::kPhaseCount);
  const auto& bars = v.breakdown()->bars();
  ASSERT_EQ(bars.size(), 2u);
  EXPECT_DOUBLE_EQ(bars[1].total, engine.systems[1].meanTokenMs / engine.systems[0].meanTokenMs);
  EXPECT_GT(bars[1].parts[static_cast<std::size_t>(pim::llm::Phase::LmHead)], 0);
  bool headRow = false;
  for (int r = 0; r < v.decisions()->model()->rowCount(); ++r)
    headRow = headRow || v.decisions()->model()->decision(r).op == "lm_head";
  EXPECT_TRUE(headRow);
}
