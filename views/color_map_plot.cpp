// SPDX-License-Identifier: Apache-2.0
#include "views/color_map_plot.h"

namespace pimgui {

QCPColorGradient viridisGradient() {
  QCPColorGradient viridis;
  viridis.setColorStopAt(0.0, QColor(0x44, 0x01, 0x54));
  viridis.setColorStopAt(0.25, QColor(0x3b, 0x52, 0x8b));
  viridis.setColorStopAt(0.5, QColor(0x21, 0x91, 0x8c));
  viridis.setColorStopAt(0.75, QColor(0x5e, 0xc9, 0x62));
  viridis.setColorStopAt(1.0, QColor(0xfd, 0xe7, 0x25));
  viridis.setNanHandling(QCPColorGradient::nhTransparent);
  return viridis;
}

ColorMapPlot makeColorMapPlot(int minimumWidth, int minimumHeight) {
  ColorMapPlot p;
  p.plot = new QCustomPlot;
  p.plot->setMinimumSize(minimumWidth, minimumHeight);
  p.map = new QCPColorMap(p.plot->xAxis, p.plot->yAxis);
  p.map->setInterpolate(false);
  p.scale = new QCPColorScale(p.plot);
  p.plot->plotLayout()->addElement(0, 1, p.scale);
  p.scale->setType(QCPAxis::atRight);
  p.map->setColorScale(p.scale);
  p.map->setGradient(viridisGradient());  // after setColorScale, which hands the map the scale's gradient
  auto* group = new QCPMarginGroup(p.plot);
  p.plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  p.scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  p.plot->yAxis->setRangeReversed(true);  // unit 0 at the top, like a memory map
  for (QCPAxis* axis : {p.plot->xAxis, p.plot->yAxis}) {
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    axis->setTicker(ticker);
  }
  p.plot->setMouseTracking(true);
  return p;
}

}  // namespace pimgui
