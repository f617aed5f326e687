// SPDX-License-Identifier: Apache-2.0
// Schedule export/import from the window: every export format of the selected draft, and a schedule file
// read back into a session config that re-explores the same problem with the same draft and cycles.
#include <gtest/gtest.h>

#include <QDialog>
#include <QDir>
#include <QFile>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>

#include "engine/common/error.h"
#include "engine/core/problem.h"
#include "engine/hw/backend.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/library.h"
#include "engine/target/registry.h"
#include "gui_test_util.h"
#include "views/draft_analysis.h"
#include "views/draft_selection.h"
#include "views/draft_table_panel.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/schedule_io.h"

using namespace pimgui;

namespace {

std::shared_ptr<const pim::Problem> redProblem(const pim::Backend& b) {
  const pim::Kernel k = pim::KernelLibrary::builtin().get("red");
  return std::make_shared<const pim::Problem>(b, k, pim::parseShape(k, "b=1,n=4096"));
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
  const QString path = dir.filePath(name);
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::WriteOnly)) << path.toStdString();
  f.write(bytes);
  return path;
}

DraftAnalysis firstKept(std::shared_ptr<const pim::Problem> p) {
  pim::Draft d;
  pim::Pruner(p->space()).forEachKept([&](const pim::Draft& x) {
    d = x;
    return false;
  });
  return analyseDraft(p, d, {true, true, true}, {});
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << path.toStdString();
  return f.readAll();
}

TEST(ScheduleIo, FormatFollowsTheSuffixThenTheFilter) {
  EXPECT_EQ(scheduleExportFor("a/x.trace.json", ""), ScheduleExport::Trace);
  EXPECT_EQ(scheduleExportFor("x.json", ""), ScheduleExport::Schedule);
  EXPECT_EQ(scheduleExportFor("x.IR", ""), ScheduleExport::IrText);
  EXPECT_EQ(scheduleExportFor("x.cmd", ""), ScheduleExport::Commands);
  EXPECT_EQ(scheduleExportFor("x", "Command listing (*.cmd)"), ScheduleExport::Commands);
}

TEST(ScheduleIo, ExportsEveryFormatAndReimportsTheSameDraftAndCycles) {
  QTemporaryDir dir;
  const auto p = redProblem(pim::builtinBackends().get("hbm-pim"));
  const DraftAnalysis a = firstKept(p);
  ASSERT_TRUE(a.error.empty()) << a.error;
  const QString sched = dir.filePath("s.json"), ir = dir.filePath("s.ir"), cmd = dir.filePath("s.cmd"),
                trace = dir.filePath("s.trace.json");
  EXPECT_EQ(exportAnalysedDraft(a, {}, 123.0, ScheduleExport::Schedule, sched), QString());
  EXPECT_EQ(exportAnalysedDraft(a, {}, std::nullopt, ScheduleExport::IrText, ir), QString());
  EXPECT_EQ(exportAnalysedDraft(a, {}, std::nullopt, ScheduleExport::Commands, cmd), QString());
  EXPECT_EQ(exportAnalysedDraft(a, {}, std::nullopt, ScheduleExport::Trace, trace), QString());
  EXPECT_EQ(readAll(ir).toStdString(), a.irText);
  EXPECT_EQ(readAll(cmd).toStdString(), a.commands);
  EXPECT_TRUE(readAll(trace).contains("traceEvents"));
  EXPECT_TRUE(readAll(sched).contains("pimscope-schedule"));

  const ImportedScheduleView v = importScheduleForWindow(sched, dir.filePath("kernels"));
  EXPECT_EQ(v.draft, a.draft.id);
  EXPECT_EQ(v.config.backend, "hbm-pim");
  EXPECT_EQ(v.config.backendOverride, nullptr);  // the shipped backend: no override
  EXPECT_EQ(v.config.kernel, "red");
  EXPECT_TRUE(v.config.kernelFile.empty());
  EXPECT_EQ(v.config.shape, pim::shapeString(p->kernel(), p->shape()));
  EXPECT_EQ(v.simulatedCycles, a.evaluation->totalCycles);
  EXPECT_EQ(v.recordedCycles, a.evaluation->totalCycles);
}

TEST(ScheduleIo, ModifiedBackendAndDslKernelComeBackFromTheFile) {
  QTemporaryDir dir;
  pim::Backend b = pim::builtinBackends().get("hbm-pim");
  b.setParameter("system.devices", 2);
  const pim::Kernel k = pim::parseKernel(
      "kernel rowsum(b = 1, n = 2048)\n  input  x: f16[b][n]\n  output y: f16[b]\n"
      "  for b < b, i < n: y[b] += x[b][i]\nend\n",
      "mine.pim");
  const auto p = std::make_shared<const pim::Problem>(b, k, pim::parseShape(k, "b=1,n=2048"));
  const DraftAnalysis a = firstKept(p);
  ASSERT_TRUE(a.error.empty()) << a.error;
  const QString sched = dir.filePath("s.json");
  ASSERT_EQ(exportAnalysedDraft(a, {}, std::nullopt, ScheduleExport::Schedule, sched), QString());
  const ImportedScheduleView v = importScheduleForWindow(sched, dir.filePath("kernels"));
  ASSERT_NE(v.config.backendOverride, nullptr);
  EXPECT_EQ(v.config.backendOverride->hash(), b.hash());
  ASSERT_FALSE(v.config.kernelFile.empty());
  EXPECT_EQ(pim::resolveKernel("", v.config.kernelFile).source, k.source);
  EXPECT_EQ(v.simulatedCycles, a.evaluation->totalCycles);
}

TEST(ScheduleIo, RefusesWhatIsNotAScheduleAndReportsWriteErrors) {
  QTemporaryDir dir;
  const QString bad = writeFile(dir, "bad.json", "{\"hello\": 1}");
  EXPECT_THROW(importScheduleForWindow(bad, dir.path()), pim::InputError);
  const auto p = redProblem(pim::builtinBackends().get("hbm-pim"));
  const QString err = exportAnalysedDraft(firstKept(p), {}, std::nullopt, ScheduleExport::Schedule,
                                          dir.filePath("no/such/dir/s.json"));
  EXPECT_TRUE(err.contains("no/such/dir")) << err.toStdString();
  EXPECT_FALSE(
      exportAnalysedDraft(DraftAnalysis{}, {}, std::nullopt, ScheduleExport::Schedule, dir.filePath("x.json"))
          .isEmpty());
}

TEST(ScheduleIo, WindowExportsTheSelectedDraftAndAnotherWindowImportsIt) {
  QTemporaryDir dir;
  const QString path = dir.filePath("chosen.json");
  quint64 chosen = 0;
  std::int64_t cycles = 0;
  {
    MainWindow w(false);
    ASSERT_TRUE(w.startSession(test::smallConfig()));
    ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.bestDraft().has_value(); }, 30000));
    QString error;
    w.selection()->clear();
    EXPECT_FALSE(w.exportSelectedSchedule(path, &error));
    EXPECT_TRUE(error.contains("select")) << error.toStdString();
    chosen = *w.bestDraft();
    w.selection()->set({chosen});
    ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.analysis()->latest() != nullptr; }, 30000));
    ASSERT_TRUE(w.exportSelectedSchedule(path, &error)) << error.toStdString();
    cycles = w.analysis()->latest()->evaluation->totalCycles;
  }
  MainWindow w(false);
  QString error;
  ASSERT_TRUE(w.importSchedule(path, &error)) << error.toStdString();
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.analysis()->latest() != nullptr; }, 30000));
  EXPECT_EQ(w.session()->config().kernel, "red");
  EXPECT_EQ(w.session()->config().shape, test::smallConfig().shape);
  ASSERT_TRUE(w.selection()->current().has_value());
  EXPECT_EQ(*w.selection()->current(), chosen);
  EXPECT_EQ(w.analysis()->latest()->evaluation->totalCycles, cycles);
  // The imported draft's row is highlighted in the table, and the run's end still says what was re-simulated.
  const QModelIndexList rows = w.table()->view()->selectionModel()->selectedRows();
  ASSERT_EQ(rows.size(), 1);
  EXPECT_EQ(rows.front().siblingAtColumn(0).data().toULongLong(), chosen);
  const QString status = w.statusBar()->currentMessage();
  EXPECT_TRUE(status.startsWith(QStringLiteral("Imported chosen.json: draft %1").arg(chosen)))
      << status.toStdString();
  EXPECT_NE(status.indexOf(QStringLiteral("re-simulated %L1 cycles (recorded %L1)").arg(cycles)), -1)
      << status.toStdString();
  EXPECT_NE(status.indexOf(QStringLiteral("Done in")), -1) << status.toStdString();
  EXPECT_FALSE(w.importSchedule(dir.filePath("missing.json"), &error));
  EXPECT_TRUE(error.contains("missing.json")) << error.toStdString();
}

}  // namespace

// The controls' problem: library kernel `kernel` in int32 on upmem.
static SessionConfig int32OnUpmem(const std::string& kernel, const std::string& shape) {
  SessionConfig c;
  c.backend = "upmem";
  c.kernel = kernel;
  c.dtype = "i32";
  c.shape = shape;
  return c;
}

// A CoMoNM mapping on the controls' problem: its tasklets on a copy of the backend, its draft; a mapping for
// another backend or one that breaks a rule is refused with its place in the file.
TEST(ScheduleIo, MappingFileBecomesTheSessionsDraftAndTasklets) {
  QTemporaryDir dir;
  const QString path = writeFile(dir, "va.map", "Upmem_map: [ M1: {(1, 16), (1, 64), (1, 8), (1, 128)} ]\n");
  SessionConfig c = int32OnUpmem("va", "b=1,n=1048576");
  const ImportedScheduleView v = importMappingForWindow(path, c);
  ASSERT_TRUE(v.config.backendOverride);
  EXPECT_EQ(v.config.backendOverride->param("pim.tasklets")->value, 8);
  const auto p = makeProblem(v.config);
  const pim::Draft d = p->space().draft(v.draft);
  int dpus = 1;
  for (const auto& part : d.parts) dpus *= part.groups * part.cores;
  EXPECT_EQ(dpus, 1024);
  EXPECT_TRUE(v.summary.contains("pim.tasklets = 8 (was 16)")) << v.summary.toStdString();

  c.backend = "hbm-pim";
  c.dtype.clear();
  EXPECT_THROW(importMappingForWindow(path, c), pim::InputError);
  c.backend = "upmem";
  c.dtype = "i32";
  c.shape = "b=1,n=4096";  // 16 x 64 x 8 x 128 is not 4,096
  try {
    importMappingForWindow(path, c);
    ADD_FAILURE() << "accepted";
  } catch (const pim::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("va.map:1:14"), std::string::npos) << e.what();
  }
}

// A mapping's kernel-level choices: the window analyses the candidate they name (its label says them), as
// `simulate --schedule mapping:FILE` does.
TEST(ScheduleIo, MappingChoicesReachTheWindowsAnalysis) {
  QTemporaryDir dir;
  const QString path = writeFile(dir, "gemv.json",
                                 R"({"maps": [{"levels": [[1,4,1],[1,64,1],[1,16,1],[1,16,256]]}],
                    "choices": {"operand_caching": "kept in WRAM"}})");
  MainWindow w(false);
  SessionConfig c = int32OnUpmem("gemv", "b=1,out=65536,in=256");
  ASSERT_TRUE(w.startSession(c));  // the controls show the problem the mapping is read against
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
  QString error;
  ASSERT_TRUE(w.importMapping(path, &error)) << error.toStdString();
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.analysis()->latest() != nullptr; }, 60000));
  const auto p = makeProblem(w.session()->config());
  ASSERT_TRUE(w.selection()->current().has_value());
  const std::uint64_t id = *w.selection()->current();
  EXPECT_GE(id, p->space().size());  // a candidate beyond the drafts: a choice is not the backend's own
  EXPECT_EQ(w.analysis()->latest()->draft.id, id);
  EXPECT_TRUE(w.statusBar()->currentMessage().contains("kept in WRAM"))
      << w.statusBar()->currentMessage().toStdString();
}

// A mapping of several sub-maps is run on the controls' problem, one sub-map after another, and reported
// beside the window (not a row of the table: no one draft says it); the session is left as it was. One map
// stays the draft it was.
TEST(ScheduleIo, SubMapsAreRunAndReported) {
  QTemporaryDir dir;
  const QString path = writeFile(dir, "halves.map",
                                 "Upmem_map: [ M1: {(1, 2, 1), (1, 64, 1), (1, 1, 4), (1, 4, 144)},\n"
                                 "             M2: {(1, 2, 1), (1, 64, 1), (1, 1, 8), (1, 4, 72)} ]\n");
  SessionConfig c = int32OnUpmem("gemv", "b=1,out=512,in=1152");
  const auto report = runSubMapsForWindow(path, c);
  ASSERT_TRUE(report.has_value());
  for (const char* part :
       {"halves.map: 2 sub-maps", "M1 over [0, 1) x [0, 512) x [0, 576) (b=1,out=512,in=576, pim.tasklets=4)",
        "M2 over [0, 1) x [0, 512) x [576, 1152)", "host merge of 512 partial results", "Total"})
    EXPECT_TRUE(report->contains(part)) << part << "\n" << report->toStdString();
  EXPECT_FALSE(runSubMapsForWindow(writeFile(dir, "one.map",
                                             "Upmem_map: [ M1: {(1, 2, 1), (1, 64, 1), (1, 1, 4), "
                                             "(1, 4, 288)} ]\n"),
                                   c)
                   .has_value());
  MainWindow w(false);
  ASSERT_TRUE(w.startSession(c));
  ASSERT_TRUE(test::waitFor([&] { return w.idle(); }, 60000));
  const auto before = w.session()->records().size();
  QString error;
  ASSERT_TRUE(w.importMapping(path, &error)) << error.toStdString();
  auto* box = w.findChild<QDialog*>("subMapsReport");
  ASSERT_NE(box, nullptr);
  auto* text = box->findChild<QPlainTextEdit*>("subMapsText");
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->toPlainText(), *report);
  EXPECT_EQ(w.session()->records().size(), before);
  box->close();
}
