// SPDX-License-Identifier: Apache-2.0
#include "views/solve_progress_plot.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "views/plot_legend.h"

namespace pimgui {

namespace cm = pim::convmap;

SolveProgressPlot::SolveProgressPlot(QWidget* parent)
    : QWidget(parent), m_plot(new QCustomPlot), m_caption(new QLabel) {
  m_caption->setWordWrap(true);
  m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_caption);
  layout->addWidget(m_plot, 1);
  m_plot->setMinimumSize(320, 200);
  m_plot->xAxis->setLabel(tr("Time since the search began (s)"));
  m_plot->yAxis->setNumberFormat(QStringLiteral("g"));
  m_plot->yAxis->setNumberPrecision(7);
  m_best = m_plot->addGraph();
  m_best->setName(tr("best mapping found"));
  m_best->setLineStyle(QCPGraph::lsStepLeft);
  m_best->setPen(QPen(QColor(31, 119, 180), 2));
  m_bound = m_plot->addGraph();
  m_bound->setName(tr("proven lower bound"));
  m_bound->setLineStyle(QCPGraph::lsStepLeft);
  m_bound->setPen(QPen(QColor(214, 39, 40), 2, Qt::DashLine));
  placeLegendBelow(m_plot);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  begin({cm::Objective::Energy}, tr("Map a layer to see its search converge: the best mapping found and the "
                                    "proven lower bound over time."));
}

QString SolveProgressPlot::caption() const { return m_caption->text(); }

double SolveProgressPlot::shown(double value) const {
  return m_objective.kind == cm::Objective::Energy ? value / 1e3 : value;
}

void SolveProgressPlot::begin(const cm::ObjectiveSpec& objective, const QString& caption) {
  m_objective = objective;
  m_best->data()->clear();
  m_bound->data()->clear();
  m_caption->setText(caption);
  switch (objective.kind) {
    case cm::Objective::Latency:
      m_plot->yAxis->setLabel(tr("Latency (cycles)"));
      break;
    case cm::Objective::Energy:
      m_plot->yAxis->setLabel(tr("Energy (nJ)"));
      break;
    case cm::Objective::Blended:
      m_plot->yAxis->setLabel(tr("Blended objective (latency and energy, each over its reference)"));
      break;
  }
  // No values until the first report: no numbers on the axes that would read as results.
  m_plot->xAxis->setTickLabels(false);
  m_plot->yAxis->setTickLabels(false);
  m_plot->xAxis->setRange(0, 1);
  m_plot->yAxis->setRange(0, 1);
  m_plot->replot();
}

void SolveProgressPlot::add(const cm::MapProgress& p) {
  if (p.incumbent) m_best->addData(p.seconds, shown(*p.incumbent));
  if (p.bound) m_bound->addData(p.seconds, shown(*p.bound));
  rescale();
}

void SolveProgressPlot::finish(const cm::MapResult& r) {
  m_best->addData(r.seconds, shown(r.objective));
  if (r.bound) m_bound->addData(r.seconds, shown(*r.bound));
  rescale();
}

void SolveProgressPlot::rescale() {
  bool any = false;
  QCPRange x, y;
  for (QCPGraph* g : {m_best, m_bound}) {
    bool found = false;
    const QCPRange gx = g->data()->keyRange(found);
    if (!found) continue;
    const QCPRange gy = g->data()->valueRange(found);
    x = any ? QCPRange(std::min(x.lower, gx.lower), std::max(x.upper, gx.upper)) : gx;
    y = any ? QCPRange(std::min(y.lower, gy.lower), std::max(y.upper, gy.upper)) : gy;
    any = true;
  }
  m_plot->xAxis->setTickLabels(any);
  m_plot->yAxis->setTickLabels(any);
  if (any) {
    m_plot->xAxis->setRange(0, std::max(x.upper * 1.05, 0.1));
    // Room above and below, and a visible span when the curves are flat (a proven optimum).
    const double pad = std::max((y.upper - y.lower) * 0.08, std::abs(y.upper) * 0.01 + 1e-12);
    m_plot->yAxis->setRange(y.lower - pad, y.upper + pad);
  }
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace pimgui
