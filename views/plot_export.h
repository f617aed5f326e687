// SPDX-License-Identifier: Apache-2.0
// Export of the window's plots (Pareto plot, heat map: QCustomPlot; time breakdown: Qt Charts) as PNG,
// SVG or PDF. One place for every plot and format: the format follows the file suffix, the picture is what is
// on screen (axes, labels, legend) at the widget's size, and files are written atomically (a temporary file
// next to the target, renamed on success) so a failed export never leaves a half-written file.
#pragma once
#include <QSize>
#include <QString>
#include <functional>
#include <optional>

class QWidget;

namespace pimgui {

enum class PlotFormat { Png, Svg, Pdf };

/// Format of `path` from its suffix (case-insensitive .png/.svg/.pdf), nullopt for anything else.
std::optional<PlotFormat> plotFormatFor(const QString& path);
/// File-dialog filter listing the three formats, PNG first.
QString plotExportFilter();

/// Pixel size of a PNG export of a plot whose on-screen size is `logical`: at least 2x, and at least
/// 1200x800 pixels, keeping the aspect ratio (the layout stays the on-screen one, only the resolution grows).
QSize pngPixelSize(QSize logical);

/// Writes `plot` to `path`. `plot` is a QCustomPlot, a QGraphicsView (QChartView), or a widget holding one
/// (ParetoPlot, UnitHeatmap, BreakdownChart: their toolbars are left out). A non-empty `title` is drawn in a
/// band above the plot so the file says what it shows. On failure returns false and sets `error` to a
/// message naming the file; nothing is left at `path` or next to it.
bool exportPlot(QWidget* plot, const QString& path, QString* error, const QString& title = {});

/// Asks for a file (PNG/SVG/PDF, `baseName` suggested) and exports; a failure is shown in a message box.
/// Returns the path written, empty when cancelled or failed.
QString exportPlotInteractive(QWidget* dialogParent, QWidget* plot, const QString& baseName,
                              const QString& title);

/// Adds an "Export…" entry to the right-click menu of `plot`'s drawing surface (the QCustomPlot or chart
/// view inside it) that calls `onExport`.
void addExportContextMenu(QWidget* plot, std::function<void()> onExport);

}  // namespace pimgui
