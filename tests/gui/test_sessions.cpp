// SPDX-License-Identifier: Apache-2.0
// Sessions in the explorer window: a saved session reopens in a fresh window showing the same rows, plot,
// heat map, selection and bars without exploring again; steering actions undo and redo; unreadable files are
// refused by name; the menus carry the session shortcuts; the shipped example and the command line work.
#include <gtest/gtest.h>

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "engine/hw/backend.h"
#include "engine/target/registry.h"
#include "engine/workflow/session_file.h"
#include "gui_test_util.h"
#include "views/breakdown_chart.h"
#include "views/control_panel.h"
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
#include "views/what_if_panel.h"
#include "window_test_util.h"

using namespace pimgui;

namespace {

using pimgui::test::settled;

/// Every cell of the filtered, sorted table as displayed, one string per row.
std::vector<std::string> tableCells(const MainWindow& w) {
  std::vector<std::string> rows;
  const QAbstractItemModel* m = w.table()->proxy();
  for (int r = 0; r < m->rowCount(); ++r) {
    QStringList cells;
    for (int c = 0; c < m->columnCount(); ++c) cells << m->index(r, c).data().toString();
    rows.push_back(cells.join(QStringLiteral(" | ")).toStdString());
  }
  return rows;
}

void expectSameConfig(const SessionConfig& a, const SessionConfig& b) {
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.kernel, b.kernel);
  EXPECT_EQ(a.kernelFile, b.kernelFile);
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.strategy, b.strategy);
  EXPECT_EQ(a.rules, b.rules);
  EXPECT_EQ(a.stagedRearrangement, b.stagedRearrangement);
  EXPECT_EQ(a.groupCommands, b.groupCommands);
}

QComboBox* strategyBox(ControlPanel* panel) {
  for (QComboBox* box : panel->findChildren<QComboBox*>()) {
    if (box->findText(QStringLiteral("exhaustive")) >= 0) return box;
  }
  return nullptr;
}

QAction* menuAction(const MainWindow& w, const QString& menu, const QString& textStart) {
  for (QAction* top : w.menuBar()->actions()) {
    if (top->text().remove(QLatin1Char('&')) != menu) continue;
    for (QAction* a : top->menu()->actions()) {
      if (a->text().remove(QLatin1Char('&')).startsWith(textStart)) return a;
    }
  }
  return nullptr;
}

// Saves `w`'s settled session to `path` and opens it in `v`, waiting until `v` has settled too.
void saveAndReopen(MainWindow& w, const QString& path, MainWindow& v) {
  ASSERT_TRUE(test::waitFor([&] { return settled(w); }, 30000));
  QString error;
  ASSERT_TRUE(w.saveSession(path, &error)) << error.toStdString();
  v.show();
  ASSERT_TRUE(v.openSession(path, &error)) << error.toStdString();
  ASSERT_TRUE(test::waitFor([&] { return settled(v); }, 30000));
}

}  // namespace

TEST(Sessions, ReopenedSessionShowsWhatWasOnScreen) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("red.pimsession"));
  MainWindow w(false);
  w.show();
  ASSERT_TRUE(w.startSession(test::smallConfig()));
  ASSERT_TRUE(test::waitFor([&] { return settled(w); }, 30000));

  // View options away from every default, and a selection of two drafts that are not the best.
  w.pareto()->setObjectives(Objective::ComputeTime, Objective::RearrangementTime);
  w.pareto()->setLogAxes(false);
  w.heatmap()->setMetric(std::string(UnitHeatmap::kPadding));
  w.table()->view()->sortByColumn(DraftTableModel::Energy, Qt::DescendingOrder);
  w.table()->filterBox()->setText(QStringLiteral("simulated"));
  w.details()->tabs()->setCurrentIndex(2);
  ASSERT_GE(w.table()->proxy()->rowCount(), 3);
  const quint64 a = w.table()->proxy()->index(1, 0).data(DraftTableModel::DraftIdRole).value<quint64>();
  const quint64 b = w.table()->proxy()->index(2, 0).data(DraftTableModel::DraftIdRole).value<quint64>();
  w.selection()->set({a, b});
  ASSERT_TRUE(test::waitFor([&] { return settled(w) && w.analysis()->latest()->draft.id == a; }, 30000));
  // A zoomed-in plot reopens at the same zoom.
  const auto full = w.pareto()->viewRange();
  const std::array<double, 4> zoom{full[0], (full[0] + full[1]) / 2, full[2], (full[2] + full[3]) / 2};
  w.pareto()->setView(zoom);
  w.controls()->setConfig([] {
    SessionConfig c = test::smallConfig();
    c.shape = "b=1,n=8192";  // the panel edited after the run: shown again as it was, not as explored
    return c;
  }());

  QString error;
  ASSERT_TRUE(w.saveSession(path, &error)) << error.toStdString();
  EXPECT_FALSE(w.isWindowModified());
  EXPECT_TRUE(w.windowTitle().startsWith(QStringLiteral("red.pimsession")));

  MainWindow v(false);
  v.show();
  ASSERT_TRUE(v.openSession(path, &error)) << error.toStdString();
  ASSERT_TRUE(test::waitFor([&] { return settled(v); }, 30000));
  EXPECT_FALSE(v.session()->running());
  // Nothing was explored again: the progress is the stored one to the last bit, elapsed time included.
  EXPECT_EQ(v.session()->progress().elapsedSeconds, w.session()->progress().elapsedSeconds);
  EXPECT_EQ(v.session()->progress().simulated, w.session()->progress().simulated);
  EXPECT_EQ(v.session()->records().size(), w.session()->records().size());

  // Table: every displayed cell, in the same order under the same filter and sort.
  EXPECT_EQ(v.model()->rowCount(), w.model()->rowCount());
  EXPECT_EQ(tableCells(v), tableCells(w));
  EXPECT_EQ(v.table()->filterBox()->text(), QStringLiteral("simulated"));
  EXPECT_EQ(v.table()->view()->horizontalHeader()->sortIndicatorSection(), int(DraftTableModel::Energy));
  EXPECT_EQ(v.table()->view()->horizontalHeader()->sortIndicatorOrder(), Qt::DescendingOrder);

  // Pareto: axes, scale and every point.
  EXPECT_EQ(v.pareto()->xObjective(), Objective::ComputeTime);
  EXPECT_EQ(v.pareto()->yObjective(), Objective::RearrangementTime);
  EXPECT_FALSE(v.pareto()->logAxes());
  EXPECT_TRUE(v.pareto()->userZoomed());
  EXPECT_EQ(v.pareto()->viewRange(), zoom);
  ASSERT_EQ(v.pareto()->points().size(), w.pareto()->points().size());
  for (std::size_t i = 0; i < v.pareto()->points().size(); ++i) {
    EXPECT_EQ(v.pareto()->points()[i].id, w.pareto()->points()[i].id);
    EXPECT_EQ(v.pareto()->points()[i].x, w.pareto()->points()[i].x);
    EXPECT_EQ(v.pareto()->points()[i].y, w.pareto()->points()[i].y);
    EXPECT_EQ(v.pareto()->points()[i].front, w.pareto()->points()[i].front);
  }

  // Selection, heat map of the current draft, details tab, breakdown bars.
  EXPECT_EQ(v.selection()->ids(), (QList<quint64>{a, b}));
  EXPECT_EQ(v.heatmap()->metric(), std::string(UnitHeatmap::kPadding));
  ASSERT_EQ(v.heatmap()->geometry().outerCount, w.heatmap()->geometry().outerCount);
  ASSERT_EQ(v.heatmap()->geometry().innerCount, w.heatmap()->geometry().innerCount);
  for (int ch = 0; ch < v.heatmap()->geometry().outerCount; ++ch) {
    for (int bank = 0; bank < v.heatmap()->geometry().innerCount; ++bank)
      ASSERT_EQ(v.heatmap()->cellValue(ch, bank), w.heatmap()->cellValue(ch, bank)) << ch << "/" << bank;
  }
  EXPECT_EQ(v.details()->tabs()->currentIndex(), 2);
  const auto& bw = w.breakdown()->bars();
  const auto& bv = v.breakdown()->bars();
  ASSERT_EQ(bv.size(), bw.size());
  ASSERT_GE(bv.size(), 4u);  // vendor, TVM-like, the two selected, best, GPU
  for (std::size_t i = 0; i < bv.size(); ++i) {
    EXPECT_EQ(bv[i].label, bw[i].label);
    EXPECT_EQ(bv[i].segments, bw[i].segments);
    EXPECT_EQ(bv[i].totalNs, bw[i].totalNs);
    EXPECT_EQ(bv[i].draft, bw[i].draft);
  }

  // The control panel as it was, the explored settings as they were.
  expectSameConfig(v.controls()->config(), w.controls()->config());
  expectSameConfig(v.session()->config(), w.session()->config());
  EXPECT_EQ(v.sessionPath(), path);
  EXPECT_FALSE(v.isWindowModified());
  EXPECT_EQ(v.undoStack()->count(), 0);
  EXPECT_EQ(v.windowTitle(), w.windowTitle());
}

TEST(Sessions, WhatIfBackendIsRestored) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("whatif.pimsession"));
  MainWindow w(false);
  w.show();
  SessionConfig c = test::smallConfig();
  pim::Backend edited = pim::builtinBackends().get("hbm-pim");
  edited.setParameter("system.devices", edited.system.devices * 2);
  ASSERT_TRUE(w.startSession(test::smallConfig()));  // the what-if form shows hbm-pim
  ASSERT_TRUE(test::waitFor([&] { return settled(w); }, 30000));
  c.backendOverride = std::make_shared<const pim::Backend>(edited);
  w.whatIf()->setState(w.whatIf()->original(), edited);
  ASSERT_TRUE(w.startSession(c));
  MainWindow v(false);
  saveAndReopen(w, path, v);
  ASSERT_TRUE(v.session()->config().backendOverride);
  EXPECT_EQ(v.session()->config().backendOverride->hash(), edited.hash());
  EXPECT_EQ(v.session()->problem()->backend().system.devices, edited.system.devices);
  EXPECT_TRUE(v.whatIf()->modified());
  EXPECT_EQ(v.whatIf()->current().hash(), edited.hash());
  EXPECT_EQ(v.whatIf()->original().hash(), pim::builtinBackends().get("hbm-pim").hash());
  // By id: rows with equal simulated times may sit in either order after a live run (the proxy breaks no
  // ties).
  for (const MainWindow* x : {&v, &w})
    x->table()->view()->sortByColumn(DraftTableModel::Id, Qt::AscendingOrder);
  EXPECT_EQ(tableCells(v), tableCells(w));
  EXPECT_EQ(v.bestDraft(), w.bestDraft());
}

// The Model box was not saved: a session explored with the DCC-artifact mode reopened as PIMScope's, whose
// labels differ from the ones on screen.
TEST(Sessions, TheLabellingModelIsRestored) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("dcc.pimsession"));
  MainWindow w(false);
  w.show();
  SessionConfig c = test::smallConfig();
  c.model = pim::LabelModel::DccKernel;
  ASSERT_TRUE(w.startSession(c));
  MainWindow v(false);
  saveAndReopen(w, path, v);
  EXPECT_EQ(v.session()->config().model, pim::LabelModel::DccKernel);
  EXPECT_EQ(v.controls()->config().model, pim::LabelModel::DccKernel);  // the Model box shows it
  EXPECT_EQ(v.bestDraft(), w.bestDraft());
}

TEST(Sessions, UnreadableFilesAreRefusedByName) {
  QTemporaryDir dir;
  MainWindow w(false);
  const QString title = w.windowTitle();
  const QString junk = dir.filePath(QStringLiteral("junk.pimsession"));
  {
    QFile f(junk);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(4096, 'x'));
  }
  QString error;
  EXPECT_FALSE(w.openSession(junk, &error));
  EXPECT_TRUE(error.startsWith(junk + QStringLiteral(": not a PIMScope session"))) << error.toStdString();
  EXPECT_FALSE(w.openSession(dir.filePath(QStringLiteral("absent.pimsession")), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("absent.pimsession: no such session file")))
      << error.toStdString();
  EXPECT_TRUE(w.sessionPath().isEmpty());
  EXPECT_EQ(w.windowTitle(), title);
  EXPECT_FALSE(w.session()->problem());  // nothing was adopted
}

TEST(Sessions, SteeringActionsUndoAndRedo) {
  MainWindow w(false);
  ControlPanel* panel = w.controls();
  const SessionConfig original = panel->config();
  QComboBox* strategy = strategyBox(panel);
  QLineEdit* out = panel->dimensionField(QStringLiteral("out"));
  ASSERT_TRUE(strategy && out);
  ASSERT_EQ(out->text(), QStringLiteral("4096"));

  strategy->setCurrentIndex(strategy->findText(QStringLiteral("exhaustive")));
  // Typing 2048 arrives as several edits of one field: they are one step.
  out->clear();
  QTest::keyClicks(out, QStringLiteral("2048"));
  const SessionConfig changed = panel->config();
  EXPECT_EQ(changed.strategy, "exhaustive");
  EXPECT_EQ(changed.shape, "b=1,out=2048,in=4096");
  ASSERT_EQ(w.undoStack()->count(), 2);
  EXPECT_TRUE(w.isWindowModified());
  EXPECT_EQ(w.undoStack()->undoText(), QStringLiteral("change dimension out"));

  w.undoStack()->undo();
  EXPECT_EQ(panel->config().shape, original.shape);
  EXPECT_EQ(panel->config().strategy, "exhaustive");
  w.undoStack()->undo();
  expectSameConfig(panel->config(), original);
  EXPECT_EQ(w.undoStack()->count(), 2);  // undoing recorded nothing new
  EXPECT_FALSE(w.isWindowModified());

  w.undoStack()->redo();
  w.undoStack()->redo();
  expectSameConfig(panel->config(), changed);
  EXPECT_EQ(w.undoStack()->count(), 2);

  // A new change after an undo replaces the redo branch.
  w.undoStack()->undo();
  panel->findChildren<QCheckBox*>().front()->toggle();  // rule 1
  EXPECT_EQ(w.undoStack()->count(), 2);
  EXPECT_EQ(w.undoStack()->undoText(), QStringLiteral("change rule 1"));
  EXPECT_FALSE(w.undoStack()->canRedo());
}

TEST(Sessions, WhatIfEditsUndoAndRedo) {
  MainWindow w(false);
  w.show();
  w.whatIf()->setDebounceMs(10);
  // What-if edits re-explore the control panel's problem exhaustively (no simulation cap): keep it tiny.
  SessionConfig c = test::smallConfig();
  c.shape = "b=1,n=256";
  ASSERT_TRUE(w.startSession(c));
  ASSERT_TRUE(test::waitFor([&] { return settled(w); }, 30000));
  const pim::Backend shipped = w.whatIf()->original();
  const double devices = shipped.param("system.devices")->value;
  ASSERT_TRUE(w.whatIf()->applyValue("system.devices", devices * 2));
  ASSERT_TRUE(test::waitFor([&] { return w.session()->config().backendOverride != nullptr; }, 5000));
  ASSERT_TRUE(test::waitFor([&] { return settled(w); }, 30000));
  ASSERT_EQ(w.undoStack()->count(), 1);
  EXPECT_EQ(w.undoStack()->undoText(), QStringLiteral("edit system.devices"));

  w.undoStack()->undo();  // the form goes back and the shipped backend is explored again
  EXPECT_FALSE(w.whatIf()->modified());
  EXPECT_EQ(w.whatIf()->spinBox("system.devices")->value(), devices);
  EXPECT_FALSE(w.session()->config().backendOverride);
  ASSERT_TRUE(test::waitFor([&] { return settled(w); }, 30000));
  EXPECT_EQ(w.session()->problem()->backend().hash(), shipped.hash());

  w.undoStack()->redo();
  EXPECT_TRUE(w.whatIf()->modified());
  ASSERT_TRUE(w.session()->config().backendOverride);
  EXPECT_EQ(w.session()->config().backendOverride->param("system.devices")->value, devices * 2);
  ASSERT_TRUE(test::waitFor([&] { return settled(w); }, 30000));
  EXPECT_EQ(w.undoStack()->count(), 1);
}

TEST(Sessions, MenusCarryTheSessionShortcuts) {
  MainWindow w(false);
  QAction* open = menuAction(w, QStringLiteral("File"), QStringLiteral("Open…"));
  QAction* save = menuAction(w, QStringLiteral("File"), QStringLiteral("Save session"));
  QAction* dsl = menuAction(w, QStringLiteral("File"), QStringLiteral("Open DSL file"));
  QAction* recent = menuAction(w, QStringLiteral("File"), QStringLiteral("Open Recent"));
  QAction* undo = menuAction(w, QStringLiteral("Edit"), QStringLiteral("Undo"));
  QAction* redo = menuAction(w, QStringLiteral("Edit"), QStringLiteral("Redo"));
  ASSERT_TRUE(open && save && dsl && recent && undo && redo);
  EXPECT_EQ(open->shortcut(), QKeySequence(QKeySequence::Open));
  EXPECT_EQ(save->shortcut(), QKeySequence(QKeySequence::Save));
  EXPECT_TRUE(dsl->shortcut().isEmpty());
  // Ctrl+S and Ctrl+O belong to the session actions alone (CSV export and DSL files moved off them).
  for (QAction* a : w.findChildren<QAction*>()) {
    if (a->shortcut() == QKeySequence(QKeySequence::Save)) {
      EXPECT_EQ(a, save) << a->text().toStdString();
    }
    if (a->shortcut() == QKeySequence(QKeySequence::Open)) {
      EXPECT_EQ(a, open) << a->text().toStdString();
    }
  }
  EXPECT_EQ(undo->shortcut(), QKeySequence(QKeySequence::Undo));
  EXPECT_EQ(redo->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
  EXPECT_FALSE(undo->isEnabled());
  EXPECT_TRUE(recent->menu());
}

TEST(Sessions, RecentFilesDropMissingOnes) {
  // Only a persisting window keeps a recent list; point QSettings at a scratch directory for this test.
  QTemporaryDir settingsDir, dir;
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
  QSettings().remove(QStringLiteral("sessions/recent"));
  {
    const QString shipped =
        QString::fromStdString(pim::dataDir()) + QStringLiteral("/sessions/gemv_hbm-pim.pimsession");
    const QString copy = dir.filePath(QStringLiteral("copy.pimsession"));
    ASSERT_TRUE(QFile::copy(shipped, copy));
    MainWindow w(true);
    QString error;
    ASSERT_TRUE(w.openSession(shipped, &error)) << error.toStdString();
    ASSERT_TRUE(w.openSession(copy, &error)) << error.toStdString();
    ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 30000));
    EXPECT_EQ(w.recentSessions(), (QStringList{copy, QFileInfo(shipped).absoluteFilePath()}));
    ASSERT_TRUE(QFile::remove(copy));
    QAction* recent = menuAction(w, QStringLiteral("File"), QStringLiteral("Open Recent"));
    ASSERT_TRUE(recent);
    emit recent->menu()->aboutToShow();
    EXPECT_EQ(w.recentSessions(), QStringList{QFileInfo(shipped).absoluteFilePath()});
    EXPECT_TRUE(w.statusBar()->currentMessage().contains(QStringLiteral("Removed 1 missing")))
        << w.statusBar()->currentMessage().toStdString();
    // One entry, a separator, Clear.
    EXPECT_EQ(recent->menu()->actions().size(), 3);
  }
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope,
                     QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation));
}

// The shipped example opens in the window with its best draft selected, exactly as `pimscope --save-session`
// left it; the engine-side check of its numbers is SessionFile.ShippedExampleMatchesTheEngine.
TEST(Sessions, ShippedExampleOpensWithoutExploring) {
  const QString shipped =
      QString::fromStdString(pim::dataDir()) + QStringLiteral("/sessions/gemv_hbm-pim.pimsession");
  const pim::SessionData stored = pim::SessionFile::load(shipped.toStdString());
  MainWindow w(false);
  w.show();
  QString error;
  ASSERT_TRUE(w.openSession(shipped, &error)) << error.toStdString();
  ASSERT_TRUE(test::waitFor([&] { return settled(w); }, 60000));
  EXPECT_EQ(w.model()->keptRows(), static_cast<int>(stored.records.size()));
  ASSERT_TRUE(w.bestDraft());
  EXPECT_EQ(*w.bestDraft(), stored.records.at(*stored.progress.best).draft.id);
  EXPECT_EQ(w.selection()->ids(), QList<quint64>{*w.bestDraft()});
  EXPECT_EQ(w.session()->progress().stage, "done");
}

TEST(Sessions, CommandLineOpensASessionOrFailsWithCode2) {
  QTemporaryDir dir;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  const QString shipped =
      QString::fromStdString(pim::dataDir()) + QStringLiteral("/sessions/gemv_hbm-pim.pimsession");
  {
    QProcess proc;
    proc.setProcessEnvironment(env);
    proc.start(QStringLiteral(PIMSCOPE_GUI_BINARY), {QStringLiteral("--screenshot"), dir.path(), shipped});
    ASSERT_TRUE(proc.waitForFinished(120000));
    EXPECT_EQ(proc.exitCode(), 0) << proc.readAllStandardError().toStdString();
    EXPECT_TRUE(QFileInfo::exists(dir.filePath(QStringLiteral("main_window.png"))));
  }
  {
    QProcess proc;
    proc.setProcessEnvironment(env);
    const QString missing = dir.filePath(QStringLiteral("missing.pimsession"));
    proc.start(QStringLiteral(PIMSCOPE_GUI_BINARY), {QStringLiteral("--screenshot"), dir.path(), missing});
    ASSERT_TRUE(proc.waitForFinished(60000));
    EXPECT_EQ(proc.exitCode(), 2);
    EXPECT_TRUE(QString::fromLocal8Bit(proc.readAllStandardError())
                    .contains(missing + QStringLiteral(": no such session file")));
  }
}
