// SPDX-License-Identifier: Apache-2.0
// Compare backends: the view shows pim::compareBackends' numbers (table, bars on one µs scale, verdict), a
// backend pinned as baseline is 1.00x, Cancel stops the run, fewer than 2 backends cannot be compared, and a
// row drills into the explorer with its best draft.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <cmath>

#include "engine/core/problem.h"
#include "engine/hw/backend.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"
#include "engine/workflow/compare.h"
#include "gui_test_util.h"
#include "views/breakdown_chart.h"
#include "views/compare_runner.h"
#include "views/compare_view.h"
#include "views/control_panel.h"
#include "views/draft_analysis.h"
#include "views/draft_selection.h"
#include "views/exploration_session.h"
#include "views/main_window.h"

using namespace pimgui;

namespace {

SessionConfig redConfig() {
  SessionConfig c;
  c.kernel = "red";
  c.shape = "b=1,n=8192";
  return c;
}

/// The engine run directly, with what the view promises to pass (default evaluation, no per-bank table).
pim::Comparison engineComparison(const std::string& kernel, const std::string& dims,
                                 std::vector<std::string> backends, const std::string& baseline) {
  pim::CompareOptions o;
  o.backends = std::move(backends);
  o.baseline = baseline;
  o.search.eval.keepUnitStats = false;
  return pim::compareBackends(pim::resolveKernel(kernel, ""), dims, o);
}

bool runAndWait(CompareView& v, int timeoutMs = 120000) {
  QSignalSpy done(&v, &CompareView::done);
  if (!v.compare()) return false;
  return test::waitFor([&] { return done.count() > 0; }, timeoutMs) && v.comparison() != nullptr;
}

int rowOf(const CompareView& v, const std::string& backend) {
  for (int r = 0; r < v.table()->rowCount(); ++r) {
    const QString name = v.table()->item(r, CompareView::Backend)->text();
    if (name.section(QLatin1Char(' '), 0, 0).toStdString() == backend) return r;
  }
  return -1;
}

double value(const CompareView& v, int row, int column) {
  return v.table()->item(row, column)->data(CompareView::ValueRole).toDouble();
}

/// The table, the bars and the verdict show exactly `c`.
void expectViewShows(const CompareView& v, const pim::Comparison& c) {
  EXPECT_EQ(v.verdictLabel()->text().toStdString(), c.verdict);
  EXPECT_TRUE(v.verdictLabel()->isVisible());
  ASSERT_EQ(v.table()->rowCount(), static_cast<int>(c.results.size()));
  for (int row = 0; row < static_cast<int>(c.results.size()); ++row) {
    // Same order as the engine's (best speed-up first).
    const pim::BackendResult& r = c.results[static_cast<std::size_t>(row)];
    ASSERT_EQ(rowOf(v, r.backend), row) << r.backend;
    ASSERT_TRUE(r.available) << r.reason;
    EXPECT_EQ(v.table()->item(row, CompareView::Strategy)->text().toStdString(), r.strategy);
    EXPECT_EQ(v.table()->item(row, CompareView::Draft)->text(), QString::number(r.draft->id));
    EXPECT_EQ(v.table()->item(row, CompareView::Parts)->text().toStdString(), r.draftLabel);
    for (int phase = 0; phase < 3; ++phase)
      EXPECT_EQ(value(v, row, CompareView::InCycles + phase),
                static_cast<double>(r.eval.cycles[static_cast<std::size_t>(phase)]));
    EXPECT_EQ(value(v, row, CompareView::TimeUs), r.eval.timeNs);
    EXPECT_EQ(v.table()->item(row, CompareView::TimeUs)->text(),
              QString::number(r.eval.timeNs / 1e3, 'f', 3));
    EXPECT_EQ(value(v, row, CompareView::Energy), r.eval.energyPj);
    ASSERT_TRUE(r.speedup.has_value());
    EXPECT_EQ(value(v, row, CompareView::Speedup), *r.speedup);
    EXPECT_EQ(v.table()->item(row, CompareView::Speedup)->text(), QString::number(*r.speedup, 'f', 2) + "×");
  }

  // Bars: the baseline first (the reference, 1.00x), then the others in the engine's order, on one µs scale.
  const std::vector<BreakdownBar>& bars = v.chart()->bars();
  ASSERT_FALSE(bars.empty());
  EXPECT_EQ(v.chart()->speedupText(0), QStringLiteral("1.00×"));
  std::vector<const pim::BackendResult*> order;
  for (const auto& r : c.results)
    if (r.backend == c.baseline) order.push_back(&r);
  for (const auto& r : c.results)
    if (r.backend != c.baseline) order.push_back(&r);
  const std::size_t first = c.baseline == "gpu" ? 1 : 0;
  ASSERT_EQ(bars.size(), order.size() + first);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const pim::BackendResult& r = *order[i];
    const BreakdownBar& b = bars[i + first];
    EXPECT_EQ(b.label.toStdString(), r.backend);
    EXPECT_FALSE(b.totalOnly);
    // Cycles are per backend clock: each phase is scaled by the evaluation's ns per cycle.
    const double nsPerCycle = r.eval.timeNs / static_cast<double>(r.eval.totalCycles);
    EXPECT_DOUBLE_EQ(b.ns(QStringLiteral("Input rearrangement")),
                     static_cast<double>(r.eval.cycles[0]) * nsPerCycle);
    EXPECT_DOUBLE_EQ(b.ns(QStringLiteral("Compute")), static_cast<double>(r.eval.cycles[1]) * nsPerCycle);
    EXPECT_DOUBLE_EQ(b.ns(QStringLiteral("Output rearrangement")),
                     static_cast<double>(r.eval.cycles[2]) * nsPerCycle);
    EXPECT_NEAR(b.total(), r.eval.timeNs, r.eval.timeNs * 1e-12);  // the bar ends at the engine's time
    // The annotation on the bar says what the table says.
    EXPECT_EQ(v.chart()->speedupText(static_cast<int>(i + first)),
              v.table()->item(rowOf(v, r.backend), CompareView::Speedup)->text());
  }
}

/// `shown` (what the view received) and `ref` (compareBackends run here) agree. The explorer simulates on two
/// threads and keeps the first of equally fast drafts to finish, so a backend's best draft id may differ
/// between runs; then the shown draft, evaluated directly, must take exactly the reference's best time.
void expectSameOutcome(const pim::Comparison& shown, const pim::Comparison& ref, const std::string& kernel,
                       const std::string& dims) {
  EXPECT_EQ(shown.baseline, ref.baseline);
  EXPECT_EQ(shown.baselineNs, ref.baselineNs);
  ASSERT_EQ(shown.results.size(), ref.results.size());
  bool sameDrafts = true;
  for (std::size_t i = 0; i < ref.results.size(); ++i) {
    const pim::BackendResult& s = shown.results[i];
    const pim::BackendResult& r = ref.results[i];
    ASSERT_EQ(s.backend, r.backend);
    ASSERT_TRUE(s.available && r.available);
    EXPECT_EQ(s.eval.timeNs, r.eval.timeNs) << r.backend;
    EXPECT_EQ(*s.speedup, *r.speedup) << r.backend;
    if (s.draft->id == r.draft->id) {
      EXPECT_EQ(s.eval.cycles, r.eval.cycles);
      EXPECT_EQ(s.eval.energyPj, r.eval.energyPj);
      continue;
    }
    sameDrafts = false;
    const pim::Kernel k = pim::resolveKernel(kernel, "");
    const pim::Problem p(pim::builtinBackends().get(r.backend), k, pim::parseShape(k, dims));
    pim::EvalOptions eo;
    eo.keepUnitStats = false;
    EXPECT_EQ(pim::evaluateDraft(p, *s.draft, eo).timeNs, r.eval.timeNs) << r.backend << " tie";
  }
  if (sameDrafts) {
    EXPECT_EQ(shown.verdict, ref.verdict);
  }
}

}  // namespace

TEST(CompareView, TableBarsAndVerdictAreTheEngines) {
  CompareView v;
  v.resize(1200, 800);
  v.show();
  v.loadProblem(redConfig());
  v.choose({QStringLiteral("hbm-pim"), QStringLiteral("attacc")}, QStringLiteral("gpu"));
  EXPECT_EQ(v.options().backends, (std::vector<std::string>{"attacc", "hbm-pim"}));  // registry order
  EXPECT_EQ(v.options().baseline, "gpu");
  ASSERT_TRUE(runAndWait(v)) << v.status().toStdString();
  const pim::Comparison& shown = *v.comparison();
  expectViewShows(v, shown);
  ASSERT_EQ(v.chart()->bars().size(), shown.results.size() + 1);
  EXPECT_TRUE(v.chart()->bars()[0].totalOnly);  // GPU-only: one bar of the baseline time
  EXPECT_EQ(v.chart()->bars()[0].totalNs, shown.baselineNs);

  // The engine run directly on the same inputs agrees.
  const pim::Comparison ref = engineComparison("red", "b=1,n=8192", {"attacc", "hbm-pim"}, "gpu");
  expectSameOutcome(shown, ref, "red", "b=1,n=8192");
}

// The view compared with what the kernel declares, whatever the control panel said.
TEST(CompareView, ThePanelsResidencyIsCompared) {
  CompareView v;
  v.resize(1200, 800);
  v.show();
  SessionConfig c;  // gemv, which declares W resident
  c.shape = "b=1,out=1024,in=1024";
  c.resident = "";  // the panel streams every tensor
  v.loadProblem(c);
  v.choose({QStringLiteral("attacc")}, QStringLiteral("gpu"));
  ASSERT_TRUE(runAndWait(v)) << v.status().toStdString();
  EXPECT_EQ(v.comparison()->resident, "");
  pim::CompareOptions o;
  o.backends = {"attacc"};
  o.search.eval.keepUnitStats = false;
  const pim::Kernel gemv = pim::resolveKernel("gemv", "");
  o.residency = pim::overrideResidency(gemv, pim::Residency::declared(gemv), "", "W");
  const pim::Comparison ref = pim::compareBackends(gemv, "b=1,out=1024,in=1024", o);
  ASSERT_EQ(v.comparison()->results.size(), 1u);
  EXPECT_EQ(v.comparison()->results[0].eval.timeNs, ref.results[0].eval.timeNs);
}

TEST(CompareView, PinnedBackendBaselineIsOnePointZero) {
  CompareView v;
  v.show();
  v.loadProblem(redConfig());
  v.choose({QStringLiteral("hbm-pim"), QStringLiteral("attacc")}, QStringLiteral("gpu"));
  ASSERT_TRUE(runAndWait(v)) << v.status().toStdString();
  // Pinning another baseline re-runs the engine (the speed-ups are its numbers, not the view's).
  QSignalSpy done(&v, &CompareView::done);
  v.setBaseline(QStringLiteral("hbm-pim"));
  EXPECT_TRUE(v.running());
  ASSERT_TRUE(test::waitFor([&] { return done.count() > 0; }, 120000));
  ASSERT_TRUE(v.comparison());
  EXPECT_EQ(v.comparison()->baseline, "hbm-pim");

  expectViewShows(v, *v.comparison());
  const pim::Comparison ref = engineComparison("red", "b=1,n=8192", {"attacc", "hbm-pim"}, "hbm-pim");
  expectSameOutcome(*v.comparison(), ref, "red", "b=1,n=8192");
  const int row = rowOf(v, "hbm-pim");
  ASSERT_GE(row, 0);
  EXPECT_EQ(value(v, row, CompareView::Speedup), 1.0);
  EXPECT_EQ(v.table()->item(row, CompareView::Speedup)->text(), QStringLiteral("1.00×"));
  EXPECT_TRUE(v.table()->item(row, CompareView::Backend)->text().contains(QStringLiteral("baseline")));
  // The pinned backend's bar is the reference; no GPU bar without a GPU baseline.
  ASSERT_FALSE(v.chart()->bars().empty());
  EXPECT_EQ(v.chart()->bars()[0].label, QStringLiteral("hbm-pim"));
  EXPECT_FALSE(v.chart()->bars()[0].totalOnly);
  EXPECT_EQ(v.chart()->speedupText(0), QStringLiteral("1.00×"));
  for (const auto& b : v.chart()->bars()) EXPECT_FALSE(b.totalOnly);
}

TEST(CompareView, CancelStopsTheRun) {
  CompareView v;
  v.show();
  v.loadProblem(SessionConfig{});  // gemv b=1,out=4096,in=4096: seconds per backend
  v.choose({QStringLiteral("hbm-pim"), QStringLiteral("attacc"), QStringLiteral("gddr6-aim"),
            QStringLiteral("hbm2-pim")});
  QSignalSpy done(&v, &CompareView::done);
  ASSERT_TRUE(v.compare());
  EXPECT_TRUE(v.running());
  EXPECT_FALSE(v.compareButton()->isEnabled());
  EXPECT_TRUE(v.cancelButton()->isEnabled());
  QTest::qWait(30);
  QTest::mouseClick(v.cancelButton(), Qt::LeftButton);
  EXPECT_FALSE(v.running());
  EXPECT_EQ(done.count(), 1);
  EXPECT_TRUE(v.status().startsWith(QStringLiteral("Cancelled"))) << v.status().toStdString();
  EXPECT_TRUE(v.compareButton()->isEnabled());
  EXPECT_FALSE(v.cancelButton()->isEnabled());

  // The engine sees the flag between simulations, so the worker returns soon; its result is dropped.
  QElapsedTimer t;
  t.start();
  ASSERT_TRUE(test::waitFor([&] { return !v.runner()->workerAlive(); }, 60000));
  std::printf("compare worker returned %lld ms after cancel\n", static_cast<long long>(t.elapsed()));
  QTest::qWait(100);
  EXPECT_EQ(done.count(), 1);
  EXPECT_EQ(v.comparison(), nullptr);
  EXPECT_EQ(v.table()->rowCount(), 0);
  EXPECT_TRUE(v.chart()->bars().empty());
  EXPECT_FALSE(v.verdictLabel()->isVisible());
}

// "attacc or stay on the GPU?" needed two PIM backends; the GPU is a contender, so one backend against the
// GPU-only baseline compares, while one backend against itself (or none) does not.
TEST(CompareView, OneBackendComparesAgainstTheGpuButNotAgainstItself) {
  CompareView v;
  v.resize(1200, 800);
  v.show();
  v.loadProblem(redConfig());
  v.choose({QStringLiteral("hbm-pim")}, QStringLiteral("hbm-pim"));
  EXPECT_FALSE(v.compareButton()->isEnabled());
  EXPECT_FALSE(v.compare());
  EXPECT_FALSE(v.running());
  v.choose({});
  EXPECT_FALSE(v.compareButton()->isEnabled());
  v.choose({QStringLiteral("attacc")}, QStringLiteral("gpu"));
  EXPECT_TRUE(v.compareButton()->isEnabled());
  ASSERT_TRUE(runAndWait(v)) << v.status().toStdString();
  ASSERT_EQ(v.comparison()->results.size(), 1u);
  EXPECT_TRUE(v.comparison()->results[0].speedup.has_value());
  ASSERT_EQ(v.chart()->bars().size(), 2u);  // GPU only, attacc
  EXPECT_TRUE(v.chart()->bars()[0].totalOnly);
  EXPECT_FALSE(v.verdictLabel()->text().isEmpty());
  EXPECT_TRUE(v.compareButton()->isEnabled());  // after the run too (it re-checked "2 to 4" on its own)
  if (const QString dir = qEnvironmentVariable("PIMSCOPE_SCREENSHOTS"); !dir.isEmpty())
    v.grab().save(dir + QStringLiteral("/compare_gpu.png"));

  // Ticking boxes: the baseline list offers GPU-only and every chosen backend; a backend baseline that is
  // unticked falls back to the GPU.
  v.choose({});
  QCheckBox* hbm = v.backendBox(QStringLiteral("hbm-pim"));
  QCheckBox* attacc = v.backendBox(QStringLiteral("attacc"));
  ASSERT_TRUE(hbm && attacc);
  hbm->setChecked(true);
  EXPECT_TRUE(v.compareButton()->isEnabled());
  attacc->setChecked(true);
  EXPECT_TRUE(v.compareButton()->isEnabled());
  ASSERT_EQ(v.baselineBox()->count(), 3);
  EXPECT_EQ(v.baselineBox()->itemData(0).toString(), QStringLiteral("gpu"));
  attacc->setChecked(false);
  EXPECT_EQ(v.baselineBox()->count(), 2);

  // A backend that cannot run the kernel, even in the nearest type it lists, is disabled with the engine's
  // reason; upmem runs the f16 RED as f32.
  const pim::Kernel red = pim::resolveKernel("red", "");
  EXPECT_TRUE(v.backendBox(QStringLiteral("upmem"))->isEnabled());
  for (const pim::Backend& b : pim::builtinBackends().all()) {
    QCheckBox* box = v.backendBox(QString::fromStdString(b.name));
    ASSERT_NE(box, nullptr) << b.name;
    const std::string why = pim::unsupportedReason(b, pim::compareKernel(b, red));
    EXPECT_EQ(box->isEnabled(), why.empty()) << b.name;
    if (!why.empty()) {
      EXPECT_EQ(box->toolTip().toStdString(), why);
      v.choose({QStringLiteral("hbm-pim"), QString::fromStdString(b.name)});
      EXPECT_FALSE(box->isChecked());
      EXPECT_EQ(v.options().backends, std::vector<std::string>{"hbm-pim"});
    }
  }
}

TEST(CompareView, DoubleClickOpensTheBackendAndItsBestDraftInTheExplorer) {
  MainWindow w(false);
  w.show();
  w.controls()->setConfig(redConfig());
  w.showCompare();
  CompareView* v = w.compareView();
  // It opens with the control panel's problem and up to four backends that can run it ticked.
  EXPECT_EQ(v->options().backends.size(), 4u);
  for (const std::string& b : v->options().backends)
    EXPECT_EQ(pim::unsupportedReason(pim::builtinBackends().get(b), pim::resolveKernel("red", "")), "");
  v->choose({QStringLiteral("hbm-pim"), QStringLiteral("attacc")});
  ASSERT_TRUE(runAndWait(*v)) << v->status().toStdString();
  const pim::BackendResult& first = v->comparison()->results.front();
  ASSERT_TRUE(first.available);

  QTableWidget* table = v->table();
  const QRect cell = table->visualRect(table->model()->index(0, CompareView::Draft));
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
  QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, cell.center());

  EXPECT_EQ(w.session()->config().backend, first.backend);
  EXPECT_EQ(w.session()->config().kernel, "red");
  EXPECT_EQ(w.session()->config().shape, v->comparison()->shape);
  EXPECT_EQ(w.controls()->config().backend, first.backend);
  ASSERT_TRUE(w.selection()->current().has_value());
  EXPECT_EQ(*w.selection()->current(), first.draft->id);
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 120000));
  // The run ends with the comparison's draft still selected and analysed in the single-draft views.
  EXPECT_EQ(*w.selection()->current(), first.draft->id);
  ASSERT_TRUE(w.analysis()->latest());
  EXPECT_EQ(w.analysis()->latest()->draft.id, first.draft->id);
  ASSERT_TRUE(w.analysis()->latest()->evaluation.has_value());
  EXPECT_DOUBLE_EQ(w.analysis()->latest()->evaluation->timeNs, first.eval.timeNs);
}
