// SPDX-License-Identifier: Apache-2.0
// Exports from the window (plots as PNG/SVG/PDF, drafts-table CSV of all or selected rows) and pruned drafts
// drawn in grey on the Pareto plot from the predictor's values.
#include <gtest/gtest.h>

#include <qcustomplot.h>
#include <QCheckBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QGraphicsView>
#include <QImage>
#include <QItemSelectionModel>
#include <QTableView>
#include <QTemporaryDir>
#include <algorithm>
#include <set>

#include "engine/core/problem.h"
#include "engine/hw/backend.h"
#include "engine/kernel/kernel.h"
#include "engine/mapping/bank_layout.h"
#include "engine/predict/predictor.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"
#include "gui_test_util.h"
#include "views/breakdown_chart.h"
#include "views/csv_export.h"
#include "views/draft_analysis.h"
#include "views/draft_filter_proxy.h"
#include "views/draft_selection.h"
#include "views/draft_table_model.h"
#include "views/draft_table_panel.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/plot_export.h"
#include "views/pruned_lister.h"
#include "views/search_progress_plot.h"
#include "views/unit_heatmap.h"

using namespace pimgui;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// RFC 4180 parser for the test: quoted fields with doubled quotes, CRLF records.
std::vector<QStringList> parseCsv(const QByteArray& bytes) {
  const QString text = QString::fromUtf8(bytes);
  std::vector<QStringList> records;
  QStringList fields;
  QString field;
  bool quoted = false;
  for (int i = 0; i < text.size(); ++i) {
    const QChar c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields << field;
      field.clear();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      fields << field;
      field.clear();
      records.push_back(fields);
      fields.clear();
      ++i;
    } else {
      field += c;
    }
  }
  EXPECT_TRUE(field.isEmpty() && fields.isEmpty()) << "last record not terminated by CRLF";
  return records;
}

/// A window that explored the small exhaustive session and selected its best draft.
class ExportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    w = std::make_unique<MainWindow>(false);
    w->resize(1680, 1050);  // the offscreen screen is 800x600; the window fits it at first start
    w->show();
    ASSERT_TRUE(w->startSession(test::smallConfig()));
    ASSERT_TRUE(test::waitFor(
        [&] { return w->idle() && !w->session()->running() && w->analysis()->latest() != nullptr; }, 60000));
    ASSERT_GT(w->model()->rowCount(), 5);
  }
  std::unique_ptr<MainWindow> w;
  QTemporaryDir dir = keptDir();
  /// PIMSCOPE_KEEP_EXPORTS=1 keeps the exported files for a look (the path is printed).
  static QTemporaryDir keptDir() {
    QTemporaryDir d;
    if (qEnvironmentVariableIsSet("PIMSCOPE_KEEP_EXPORTS")) {
      d.setAutoRemove(false);
      std::printf("exports kept in %s\n", qPrintable(d.path()));
    }
    return d;
  }
};

}  // namespace

TEST(ExportFormats, SuffixChoosesFormat) {
  EXPECT_EQ(plotFormatFor(QStringLiteral("a/b.PNG")), PlotFormat::Png);
  EXPECT_EQ(plotFormatFor(QStringLiteral("b.svg")), PlotFormat::Svg);
  EXPECT_EQ(plotFormatFor(QStringLiteral("b.pdf")), PlotFormat::Pdf);
  EXPECT_FALSE(plotFormatFor(QStringLiteral("b.jpg")).has_value());
  EXPECT_FALSE(plotFormatFor(QStringLiteral("b")).has_value());
  // At least 2x and at least 1200x800 pixels, aspect kept.
  EXPECT_EQ(pngPixelSize(QSize(800, 600)), QSize(1600, 1200));
  EXPECT_EQ(pngPixelSize(QSize(400, 400)), QSize(1200, 1200));
  EXPECT_EQ(pngPixelSize(QSize(500, 250)), QSize(1600, 800));
}

TEST_F(ExportTest, EachPlotInEachFormat) {
  struct Case {
    MainWindow::Plot plot;
    const char* name;
    QStringList labels;  // axis titles that must be in the picture (checked in the SVG text)
  };
  const Case cases[] = {
      {MainWindow::Plot::Pareto,
       "pareto",
       {QStringLiteral("Simulated time (µs)"), QStringLiteral("Energy (µJ)")}},
      {MainWindow::Plot::Breakdown, "breakdown", {QStringLiteral("Time (µs)"), QStringLiteral("Compute")}},
      {MainWindow::Plot::Heatmap, "heatmap", {QStringLiteral("Pseudo-channel"), QStringLiteral("Bank")}},
  };
  QStringList expected;
  for (const Case& c : cases) {
    for (const char* suffix : {"png", "svg", "pdf"}) {
      const QString name = QStringLiteral("%1.%2").arg(QLatin1String(c.name), QLatin1String(suffix));
      const QString path = dir.filePath(name);
      QString error;
      ASSERT_TRUE(w->exportPlot(c.plot, path, &error)) << error.toStdString();
      expected << name;
      const QByteArray bytes = readAll(path);
      ASSERT_GT(bytes.size(), 1000) << name.toStdString();
      if (QLatin1String(suffix) == QLatin1String("png")) {
        EXPECT_TRUE(bytes.startsWith(QByteArray::fromHex("89504e470d0a1a0a"))) << name.toStdString();
        const QImage image(path);
        ASSERT_FALSE(image.isNull());
        EXPECT_GE(image.width(), 1200);
        EXPECT_GE(image.height(), 800);
        // Not a blank canvas: axes, labels and points put ink on a good share of the picture.
        qint64 inked = 0;
        const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
        for (int y = 0; y < rgb.height(); ++y) {
          const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
          for (int x = 0; x < rgb.width(); ++x) inked += qGray(line[x]) < 200;
        }
        const double share = double(inked) / (double(rgb.width()) * rgb.height());
        std::printf("%s: %dx%d, %.1f%% inked\n", qPrintable(name), image.width(), image.height(),
                    100 * share);
        EXPECT_GT(share, 0.01) << name.toStdString();
      } else if (QLatin1String(suffix) == QLatin1String("svg")) {
        const QString svg = QString::fromUtf8(bytes);
        EXPECT_TRUE(svg.contains(QLatin1String("<svg"))) << name.toStdString();
        for (const QString& label : c.labels)
          EXPECT_TRUE(svg.contains(label.toHtmlEscaped()))
              << name.toStdString() << " lacks " << label.toStdString();
        // The title names the problem, so the file stands alone.
        EXPECT_TRUE(svg.contains(QString::fromStdString(w->session()->problem()->title()).toHtmlEscaped()));
      } else {
        EXPECT_TRUE(bytes.startsWith("%PDF")) << name.toStdString();
        EXPECT_TRUE(bytes.trimmed().endsWith("%%EOF")) << name.toStdString();
      }
    }
  }
  // Nothing else in the folder: every temporary file was renamed or removed.
  QStringList found = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden);
  found.sort();
  expected.sort();
  EXPECT_EQ(found, expected);
}

TEST_F(ExportTest, FailureNamesTheFileAndLeavesNothing) {
  const QString missing = dir.filePath(QStringLiteral("no-such-folder/pareto.png"));
  QString error;
  EXPECT_FALSE(w->exportPlot(MainWindow::Plot::Pareto, missing, &error));
  EXPECT_TRUE(error.contains(QDir::toNativeSeparators(missing))) << error.toStdString();
  EXPECT_FALSE(QFileInfo::exists(missing));
  EXPECT_TRUE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).isEmpty());

  const QString unknown = dir.filePath(QStringLiteral("pareto.jpg"));
  error.clear();
  EXPECT_FALSE(w->exportPlot(MainWindow::Plot::Pareto, unknown, &error));
  EXPECT_TRUE(error.contains(QDir::toNativeSeparators(unknown))) << error.toStdString();

  const QString csv = dir.filePath(QStringLiteral("x/drafts.csv"));
  error.clear();
  EXPECT_FALSE(w->exportCsv(csv, &error));
  EXPECT_TRUE(error.contains(QDir::toNativeSeparators(csv))) << error.toStdString();
  EXPECT_TRUE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot).isEmpty());
}

TEST_F(ExportTest, ContextMenuOffersExportOnEveryPlot) {
  // The drawing surface of each plot (QCustomPlot, chart view) carries the action in its right-click menu.
  auto hasExport = [](QWidget* surface) {
    if (!surface || surface->contextMenuPolicy() != Qt::ActionsContextMenu) return false;
    for (QAction* a : surface->actions())
      if (a->objectName() == QLatin1String("exportPlotAction")) return true;
    return false;
  };
  EXPECT_TRUE(hasExport(w->pareto()->plot()));
  EXPECT_TRUE(hasExport(w->heatmap()->plot()));
  EXPECT_TRUE(hasExport(w->searchProgress()->plot()));
  EXPECT_TRUE(hasExport(w->breakdown()->findChild<QGraphicsView*>()));
}

TEST_F(ExportTest, SelectedRowsAndAllRowsCsv) {
  QTableView* view = w->table()->view();
  DraftFilterProxy* proxy = w->table()->proxy();
  ASSERT_GE(proxy->rowCount(), 5);
  // Select table rows 4, 1 and 3 (in that click order): the file lists them in table order.
  view->selectionModel()->clearSelection();
  for (int r : {4, 1, 3})
    view->selectionModel()->select(proxy->index(r, 0),
                                   QItemSelectionModel::Select | QItemSelectionModel::Rows);
  QStringList selectedIds;
  for (int r : {1, 3, 4}) selectedIds << proxy->index(r, DraftTableModel::Id).data().toString();
  std::set<quint64> shared(w->selection()->ids().begin(), w->selection()->ids().end());
  ASSERT_EQ(shared.size(), 3u);  // the table pushed its selection to the shared one

  const QString selectedPath = dir.filePath(QStringLiteral("selected.csv"));
  QString error;
  ASSERT_TRUE(w->exportSelectedCsv(selectedPath, &error)) << error.toStdString();
  const auto selected = parseCsv(readAll(selectedPath));
  ASSERT_EQ(selected.size(), 4u);
  const QStringList& header = selected[0];
  ASSERT_EQ(header.size(), DraftTableModel::ColumnCount);
  EXPECT_EQ(header[DraftTableModel::Simulated], QStringLiteral("Simulated (µs)"));
  EXPECT_EQ(header[DraftTableModel::Energy], QStringLiteral("Energy (µJ)"));
  EXPECT_EQ(header[DraftTableModel::Padding], QStringLiteral("Padding (bytes)"));
  for (int c : {DraftTableModel::InRearr, DraftTableModel::OutRearr, DraftTableModel::Padding})
    EXPECT_FALSE(view->isColumnHidden(c)) << c;  // a DRAM-PIM draft reports them
  EXPECT_TRUE(w->pareto()->offersAxis(Objective::RearrangementTime));
  for (int i = 0; i < 3; ++i) {
    const QStringList& rec = selected[static_cast<std::size_t>(i) + 1];
    ASSERT_EQ(rec.size(), DraftTableModel::ColumnCount);
    EXPECT_EQ(rec[DraftTableModel::Id], selectedIds[i]);
    EXPECT_TRUE(shared.count(rec[DraftTableModel::Id].toULongLong()));
    // Full-precision numbers in the header's unit, and the parts label (it holds commas) intact.
    const int row = w->model()->rowOf(rec[DraftTableModel::Id].toULongLong());
    const DraftRow& d = w->model()->row(row);
    ASSERT_TRUE(d.simulated != nullptr);
    EXPECT_NEAR(rec[DraftTableModel::Simulated].toDouble(), d.simulated->timeNs / 1e3,
                1e-9 * d.simulated->timeNs);
    EXPECT_EQ(rec[DraftTableModel::Padding].toLongLong(), d.simulated->paddingBytes);
    EXPECT_EQ(rec[DraftTableModel::Parts], w->model()->index(row, DraftTableModel::Parts).data().toString());
    EXPECT_TRUE(rec[DraftTableModel::Parts].contains(QLatin1Char(',')));
  }

  const QString allPath = dir.filePath(QStringLiteral("all.csv"));
  ASSERT_TRUE(w->exportCsv(allPath, &error)) << error.toStdString();
  const auto all = parseCsv(readAll(allPath));
  EXPECT_EQ(all.size(), static_cast<std::size_t>(w->model()->rowCount()) + 1);
  EXPECT_EQ(all.size(), static_cast<std::size_t>(proxy->rowCount()) + 1);
  EXPECT_EQ(all[0], header);
  std::set<QString> ids;
  for (std::size_t i = 1; i < all.size(); ++i) ids.insert(all[i][DraftTableModel::Id]);
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(w->model()->rowCount()));

  // Nothing selected: refused, no file.
  view->selectionModel()->clearSelection();
  const QString none = dir.filePath(QStringLiteral("none.csv"));
  EXPECT_FALSE(w->exportSelectedCsv(none, &error));
  EXPECT_FALSE(QFileInfo::exists(none));
}

TEST(ExportCsvWriter, QuotesPerRfc4180) {
  pim::Kernel kernel = pim::resolveKernel("red", "");
  pim::Shape shape = pim::parseShape(kernel, "b=1,n=4096");
  auto problem = std::make_shared<const pim::Problem>(pim::builtinBackends().get("hbm-pim"),
                                                      std::move(kernel), std::move(shape));
  DraftTableModel model;
  model.reset(problem);
  std::vector<pim::DraftRecord> records(2);
  records[0].draft = problem->space().draft(0);
  records[0].error = "bad \"value\", then\na second line";
  records[1].draft = problem->space().draft(1);
  records[1].predictedNs = 1234.5678901234;
  model.updateRecords(records);
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("q.csv"));
  const int rows[] = {1, 0};
  QString error;
  ASSERT_TRUE(writeDraftsCsv(model, rows, path, &error)) << error.toStdString();
  const QByteArray bytes = readAll(path);
  EXPECT_TRUE(bytes.contains("\"failed: bad \"\"value\"\", then\na second line\"\r\n"));
  const auto csv = parseCsv(bytes);
  ASSERT_EQ(csv.size(), 3u);
  EXPECT_EQ(csv[1][DraftTableModel::Id], QStringLiteral("1"));
  EXPECT_EQ(csv[1][DraftTableModel::Predicted], QStringLiteral("1.23456789012"));  // µs, 12 digits
  EXPECT_EQ(csv[1][DraftTableModel::Simulated], QString());                        // unknown: empty
  EXPECT_EQ(csv[2][DraftTableModel::Source], QStringLiteral("failed: bad \"value\", then\na second line"));
}

/// Pruned drafts of gddr6-aim red b=1,n=4096 (4,837, listed in well under a second) with the shipped model.
TEST(PrunedPoints, GreyOnPredictedAxesOnly) {
  MainWindow w(false);
  w.show();
  SessionConfig c = test::smallConfig();
  c.backend = "gddr6-aim";
  c.strategy = "predictor";
  c.maxSimulations = 0;
  ASSERT_TRUE(w.startSession(c));
  ASSERT_NE(w.session()->predictor(), nullptr) << "gddr6-aim ships a model";
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && !w.session()->running(); }, 60000));
  ParetoPlot* plot = w.pareto();
  plot->setObjectives(Objective::PredictedTime, Objective::UnitsUsed);
  std::vector<quint64> frontBefore;
  for (const auto& p : plot->points())
    if (p.front) frontBefore.push_back(p.id);
  ASSERT_FALSE(frontBefore.empty());
  EXPECT_EQ(plot->prunedGraph()->dataCount(), 0);

  w.table()->showPrunedBox()->setChecked(true);
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.model()->prunedRows() > 0; }, 60000));
  const DraftTableModel& m = *w.model();
  int withValues = 0;
  for (int r = m.keptRows(); r < m.rowCount(); ++r) withValues += m.row(r).predictedNs && m.row(r).unitsUsed;
  EXPECT_EQ(withValues, m.prunedRows());  // every listed pruned draft was predicted and laid out
  EXPECT_EQ(plot->prunedGraph()->dataCount(), withValues);
  EXPECT_EQ(plot->prunedPlottable(), static_cast<std::size_t>(withValues));
  EXPECT_TRUE(plot->plot()->legend->hasItemWithPlottable(plot->prunedGraph()));
  EXPECT_TRUE(plot->prunedGraph()->name().contains(QLatin1String("predicted only")));
  // Behind the evaluated drafts, and never on the front.
  EXPECT_LT(plot->prunedGraph()->layer()->index(), plot->plot()->layer(QStringLiteral("main"))->index());
  std::vector<quint64> frontAfter;
  for (const auto& p : plot->points()) {
    EXPECT_LT(p.row, m.keptRows());
    if (p.front) frontAfter.push_back(p.id);
  }
  EXPECT_EQ(frontAfter, frontBefore);

  // The values are the engine's: the same model call and the bank layout a simulation reports.
  const pim::Problem& problem = *w.session()->problem();
  // Predictions depend on the batch (coarse to fine), so the first row is checked within its batch.
  const DraftRow& first = m.row(m.keptRows());
  std::vector<pim::Draft> batch;
  for (int r = m.keptRows(); r < m.rowCount() && batch.size() < kPrunedPredictionBatch; ++r)
    batch.push_back(m.row(r).draft);
  EXPECT_NEAR(*first.predictedNs, w.session()->predictor()->predictNs(problem, batch)[0],
              1e-6 * *first.predictedNs);
  const pim::Evaluation e = pim::evaluateDraft(problem, first.draft, w.session()->config().evalOptions());
  EXPECT_EQ(*first.unitsUsed, e.unitsUsed);
  // The table shows the same numbers.
  EXPECT_DOUBLE_EQ(*m.sortValue(m.keptRows(), DraftTableModel::UnitsUsed), e.unitsUsed);

  // A simulated axis has no pruned points, and the legend says why.
  plot->setObjectives(Objective::SimulatedTime, Objective::UnitsUsed);
  EXPECT_EQ(plot->prunedGraph()->dataCount(), 0);
  EXPECT_TRUE(plot->prunedGraph()->name().contains(QLatin1String("not on these axes")));

  plot->setObjectives(Objective::PredictedTime, Objective::UnitsUsed);
  // The export shows the grey cloud too (PIMSCOPE_KEEP_EXPORTS=1 keeps the file, docs/screenshots has one).
  QTemporaryDir dir;
  if (qEnvironmentVariableIsSet("PIMSCOPE_KEEP_EXPORTS")) {
    dir.setAutoRemove(false);
    std::printf("exports kept in %s\n", qPrintable(dir.path()));
  }
  const QString png = dir.filePath(QStringLiteral("pareto_pruned.png"));
  QString error;
  ASSERT_TRUE(w.exportPlot(MainWindow::Plot::Pareto, png, &error)) << error.toStdString();
  const QImage image = QImage(png).convertToFormat(QImage::Format_RGB32);
  int grey = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) grey += image.pixel(x, y) == qRgb(190, 190, 190);
  EXPECT_GT(grey, 1000);

  // Clicking a grey point away from every evaluated one selects that pruned draft.
  QCustomPlot* qcp = plot->plot();
  qcp->replot();
  bool hovered = false;
  for (const auto& p : plot->prunedPoints()) {
    const QPoint px(int(qcp->xAxis->coordToPixel(p.x)), int(qcp->yAxis->coordToPixel(p.y)));
    bool nearKept = false;
    for (const auto& k : plot->points())
      nearKept |=
          std::hypot(qcp->xAxis->coordToPixel(k.x) - px.x(), qcp->yAxis->coordToPixel(k.y) - px.y()) < 12;
    if (nearKept || !qcp->rect().contains(px)) continue;
    // Press and release on it (the hover tooltip uses the same lookup).
    QMouseEvent press(QEvent::MouseButtonPress, QPointF(px), qcp->mapToGlobal(QPointF(px)), Qt::LeftButton,
                      Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(qcp, &press);
    QMouseEvent release(QEvent::MouseButtonRelease, QPointF(px), qcp->mapToGlobal(QPointF(px)),
                        Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
    QCoreApplication::sendEvent(qcp, &release);
    const auto current = w.selection()->current();
    ASSERT_TRUE(current.has_value());
    EXPECT_TRUE(m.row(m.rowOf(*current)).pruned);
    hovered = true;
    break;
  }
  EXPECT_TRUE(hovered);

  // Hidden again with the toggle.
  w.table()->showPrunedBox()->setChecked(false);
  EXPECT_EQ(plot->prunedGraph()->dataCount(), 0);
  EXPECT_FALSE(plot->plot()->legend->hasItemWithPlottable(plot->prunedGraph()));
}

/// A run without a model has no predictions for pruned drafts: none are drawn, and the legend says so.
TEST(PrunedPoints, NoneWithoutPredictor) {
  MainWindow w(false);
  w.show();
  SessionConfig c = test::smallConfig();
  c.backend = "gddr6-aim";
  ASSERT_TRUE(w.startSession(c));
  ASSERT_EQ(w.session()->predictor(), nullptr);
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && !w.session()->running(); }, 60000));
  w.pareto()->setObjectives(Objective::PredictedTime, Objective::UnitsUsed);
  w.table()->showPrunedBox()->setChecked(true);
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.model()->prunedRows() > 0; }, 60000));
  EXPECT_EQ(w.pareto()->prunedGraph()->dataCount(), 0);
  EXPECT_TRUE(w.pareto()->prunedGraph()->name().contains(QLatin1String("no predictor")));
}

/// The capped listing (100,000 pruned drafts of hbm-pim red) keeps the plot responsive: a sample of 10,000 is
/// laid out on the banks, and a cloud above 20,000 points is thinned; the legend says how many are drawn.
TEST(PrunedPoints, HundredThousandStayResponsive) {
  MainWindow w(false);
  w.show();
  SessionConfig c = test::smallConfig();
  c.strategy = "predictor";
  c.maxSimulations = 0;
  ASSERT_TRUE(w.startSession(c));
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && !w.session()->running(); }, 60000));
  ParetoPlot* plot = w.pareto();
  plot->setObjectives(Objective::PredictedTime, Objective::UnitsUsed);
  QElapsedTimer listing;
  listing.start();
  w.table()->showPrunedBox()->setChecked(true);
  ASSERT_TRUE(test::waitFor([&] { return w.idle() && w.model()->prunedRows() > 0; }, 300000));
  std::printf("listed, predicted and laid out %d pruned drafts in %.1f s\n", w.model()->prunedRows(),
              listing.elapsed() / 1e3);
  const DraftTableModel& m = *w.model();
  ASSERT_EQ(static_cast<std::size_t>(m.prunedRows()), kPrunedListCap);
  int predicted = 0, laidOut = 0;
  for (int r = m.keptRows(); r < m.rowCount(); ++r) {
    predicted += m.row(r).predictedNs.has_value();
    laidOut += m.row(r).unitsUsed.has_value();
    // The sample is every 10th row in id order.
    EXPECT_EQ(m.row(r).unitsUsed.has_value(), (r - m.keptRows()) % 10 == 0) << r;
  }
  EXPECT_EQ(predicted, m.prunedRows());
  EXPECT_EQ(static_cast<std::size_t>(laidOut), kPrunedLayoutCap);
  EXPECT_EQ(plot->prunedGraph()->dataCount(), laidOut);
  EXPECT_TRUE(plot->prunedGraph()->name().contains(QLatin1String("10,000 of 100,000")))
      << plot->prunedGraph()->name().toStdString();

  auto medianReplotMs = [&] {
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) {
      plot->plot()->replot(QCustomPlot::rpImmediateRefresh);
      ms.push_back(plot->plot()->replotTime());
    }
    std::sort(ms.begin(), ms.end());
    return ms[2];
  };
  const double banksMs = medianReplotMs();
  // Predicted time on both axes: every pruned draft has the values, so the cloud is thinned.
  plot->setObjectives(Objective::PredictedTime, Objective::PredictedTime);
  EXPECT_EQ(plot->prunedPlottable(), kPrunedListCap);
  EXPECT_EQ(static_cast<std::size_t>(plot->prunedGraph()->dataCount()), ParetoPlot::kMaxPrunedPoints);
  const double thinnedMs = medianReplotMs();
  std::printf("replot: %.1f ms with %zu grey points, %.1f ms with %zu\n", banksMs, kPrunedLayoutCap,
              thinnedMs, ParetoPlot::kMaxPrunedPoints);
  // Generous for a loaded 2-core CI machine; unloaded both are a few ms.
  EXPECT_LT(banksMs, 50.0);
  EXPECT_LT(thinnedMs, 50.0);
}
