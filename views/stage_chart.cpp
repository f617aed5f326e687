// SPDX-License-Identifier: Apache-2.0
#include "views/stage_chart.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

#include "views/elided_label.h"
#include "views/plot_legend.h"

namespace pimgui {
namespace {

/// Stage names on the value axis, top to bottom in order; the bottleneck's marked.
void labelStages(QCustomPlot* plot, const std::vector<pim::StageTiming>& stages, int bottleneck) {
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (std::size_t i = 0; i < stages.size(); ++i) {
    QString name = QString::fromStdString(stages[i].name);
    if (static_cast<int>(i) == bottleneck) name = QObject::tr("▶ %1 (bottleneck)").arg(name);
    ticker->addTick(static_cast<double>(i), name);
  }
  plot->yAxis->setTicker(ticker);
  plot->yAxis->setRange(-1.4, static_cast<double>(stages.size()) - 0.3);  // a row above for the period
  plot->yAxis->setRangeReversed(true);
  plot->yAxis->setTickLabelFont(QFont(plot->font().family(), 8));
  plot->yAxis->setLabel(QString());
}

const QColor kPartColours[] = {QColor(0x3b, 0x52, 0x8b), QColor(0x21, 0x91, 0x8c), QColor(0xe0, 0x8e, 0x0b),
                               QColor(0xc0, 0x39, 0x2b), QColor(0x7b, 0x4f, 0x9d), QColor(0x6b, 0x6b, 0x6b)};

}  // namespace

StageChart::StageChart(QWidget* parent) : QWidget(parent) {
  m_emptyNote = tr("No stages to show");
  m_caption = new ElidedLabel(m_emptyNote);
  m_caption->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_plot = new QCustomPlot;
  m_plot->setMinimumSize(360, 240);
  m_plot->legend->setFont(QFont(m_plot->font().family(), 8));
  placeLegendBelow(m_plot);  // short stages leave room in no fixed corner
  m_plot->legend->setVisible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(m_caption);
  layout->addWidget(m_plot, 1);
  rebuild();
}

void StageChart::setStages(std::shared_ptr<const pim::Evaluation> e, QStringList parts,
                           const QString& caption) {
  m_eval = std::move(e);
  m_parts = std::move(parts);
  m_captionText = caption;
  rebuild();
}

void StageChart::setEmptyNote(const QString& note) {
  m_emptyNote = note;
  rebuild();
}

void StageChart::rebuild() {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_bottleneck = -1;
  m_plot->legend->setVisible(false);
  if (!m_eval || m_eval->stages.empty()) {
    auto* note = new QCPItemText(m_plot);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.5);
    note->setColor(QColor(110, 110, 110));
    note->setText(m_emptyNote);
    m_caption->setText(m_emptyNote);
    m_plot->replot();
    return;
  }
  m_caption->setText(m_captionText);
  if (m_eval->periodCycles)
    drawPeriod();
  else
    drawSpans();
  m_plot->replot();
}

void StageChart::drawPeriod() {
  const pim::Evaluation& e = *m_eval;
  const double usPerCycle = e.tCKns / 1000.0;
  m_bottleneck = pim::bottleneckStage(e.stages);
  double widest = 0;
  QCPBars* below = nullptr;
  for (int part = 0; part < m_parts.size(); ++part) {
    auto* bars = new QCPBars(m_plot->yAxis, m_plot->xAxis);
    bars->setName(m_parts[part]);
    bars->setBrush(kPartColours[static_cast<std::size_t>(part) % std::size(kPartColours)]);
    bars->setPen(Qt::NoPen);
    bars->setWidth(0.7);
    for (std::size_t i = 0; i < e.stages.size(); ++i) {
      const auto& sub = e.stages[i].subCycles;
      bars->addData(static_cast<double>(i),
                    part < static_cast<int>(sub.size()) ? static_cast<double>(sub[part]) * usPerCycle : 0.0);
    }
    if (below) bars->moveAbove(below);
    below = bars;
  }
  if (m_bottleneck >= 0)  // the widest bar is the bottleneck's
    for (const std::int64_t c : e.stages[static_cast<std::size_t>(m_bottleneck)].subCycles)
      widest += static_cast<double>(c) * usPerCycle;
  const double period = static_cast<double>(*e.periodCycles) * usPerCycle;
  auto* line = new QCPItemStraightLine(m_plot);
  line->point1->setCoords(period, 0);
  line->point2->setCoords(period, 1);
  line->setPen(QPen(QColor(80, 80, 80), 1, Qt::DashLine));
  auto* label = new QCPItemText(m_plot);
  label->position->setCoords(period, -1.3);
  label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
  label->setText(tr("period %1 µs ").arg(period, 0, 'f', 1));
  label->setColor(QColor(80, 80, 80));
  labelStages(m_plot, e.stages, m_bottleneck);
  m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  m_plot->xAxis->setLabel(tr("Time on the stage's busiest unit within one period (µs)"));
  m_plot->xAxis->setRange(0, std::max(period, widest) * 1.05);
  m_plot->legend->setVisible(true);
}

void StageChart::drawSpans() {
  const pim::Evaluation& e = *m_eval;
  const double usPerCycle = e.tCKns / 1000.0;
  auto* idle = new QCPBars(m_plot->yAxis, m_plot->xAxis);
  idle->setName(tr("Idle before its first instruction"));
  idle->setBrush(Qt::NoBrush);
  idle->setPen(Qt::NoPen);
  auto* busy = new QCPBars(m_plot->yAxis, m_plot->xAxis);
  busy->setName(tr("From first start to last finish"));
  busy->setBrush(kPartColours[0]);
  busy->setPen(Qt::NoPen);
  idle->setWidth(0.7);
  busy->setWidth(0.7);
  for (std::size_t i = 0; i < e.stages.size(); ++i) {
    const pim::StageTiming& s = e.stages[i];
    const double start = s.startCycles < 0 ? 0 : static_cast<double>(s.startCycles) * usPerCycle;
    const double finish = s.finishCycles < 0 ? start : static_cast<double>(s.finishCycles) * usPerCycle;
    idle->addData(static_cast<double>(i), start);
    busy->addData(static_cast<double>(i), finish - start);
  }
  busy->moveAbove(idle);
  idle->removeFromLegend();
  m_plot->legend->setVisible(true);
  labelStages(m_plot, e.stages, -1);
  m_plot->xAxis->setLabel(tr("Time since the run started (µs)"));
  m_plot->xAxis->setRange(0, e.timeNs / 1000.0 * 1.05);
}

}  // namespace pimgui
