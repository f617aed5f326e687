// SPDX-License-Identifier: Apache-2.0
#include "views/llm_serve_chart.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "views/llm_chart_style.h"

namespace pimgui {

using namespace pim::llm;

QString llmServeCaption(const std::vector<ServeResult>& runs) {
  QStringList parts;
  for (const ServeResult& r : runs) {
    if (r.requests.empty() && !r.reason.empty()) {
      parts << QObject::tr("%1 on %2 cannot serve the stream: %3")
                   .arg(QString::fromLatin1(lookupModeName(r.mode)), QString::fromStdString(r.system),
                        QString::fromStdString(r.reason));
      continue;
    }
    double sum = 0;
    for (const ServedRequest& q : r.requests) sum += q.latencyMs;
    const double mean = r.requests.empty() ? 0 : sum / static_cast<double>(r.requests.size());
    QString s = QObject::tr("%1 on %2: %3 requests, mean %4 ms")
                    .arg(QString::fromLatin1(lookupModeName(r.mode)), QString::fromStdString(r.system))
                    .arg(r.requests.size())
                    .arg(mean, 0, 'f', 1);
    if (r.mode == LookupMode::Online)
      s += QObject::tr(", warm-up %1 requests (the last one that compiled), %2 shapes in the table")
               .arg(r.warmup)
               .arg(r.tableSize);
    else
      s += QObject::tr(", %1 shapes compiled in %2 s before the first request")
               .arg(r.tableSize)
               .arg(r.prefillSeconds, 0, 'f', 1);
    if (!r.reason.empty()) s += QObject::tr("; stopped at %1").arg(QString::fromStdString(r.reason));
    parts << s;
  }
  return parts.join(QLatin1Char('\n'));
}

LlmServeChart::LlmServeChart(QWidget* parent) : QWidget(parent) {
  m_caption = newLlmCaption();
  m_plot = newLlmPlot(240);
  QSharedPointer<QCPAxisTickerFixed> requests(new QCPAxisTickerFixed);  // whole requests
  requests->setTickStep(1);
  requests->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  m_plot->xAxis->setTicker(requests);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(m_caption);
  layout->addWidget(m_plot, 1);
  setRuns({});
}

void LlmServeChart::setRuns(const std::vector<ServeResult>& runs) {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_plot->xAxis->setLabel(tr("request (its index in the stream, from 1)"));
  m_plot->yAxis->setLabel(tr("latency per request (ms)"));
  const bool any =
      std::any_of(runs.begin(), runs.end(), [](const ServeResult& r) { return !r.requests.empty(); });
  m_caption->setText(runs.empty() ? tr("Run a request stream to see how the lookup table warms up")
                                  : llmServeCaption(runs));
  if (!any) {
    showPlotNote(m_plot, tr("Online and offline lookup tables become two lines: latency of every request"));
    m_plot->legend->setVisible(false);
    m_plot->replot();
    return;
  }
  double top = 0;
  int last = 1;
  for (const ServeResult& r : runs) {
    QCPGraph* g = m_plot->addGraph();
    const bool online = r.mode == LookupMode::Online;
    g->setName(online ? tr("online lookup table") : tr("offline lookup table"));
    const QColor colour = online ? QColor(0xc0, 0x39, 0x2b) : QColor(0x1f, 0x5a, 0x99);
    g->setPen(QPen(colour, 2));
    if (r.requests.size() <= 120) g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
    for (const ServedRequest& q : r.requests) {
      g->addData(q.index + 1, q.latencyMs);
      top = std::max(top, q.latencyMs);
      last = std::max(last, q.index + 1);
    }
  }
  for (const ServeResult& r : runs) {
    if (r.mode != LookupMode::Online || r.warmup <= 0) continue;
    // Where the online table stopped compiling: from here on both tables serve every shape.
    const QColor colour(0xc0, 0x39, 0x2b);
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(r.warmup, 0);
    line->point2->setCoords(r.warmup, 1);
    line->setPen(QPen(colour.lighter(140), 1, Qt::DashLine));
    auto* label = new QCPItemText(m_plot);
    label->position->setCoords(r.warmup, top * 1.12);
    // Beside the line, on the side with room (a stream still warming up has it near the right edge).
    const bool left = r.warmup > 0.6 * last;
    label->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    label->setPadding(QMargins(4, 0, 4, 0));
    label->setText(tr("last online compilation: request %1").arg(r.warmup));
    label->setColor(colour);
  }
  m_plot->xAxis->setRange(0.5, last + 0.5);
  m_plot->yAxis->setRange(0, top > 0 ? top * 1.15 : 1);
  showTickLabels(m_plot);
  placeLegendBeside(m_plot);
  m_plot->replot();
}

}  // namespace pimgui
