// SPDX-License-Identifier: Apache-2.0
#include "views/llm_chart_style.h"

#include <QLabel>

#include <qcustomplot.h>
#include <algorithm>
#include <vector>

#include "engine/llm/system.h"

namespace pimgui {

QColor llmPhaseColour(int phase) {
  static const QColor colours[] = {
      QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0x59, 0xa1, 0x4f), QColor(0xe1, 0x57, 0x59),
      QColor(0xba, 0xb0, 0xac), QColor(0xb0, 0x7a, 0xa1), QColor(0x76, 0xb7, 0xb2)};
  return colours[static_cast<std::size_t>(std::clamp(phase, 0, 6))];
}

QColor llmSystemColour(const std::string& system) {
  // gpu, attacc-base, attacc-base+dcc, attacc-full, attacc-full+dcc, auto.
  static const QColor colours[] = {QColor(0x55, 0x55, 0x55), QColor(0x8f, 0xb4, 0xd9),
                                   QColor(0x1f, 0x5a, 0x99), QColor(0xf4, 0xa5, 0x82),
                                   QColor(0xc0, 0x39, 0x2b), QColor(0x2e, 0x8b, 0x57)};
  static const std::vector<std::string> names = pim::llm::systemNames();
  const auto at = std::find(names.begin(), names.end(), system);
  const auto i = static_cast<std::size_t>(at - names.begin());
  return i < std::size(colours) ? colours[i] : QColor(0x7f, 0x3c, 0x8d);
}

void showTickLabels(QCustomPlot* plot) {
  plot->xAxis->setTickLabels(true);
  plot->yAxis->setTickLabels(true);
}

void placeLegendBeside(QCustomPlot* plot) {
  plot->legend->setVisible(true);
  if (plot->plotLayout()->columnCount() > 1) return;  // placed already
  // QCustomPlot keeps the legend in the axis rect's inset layout; it moves to the top of a column of its own.
  plot->axisRect()->insetLayout()->take(plot->legend);
  plot->axisRect()->insetLayout()->simplify();
  auto* column = new QCPLayoutGrid;
  plot->plotLayout()->addElement(0, 1, column);
  plot->plotLayout()->setColumnStretchFactor(1, 0.001);
  column->addElement(0, 0, plot->legend);
  column->addElement(1, 0, new QCPLayoutElement(plot));  // takes the height below the legend
  column->setRowStretchFactor(0, 0.001);
  column->setMargins(QMargins(0, 10, 6, 0));
}

void showPlotNote(QCustomPlot* plot, const QString& text) {
  plot->clearPlottables();
  plot->clearItems();
  // No numbers on axes that show nothing (the last run's ranges would suggest data).
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
    axis->setRange(0, 1);
    axis->setTickLabels(false);
  }
  auto* note = new QCPItemText(plot);
  note->position->setType(QCPItemPosition::ptAxisRectRatio);
  note->position->setCoords(0.5, 0.5);
  note->setColor(QColor(110, 110, 110));
  note->setText(text);
}

QLabel* newLlmCaption() {
  auto* caption = new QLabel;
  caption->setWordWrap(true);
  caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return caption;
}

QCustomPlot* newLlmPlot(int minimumHeight) {
  auto* plot = new QCustomPlot;
  plot->setMinimumSize(420, minimumHeight);
  plot->legend->setFont(QFont(plot->font().family(), 9));
  return plot;
}

}  // namespace pimgui
