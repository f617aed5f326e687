// SPDX-License-Identifier: Apache-2.0
// Where a plot's legend goes: in a row of its own under the axes, never over the data (in the axis rect's
// corner it hid the best draft of the Pareto plot).
#pragma once

class QCustomPlot;

namespace pimgui {

/// Shows `plot`'s legend in a row under the axis rect, its entries side by side, without a border.
void placeLegendBelow(QCustomPlot* plot);

}  // namespace pimgui
