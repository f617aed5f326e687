// SPDX-License-Identifier: Apache-2.0
// Colour gradients the maps share, so every heat map in the window reads the same way.
#pragma once
#include <qcustomplot.h>

namespace pimgui {

/// Viridis: perceptually uniform and never white, so full units stay visible on the white background
/// (QCustomPlot 2.1 has no built-in viridis). NaN cells (no unit there) are transparent.
QCPColorGradient viridisGradient();

}  // namespace pimgui
