// SPDX-License-Identifier: Apache-2.0
// The heat maps' plot, set up once: the per-unit heat map and the crossbar per-core map draw the same kind of
// grid (whole units on both axes, unit 0 at the top left, a colour scale on the right, viridis), so they read
// the same way.
#pragma once
#include <qcustomplot.h>

namespace pimgui {

/// Viridis: perceptually uniform and never white, so full units stay visible on the white background
/// (QCustomPlot 2.1 has no built-in viridis). NaN cells (no unit there) are transparent.
QCPColorGradient viridisGradient();

struct ColorMapPlot {
  QCustomPlot* plot = nullptr;
  QCPColorMap* map = nullptr;
  QCPColorScale* scale = nullptr;
};

/// A plot holding one colour map in viridis with its scale on the right, the y axis reversed and integer
/// ticks on both axes (thinned in steps of 1, 2, 5, 10, ... when there are many units).
ColorMapPlot makeColorMapPlot(int minimumWidth, int minimumHeight);

}  // namespace pimgui
