// SPDX-License-Identifier: Apache-2.0
#include "views/plot_export.h"
#include "views/export_paths.h"

#include <qcustomplot.h>
#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsView>
#include <QImage>
#include <QMessageBox>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>

namespace pimgui {

namespace {

QString tr(const char* s) { return QCoreApplication::translate("PlotExport", s); }

/// The part of a view that draws the plot: its QCustomPlot or its chart view.
struct Surface {
  QCustomPlot* qcp = nullptr;
  QGraphicsView* view = nullptr;
  QWidget* widget() const { return qcp ? static_cast<QWidget*>(qcp) : view; }
};

Surface surfaceOf(QWidget* w) {
  if (!w) return {};
  if (auto* p = qobject_cast<QCustomPlot*>(w)) return {p, nullptr};
  if (auto* v = qobject_cast<QGraphicsView*>(w)) return {nullptr, v};
  if (auto* p = w->findChild<QCustomPlot*>()) return {p, nullptr};
  if (auto* v = w->findChild<QGraphicsView*>()) return {nullptr, v};
  return {};
}

/// Band above the plot holding the title, in logical pixels (0 without a title).
int titleBand(const QWidget* w, const QString& title) {
  if (title.isEmpty()) return 0;
  QFont f = w->font();
  f.setBold(true);
  return static_cast<int>(std::ceil(QFontMetrics(f).height() * 1.8));
}

/// Paints title and plot into `p`, whose coordinates are logical pixels of a `size.width()` x
/// (`band` + `size.height()`) picture. Fonts resolve at the widget's DPI (the caller makes the device match),
/// so text measures as it does on screen and the layout is the on-screen one.
void paint(QCPPainter& p, const Surface& s, QSize size, const QString& title, int band) {
  p.fillRect(QRect(0, 0, size.width(), size.height() + band), Qt::white);
  if (band > 0) {
    QFont f = s.widget()->font();
    f.setBold(true);
    p.setFont(f);
    p.setPen(Qt::black);
    const QRect r(8, 0, size.width() - 16, band);
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextSingleLine,
               QFontMetrics(f).elidedText(title, Qt::ElideRight, r.width()));
    p.translate(0, band);
  }
  if (s.qcp) {
    s.qcp->toPainter(&p, size.width(), size.height());
  } else {
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    s.view->render(&p, QRectF(0, 0, size.width(), size.height()), s.view->viewport()->rect(),
                   Qt::IgnoreAspectRatio);
  }
}

}  // namespace

std::optional<PlotFormat> plotFormatFor(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("png")) return PlotFormat::Png;
  if (suffix == QLatin1String("svg")) return PlotFormat::Svg;
  if (suffix == QLatin1String("pdf")) return PlotFormat::Pdf;
  return std::nullopt;
}

QString plotExportFilter() { return tr("PNG image (*.png);;SVG vector image (*.svg);;PDF document (*.pdf)"); }

QSize pngPixelSize(QSize logical) {
  const double w = std::max(1, logical.width()), h = std::max(1, logical.height());
  const double scale = std::max({2.0, 1200.0 / w, 800.0 / h});
  return {static_cast<int>(std::lround(w * scale)), static_cast<int>(std::lround(h * scale))};
}

bool exportPlot(QWidget* plot, const QString& path, QString* error, const QString& title) {
  auto fail = [&](const QString& why) {
    if (error) *error = tr("Cannot export to %1: %2").arg(QDir::toNativeSeparators(path), why);
    return false;
  };
  const std::optional<PlotFormat> format = plotFormatFor(path);
  if (!format) return fail(tr("unknown format (use .png, .svg or .pdf)"));
  const Surface s = surfaceOf(plot);
  if (!s.widget()) return fail(tr("nothing to draw"));

  // On-screen size; a plot that was never laid out still gets a readable canvas.
  const QSize size = s.widget()->size().expandedTo(QSize(480, 320));
  const int band = titleBand(s.widget(), title);
  const QSize full(size.width(), size.height() + band);
  const int dpi = s.widget()->logicalDpiX();

  // QSaveFile writes a temporary file next to `path` and renames it on commit; a failed export removes it.
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return fail(file.errorString());
  bool drawn = false;
  switch (*format) {
    case PlotFormat::Png: {
      const QSize px = pngPixelSize(full);
      QImage image(px, QImage::Format_ARGB32_Premultiplied);
      const int dpm = static_cast<int>(std::lround(dpi / 0.0254));
      image.setDotsPerMeterX(dpm);
      image.setDotsPerMeterY(dpm);
      image.fill(Qt::white);
      if (!title.isEmpty()) image.setText(QStringLiteral("Title"), title);
      QCPPainter p(&image);
      if (!p.isActive()) break;
      // Scaled vector drawing, as QCustomPlot::toPixmap does: pens scale with the picture.
      p.setMode(QCPPainter::pmNonCosmetic);
      p.scale(px.width() / double(full.width()), px.height() / double(full.height()));
      paint(p, s, size, title, band);
      p.end();
      drawn = image.save(&file, "PNG");
      break;
    }
    case PlotFormat::Svg: {
      QSvgGenerator svg;
      svg.setOutputDevice(&file);
      svg.setSize(full);
      svg.setViewBox(QRect(QPoint(0, 0), full));
      svg.setResolution(dpi);
      svg.setTitle(title);
      svg.setDescription(tr("Exported from PIMScope"));
      QCPPainter p;
      if (!p.begin(&svg)) break;
      p.setMode(QCPPainter::pmVectorized);
      paint(p, s, size, title, band);
      drawn = p.end();
      break;
    }
    case PlotFormat::Pdf: {
      QPdfWriter pdf(&file);
      pdf.setCreator(QStringLiteral("PIMScope"));
      pdf.setTitle(title);
      // One device pixel per logical pixel: the page is the plot's size at the widget's DPI.
      pdf.setResolution(dpi);
      pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
      pdf.setPageSize(
          QPageSize(QSizeF(full.width() * 72.0 / dpi, full.height() * 72.0 / dpi), QPageSize::Point, title));
      QCPPainter p;
      if (!p.begin(&pdf)) break;
      p.setMode(QCPPainter::pmVectorized);
      // The page is whole points; map the picture onto it exactly.
      p.setWindow(QRect(QPoint(0, 0), full));
      paint(p, s, size, title, band);
      drawn = p.end();
      break;
    }
  }
  if (!drawn) {
    file.cancelWriting();
    return fail(file.error() != QFileDevice::NoError ? file.errorString() : tr("rendering failed"));
  }
  if (!file.commit()) return fail(file.errorString());
  return true;
}

QString exportPlotInteractive(QWidget* dialogParent, QWidget* plot, const QString& baseName,
                              const QString& title) {
  QString selected;
  const QString start = suggestedExportPath(baseName + ".png");  // the last export folder (export_paths.h)
  QString path =
      QFileDialog::getSaveFileName(dialogParent, tr("Export plot"), start, plotExportFilter(), &selected);
  if (path.isEmpty()) return {};
  if (!plotFormatFor(path)) {
    // No (known) suffix typed: take the one of the chosen filter.
    if (selected.contains(QLatin1String("*.svg")))
      path += QStringLiteral(".svg");
    else if (selected.contains(QLatin1String("*.pdf")))
      path += QStringLiteral(".pdf");
    else
      path += QStringLiteral(".png");
  }
  rememberExportFolder(path);
  QString error;
  if (!exportPlot(plot, path, &error, title)) {
    QMessageBox::warning(dialogParent, tr("Export failed"), error);
    return {};
  }
  return path;
}

void addExportContextMenu(QWidget* plot, std::function<void()> onExport) {
  QWidget* target = surfaceOf(plot).widget();
  if (!target) target = plot;
  auto* action = new QAction(tr("Export…"), target);
  action->setObjectName(QStringLiteral("exportPlotAction"));
  action->setToolTip(tr("Save this plot as PNG, SVG or PDF"));
  QObject::connect(action, &QAction::triggered, target, [onExport = std::move(onExport)] { onExport(); });
  target->addAction(action);
  target->setContextMenuPolicy(Qt::ActionsContextMenu);
}

}  // namespace pimgui
