// SPDX-License-Identifier: Apache-2.0
#include "views/plot_legend.h"

#include <qcustomplot.h>

namespace pimgui {

void placeLegendBelow(QCustomPlot* plot) {
  plot->legend->setVisible(true);
  plot->axisRect()->insetLayout()->take(plot->legend);
  plot->plotLayout()->addElement(1, 0, plot->legend);
  plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot->legend->setBorderPen(Qt::NoPen);
  plot->plotLayout()->setRowStretchFactor(1, 0.001);
  plot->plotLayout()->setRowSpacing(0);
}

}  // namespace pimgui
