// SPDX-License-Identifier: Apache-2.0
#include "views/llm_token_chart.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "views/llm_breakdown_chart.h"
#include "views/llm_chart_style.h"

namespace pimgui {

using namespace pim::llm;

LlmTokenChart::LlmTokenChart(QWidget* parent) : QWidget(parent) {
  m_caption = newLlmCaption();
  m_plot = newLlmPlot(260);
  QSharedPointer<QCPAxisTickerFixed> steps(new QCPAxisTickerFixed);  // whole steps: no "2.5"
  steps->setTickStep(1);
  steps->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  m_plot->xAxis->setTicker(steps);
  // Zoom and pan along the steps: a long request has thousands.
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
  m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(m_caption);
  layout->addWidget(m_plot, 1);
  setResult(nullptr);
}

void LlmTokenChart::setResult(const InferenceResult* r) {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_plot->xAxis->setLabel(tr("decode step (output token index; the first token comes from the prefill)"));
  m_plot->yAxis->setLabel(tr("time per token (ms)"));
  const bool any = r && std::any_of(r->systems.begin(), r->systems.end(),
                                    [](const SystemResult& s) { return s.available && !s.steps.empty(); });
  if (!any) {
    m_caption->setText(r ? llmUnavailableText(*r) : tr("Run a request to see every decode step's time"));
    showPlotNote(m_plot, tr("Each system that runs becomes a line: its time per token at every decode step"));
    m_plot->legend->setVisible(false);
    m_plot->replot();
    return;
  }
  double top = 0;
  std::int64_t last = 1;
  QStringList compile;
  for (const SystemResult& s : r->systems) {
    if (!s.available || s.steps.empty()) continue;
    QCPGraph* g = m_plot->addGraph();
    g->setName(QString::fromStdString(s.system));
    g->setPen(QPen(llmSystemColour(s.system), 2));
    // Markers while the points are few enough to tell apart.
    if (s.steps.size() <= 64) g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    for (const TokenStep& t : s.steps) {
      g->addData(static_cast<double>(t.step), t.ms);
      top = std::max(top, t.ms);
    }
    last = std::max(last, s.steps.back().step);
    if (s.compileMs > 0)
      compile << tr("%1 %2 s").arg(QString::fromStdString(s.system)).arg(s.compileMs / 1e3, 0, 'f', 1);
  }
  QString text = llmRequestText(*r);
  if (!compile.isEmpty()) text += tr("; online compilation (not in these times): %1").arg(compile.join(", "));
  if (const QString gaps = llmUnavailableText(*r); !gaps.isEmpty()) text += QLatin1Char('\n') + gaps;
  m_caption->setText(text);
  m_plot->xAxis->setRange(0.5, static_cast<double>(last) + 0.5);  // the end points' markers whole
  // From zero, so lines compare by height (a flat 11.4 ms and a flat 1.9 ms are 6x apart, not both "flat").
  m_plot->yAxis->setRange(0, top > 0 ? top * 1.1 : 1);
  showTickLabels(m_plot);
  placeLegendBeside(m_plot);
  m_plot->replot();
}

}  // namespace pimgui
