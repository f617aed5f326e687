// SPDX-License-Identifier: Apache-2.0
// The two explorer workflows: what-if hardware (edits go through the engine and re-explore the edited
// backend) and classroom mode (every step shows the engine's numbers and the walkthrough reaches its end).
#include <gtest/gtest.h>

#include <QDir>
#include <QDoubleSpinBox>
#include <QImage>
#include <QProcess>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include "engine/hw/backend.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/library.h"
#include "engine/prune/pruner.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"
#include "gui_test_util.h"
#include "views/classroom_dialog.h"
#include "views/draft_table_model.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/walkthrough.h"
#include "views/what_if_panel.h"

using namespace pimgui;

namespace {

struct Best {
  double ns = 0;
  std::int64_t computeCycles = 0;
};

Best bestOf(const ExplorationSession& s) {
  const auto p = s.progress();
  const auto records = s.records();
  EXPECT_TRUE(p.best.has_value());
  if (!p.best) return {};
  const auto& r = records.at(*p.best);
  return {r.simulated->timeNs, r.simulated->cycles[1]};
}

}  // namespace

TEST(WhatIf, MoreDevicesDoNotSlowTheBestSchedule) {
  MainWindow w(false);
  w.show();
  SessionConfig c = test::smallConfig();
  c.shape = "b=1,n=8192";
  c.maxSimulations = 0;  // exhaustive over every kept draft, so the best is the true best of the space
  ASSERT_TRUE(w.startSession(c));
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running() && w.idle(); }, 60000));
  const Best before = bestOf(*w.session());
  ASSERT_EQ(w.whatIf()->original().name, "hbm-pim");
  const std::uint64_t draftsBefore = w.session()->problem()->space().size();

  // Twice the stacks: every allocation of 80 groups is still possible with 160, so the best cannot get worse.
  ASSERT_TRUE(w.whatIf()->applyValue("system.devices", 10));
  ASSERT_TRUE(test::waitFor(
      [&] { return w.session()->config().backendOverride && !w.session()->running() && w.idle(); }, 90000));
  const pim::Backend& explored = w.session()->problem()->backend();
  EXPECT_EQ(explored.system.devices, 10);
  EXPECT_EQ(explored.totalGroups(), 160);
  EXPECT_EQ(explored.hash(), w.whatIf()->current().hash());
  EXPECT_GT(w.session()->problem()->space().size(), draftsBefore);
  const Best after = bestOf(*w.session());
  EXPECT_LE(after.ns, before.ns * (1 + 1e-9));
  std::printf("best before %.1f ns (compute %lld cycles), after %.1f ns (compute %lld cycles)\n", before.ns,
              static_cast<long long>(before.computeCycles), after.ns,
              static_cast<long long>(after.computeCycles));

  // Reset re-explores the shipped backend.
  w.whatIf()->reset();
  ASSERT_TRUE(test::waitFor(
      [&] { return !w.session()->config().backendOverride && !w.session()->running() && w.idle(); }, 60000));
  EXPECT_EQ(w.session()->problem()->backend().system.devices, 5);
  EXPECT_DOUBLE_EQ(bestOf(*w.session()).ns, before.ns);
}

TEST(WhatIf, OutOfRangeValueIsRefusedAndRestored) {
  WhatIfPanel panel;
  panel.setDebounceMs(20);
  const pim::Backend& shipped = pim::builtinBackends().get("hbm-pim");
  panel.setBackend(shipped);
  QSignalSpy edited(&panel, &WhatIfPanel::backendEdited);

  QString error;
  EXPECT_FALSE(panel.applyValue("system.devices", 65, &error));  // declared range 1..64
  EXPECT_NE(error.indexOf(QStringLiteral("system.devices")), -1) << error.toStdString();
  EXPECT_EQ(panel.message(), error);
  EXPECT_EQ(panel.current().system.devices, 5);
  EXPECT_EQ(panel.current().hash(), shipped.hash());
  EXPECT_FALSE(panel.modified());

  // Through the spin box: the engine refuses, the previous value comes back.
  QDoubleSpinBox* spin = panel.spinBox("system.devices");
  ASSERT_NE(spin, nullptr);
  spin->setValue(0);
  EXPECT_DOUBLE_EQ(spin->value(), 5);
  EXPECT_EQ(panel.current().hash(), shipped.hash());
  EXPECT_FALSE(panel.message().isEmpty());
  QTest::qWait(100);
  EXPECT_EQ(edited.count(), 0);  // nothing to re-explore

  EXPECT_FALSE(panel.applyValue("core.simdLanes", 2.5));  // integral parameter
  EXPECT_EQ(panel.current().hash(), shipped.hash());

  spin->setValue(7);
  EXPECT_EQ(panel.current().system.devices, 7);
  EXPECT_TRUE(test::waitFor([&] { return edited.count() == 1; }, 2000));
}

TEST(WhatIf, SaveAsWritesAFileThatLoadsBackIdentical) {
  WhatIfPanel panel;
  panel.setBackend(pim::builtinBackends().get("hbm-pim"));
  ASSERT_TRUE(panel.applyValue("system.devices", 8));
  ASSERT_TRUE(panel.applyValue("timing.tCCDL", 2));
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("hbm-pim-8.json"));
  QString error;
  ASSERT_TRUE(panel.saveAs(path, &error)) << error.toStdString();
  const pim::Backend back = pim::loadBackendFile(path.toStdString());
  EXPECT_EQ(back.name, "hbm-pim-8");
  ASSERT_EQ(back.parameters.size(), panel.current().parameters.size());
  for (std::size_t i = 0; i < back.parameters.size(); ++i) {
    EXPECT_EQ(back.parameters[i].key, panel.current().parameters[i].key);
    EXPECT_EQ(back.parameters[i].value, panel.current().parameters[i].value) << back.parameters[i].key;
  }
  EXPECT_EQ(back.system.devices, 8);
  EXPECT_EQ(back.timing.tCCDL, 2);
  EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files).size(), 1);  // no temporary left behind
}

// The shipped model was trained on the shipped parameters. A what-if edit keeps the backend's name, and the
// window used to rank the edited hardware with that model and show its predictions with the model's
// validation error, as if they were in-distribution.
TEST(WhatIf, EditedHardwareIsNotPredictedWithTheShippedModelsError) {
  MainWindow w(false);
  w.show();
  SessionConfig c = test::smallConfig();
  c.strategy = "predictor";
  c.maxSimulations = 0;
  const QString plusMinus = QString::fromUtf8("\u00b1");
  auto sources = [&] {
    QStringList out;
    const DraftTableModel& m = *w.model();
    for (int r = 0; r < m.keptRows(); ++r) out << m.data(m.index(r, DraftTableModel::Source)).toString();
    return out;
  };
  ASSERT_TRUE(w.startSession(c));
  ASSERT_NE(w.session()->predictor(), nullptr) << "hbm-pim ships a model";
  ASSERT_TRUE(test::waitFor([&] { return !w.session()->running() && w.idle(); }, 60000));
  EXPECT_TRUE(w.session()->predictorErrorPct().has_value());
  EXPECT_TRUE(w.session()->predictorNote().isEmpty());
  EXPECT_TRUE(w.whatIf()->modelNote().isEmpty());
  // In distribution: shown with the error measured on the run's confirmations.
  EXPECT_FALSE(sources().filter(plusMinus).isEmpty());
  EXPECT_TRUE(sources().filter(QStringLiteral("out of distribution")).isEmpty());

  ASSERT_TRUE(w.whatIf()->applyValue("timing.tRCDRD", 25));
  ASSERT_TRUE(test::waitFor(
      [&] { return w.session()->config().backendOverride && !w.session()->running() && w.idle(); }, 60000));
  EXPECT_NE(w.session()->predictor(), nullptr);  // still ranks with it: it is the only model
  EXPECT_FALSE(w.session()->predictorErrorPct().has_value());
  const QString note = w.session()->predictorNote();
  EXPECT_NE(note.indexOf(QStringLiteral("trained on hbm-pim as shipped")), -1) << note.toStdString();
  EXPECT_NE(note.indexOf(QStringLiteral("extrapolated")), -1) << note.toStdString();
  EXPECT_EQ(w.whatIf()->modelNote(), note);
  EXPECT_NE(w.statusBar()->currentMessage().indexOf(note), -1)
      << w.statusBar()->currentMessage().toStdString();
  const QStringList edited = sources();
  EXPECT_FALSE(edited.filter(QStringLiteral("predicted")).isEmpty());
  // The validation error says nothing of edited hardware; the error measured on this run's confirmations
  // does, and the rows say the hardware is outside the model's training data.
  const QStringList predicted = edited.filter(QStringLiteral("predicted"));
  EXPECT_EQ(predicted.filter(QStringLiteral("out of distribution")).size(), predicted.size());
  EXPECT_EQ(predicted.filter(QStringLiteral("confirmed")).size(), predicted.size());

  // Reset: the shipped parameters again, which the model was trained on.
  w.whatIf()->reset();
  ASSERT_TRUE(test::waitFor(
      [&] { return !w.session()->config().backendOverride && !w.session()->running() && w.idle(); }, 60000));
  EXPECT_TRUE(w.session()->predictorErrorPct().has_value());
  EXPECT_TRUE(w.whatIf()->modelNote().isEmpty());
}

TEST(Classroom, ExampleWalkthroughShowsTheEnginesNumbersToTheLastStep) {
  const pim::Kernel kernel = pim::loadKernelFile(pim::dataDir() + "/kernels/dcc_example.pim");
  const pim::Shape shape = pim::parseShape(kernel, "n=12,m=3,p=16");
  const pim::DraftSpace space(kernel, pim::buildDimensionSets(kernel, shape), pim::Resources{2, 4, 16});
  const pim::PruneCounts counts = pim::Pruner(space).counts();

  ClassroomDialog d;
  d.show();
  d.activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(&d));
  ASSERT_TRUE(test::waitFor([&] { return !d.loading(); }, 60000));
  ASSERT_EQ(d.stepCount(), 7);
  EXPECT_EQ(d.currentStep(), 0);
  for (int i = 0; i < d.stepCount(); ++i) {
    ASSERT_EQ(d.currentStep(), i);
    EXPECT_EQ(d.counterText(), QStringLiteral("Step %1 of 7").arg(i + 1));
    // Every number the step declares is on screen.
    for (const auto& [name, value] : d.step(i).numbers)
      EXPECT_NE(d.bodyText().indexOf(QString::number(value)), -1) << "step " << i + 1 << " " << name;
    QTest::keyClick(&d, i % 2 ? Qt::Key_PageDown : Qt::Key_Right);
  }
  EXPECT_EQ(d.currentStep(), 6);  // stays on the last step

  const auto& n = [&](int step, const char* key) { return d.step(step).numbers.at(key); };
  EXPECT_EQ(n(0, "dimension_sets"), 3u);
  EXPECT_EQ(n(1, "group_chains"), space.groupChains());
  EXPECT_EQ(n(1, "core_chains"), space.coreChains());
  EXPECT_EQ(n(2, "drafts"), space.size());
  EXPECT_EQ(n(3, "generated"), counts.generated);
  EXPECT_EQ(n(3, "rule1"), counts.rules[0].removed);
  EXPECT_EQ(n(3, "rule2"), counts.rules[1].removed);
  EXPECT_EQ(n(3, "rule3"), counts.rules[2].removed);
  EXPECT_EQ(n(3, "remaining"), counts.remaining);
  EXPECT_NE(d.step(3).body.indexOf(QStringLiteral("16-way")), -1);  // rule 2's reason from Pruner::why

  // Step 7: the simulated breakdown equals evaluateDraft of the same draft.
  pim::Kernel gemv = pim::KernelLibrary::builtin().get("gemv");
  pim::Shape gs = pim::parseShape(gemv, "b=1,out=256,in=256");
  const pim::Problem problem(pim::builtinBackends().get("hbm-pim"), std::move(gemv), std::move(gs));
  const auto best = bestOfFirstKept(problem, kWalkthroughCandidates);
  ASSERT_TRUE(best.has_value());
  const pim::Evaluation e = pim::evaluateDraft(problem, *best);
  EXPECT_EQ(n(6, "total_cycles"), static_cast<std::uint64_t>(e.totalCycles));
  EXPECT_EQ(n(6, "phase1"), static_cast<std::uint64_t>(e.cycles[1]));

  QTest::keyClick(&d, Qt::Key_Left);
  EXPECT_EQ(d.currentStep(), 5);
  QTest::keyClick(&d, Qt::Key_PageUp);
  EXPECT_EQ(d.currentStep(), 4);
  const qreal normal = d.font().pointSizeF();
  QTest::keyClick(&d, Qt::Key_F11);
  EXPECT_TRUE(d.presentation());
  EXPECT_GT(d.font().pointSizeF(), normal * 1.4);
}

TEST(Classroom, LibraryKernelWalkthroughMatchesThePruner) {
  ClassroomDialog d;
  ASSERT_TRUE(d.showLibrary(QStringLiteral("hbm-pim"), QStringLiteral("red"), QStringLiteral("b=1,n=4096")));
  ASSERT_TRUE(test::waitFor([&] { return !d.loading(); }, 60000));
  ASSERT_EQ(d.stepCount(), 7);
  EXPECT_EQ(d.subjectText().indexOf(QStringLiteral("red")), 0) << d.subjectText().toStdString();
  pim::Kernel red = pim::KernelLibrary::builtin().get("red");
  pim::Shape s = pim::parseShape(red, "b=1,n=4096");
  const pim::Problem p(pim::builtinBackends().get("hbm-pim"), std::move(red), std::move(s));
  const pim::PruneCounts counts = pim::Pruner(p.space()).counts();
  EXPECT_EQ(d.step(0).numbers.at("dimension_sets"), p.space().sets().sets.size());
  EXPECT_EQ(d.step(2).numbers.at("drafts"), p.space().size());
  for (const pim::RuleCount& r : counts.rules)
    EXPECT_EQ(d.step(3).numbers.at("rule" + std::to_string(r.number)), r.removed);
  EXPECT_FALSE(d.showLibrary(QStringLiteral("hbm-pim"), QStringLiteral("red"), QStringLiteral("b=0")));
}

TEST(Classroom, ScreenshotsOnePngPerStep) {
  QTemporaryDir dir;
  QProcess proc;
  proc.start(QStringLiteral(PIMSCOPE_GUI_BINARY), {QStringLiteral("--classroom-screenshots"), dir.path()});
  ASSERT_TRUE(proc.waitForFinished(120000));
  EXPECT_EQ(proc.exitCode(), 0) << proc.readAllStandardError().toStdString();
  for (int i = 1; i <= 7; ++i) {
    QImage img(QDir(dir.path()).filePath(QStringLiteral("classroom_step_%1.png").arg(i)));
    EXPECT_FALSE(img.isNull()) << i;
    EXPECT_GT(img.width(), 600) << i;
  }
}
