// SPDX-License-Identifier: Apache-2.0
#include "views/layer_pipeline_chart.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "views/elided_label.h"

namespace pimgui {
namespace {

/// Layer names on the value axis, top to bottom in node order; the bottleneck's in bold red.
void labelLayers(QCustomPlot* plot, const pim::NetworkCompileResult& r, int bottleneck) {
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    QString name = QString::fromStdString(r.layers[i].name);
    if (static_cast<int>(i) == bottleneck) name = QObject::tr("▶ %1 (bottleneck)").arg(name);
    ticker->addTick(static_cast<double>(i), name);
  }
  plot->yAxis->setTicker(ticker);
  plot->yAxis->setRange(-1.4, static_cast<double>(r.layers.size()) - 0.3);  // a row above for the period
  plot->yAxis->setRangeReversed(true);
  plot->yAxis->setTickLabelFont(QFont(plot->font().family(), 8));
  plot->yAxis->setLabel(QString());
}

}  // namespace

LayerPipelineChart::LayerPipelineChart(QWidget* parent) : QWidget(parent) {
  m_caption = new ElidedLabel(tr("Compile a network to see its layer pipeline"));
  m_caption->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_plot = new QCustomPlot;
  m_plot->setMinimumSize(360, 240);
  m_plot->legend->setVisible(false);
  m_plot->legend->setFont(QFont(m_plot->font().family(), 8));
  m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(m_caption);
  layout->addWidget(m_plot, 1);
  rebuild();
}

void LayerPipelineChart::setResult(std::shared_ptr<const pim::NetworkCompileResult> result) {
  m_result = std::move(result);
  rebuild();
}

void LayerPipelineChart::rebuild() {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_bottleneck = -1;
  m_plot->legend->setVisible(false);
  if (!m_result || m_result->layers.empty()) {
    auto* note = new QCPItemText(m_plot);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.5);
    note->setColor(QColor(110, 110, 110));
    note->setText(tr("Compile a network (Compile) and select a row to see its layers"));
    m_caption->setText(tr("No compiled network selected"));
    m_plot->replot();
    return;
  }
  if (m_result->periodNs)
    drawHt();
  else
    drawLl();
  m_plot->replot();
}

void LayerPipelineChart::drawHt() {
  const pim::NetworkCompileResult& r = *m_result;
  m_bottleneck = pim::bottleneckLayer(r);
  const std::int64_t worst = pim::busiestCoreNs(r.layers[static_cast<std::size_t>(m_bottleneck)].time);
  struct Part {
    QString name;
    QColor colour;
    std::int64_t pim::xbar::NodeProfile::*ns;
  };
  const Part parts[] = {
      {tr("MVM"), QColor(0x3b, 0x52, 0x8b), &pim::xbar::NodeProfile::busiestMvmNs},
      {tr("Vector"), QColor(0x21, 0x91, 0x8c), &pim::xbar::NodeProfile::busiestVectorNs},
      {tr("Memory"), QColor(0xe0, 0x8e, 0x0b), &pim::xbar::NodeProfile::busiestMemoryNs},
      {tr("Communication"), QColor(0xc0, 0x39, 0x2b), &pim::xbar::NodeProfile::busiestCommNs}};
  QCPBars* below = nullptr;
  for (const Part& part : parts) {
    auto* bars = new QCPBars(m_plot->yAxis, m_plot->xAxis);
    bars->setName(part.name);
    bars->setBrush(part.colour);
    bars->setPen(Qt::NoPen);
    bars->setWidth(0.7);
    for (std::size_t i = 0; i < r.layers.size(); ++i)
      bars->addData(static_cast<double>(i), static_cast<double>(r.layers[i].time.*part.ns) / 1000.0);
    if (below) bars->moveAbove(below);
    below = bars;
  }
  auto* period = new QCPItemStraightLine(m_plot);
  period->point1->setCoords(*r.periodNs / 1000.0, 0);
  period->point2->setCoords(*r.periodNs / 1000.0, 1);
  period->setPen(QPen(QColor(80, 80, 80), 1, Qt::DashLine));
  auto* label = new QCPItemText(m_plot);
  label->position->setCoords(*r.periodNs / 1000.0, -1.3);
  label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  label->setText(tr("period %1 µs ").arg(*r.periodNs / 1000.0, 0, 'f', 1));
  label->setColor(QColor(80, 80, 80));
  labelLayers(m_plot, r, m_bottleneck);
  m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  m_plot->xAxis->setLabel(tr("Time on the layer's busiest core within one period (µs)"));
  m_plot->xAxis->setRange(0, std::max(*r.periodNs, static_cast<double>(worst)) / 1000.0 * 1.05);
  m_plot->legend->setVisible(true);
  m_caption->setText(tr("%1 on %2 (HT, %3): each layer's time on its busiest core; the bottleneck bounds the "
                        "period")
                         .arg(QString::fromStdString(r.network), QString::fromStdString(r.backend),
                              QString::fromStdString(r.replication)));
}

void LayerPipelineChart::drawLl() {
  const pim::NetworkCompileResult& r = *m_result;
  auto* spans = new QCPBars(m_plot->yAxis, m_plot->xAxis);
  spans->setName(tr("Idle before its first instruction"));
  spans->setBrush(Qt::NoBrush);
  spans->setPen(Qt::NoPen);
  auto* busy = new QCPBars(m_plot->yAxis, m_plot->xAxis);
  busy->setName(tr("From first start to last finish"));
  busy->setBrush(QColor(0x3b, 0x52, 0x8b));
  busy->setPen(Qt::NoPen);
  spans->setWidth(0.7);
  busy->setWidth(0.7);
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    const auto& t = r.layers[i].time;
    const double start = t.firstStartNs < 0 ? 0 : static_cast<double>(t.firstStartNs) / 1000.0;
    const double finish = t.lastFinishNs < 0 ? start : static_cast<double>(t.lastFinishNs) / 1000.0;
    spans->addData(static_cast<double>(i), start);
    busy->addData(static_cast<double>(i), finish - start);
  }
  busy->moveAbove(spans);
  spans->removeFromLegend();
  m_plot->legend->setVisible(true);
  labelLayers(m_plot, r, -1);
  m_plot->xAxis->setLabel(tr("Time since the inference started (µs)"));
  m_plot->xAxis->setRange(0, r.latencyNs.value_or(0) / 1000.0 * 1.05);
  m_caption->setText(tr("%1 on %2 (LL, %3): each layer from its first instruction to its last; latency %4 µs")
                         .arg(QString::fromStdString(r.network), QString::fromStdString(r.backend),
                              QString::fromStdString(r.replication))
                         .arg(r.latencyNs.value_or(0) / 1000.0, 0, 'f', 1));
}

}  // namespace pimgui
