// SPDX-License-Identifier: Apache-2.0
#include "views/bank_heatmap.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>

#include "engine/core/problem.h"
#include "views/draft_analysis.h"

namespace pimgui {

const char* BankHeatmap::metricTitle(Metric m) {
  switch (m) {
    case ResidentBytes:
      return "Resident data (KiB)";
    case TileId:
      return "Tile (global core id, -1 unused)";
    case BusyCycles:
      return "Busy cycles (row open)";
    case Activations:
      return "Row activations";
    case Energy:
      return "Energy (nJ)";
    case Padding:
      return "Padding (KiB)";
    default:
      return "";
  }
}

BankHeatmap::BankHeatmap(QWidget* parent) : QWidget(parent) {
  m_metricBox = new QComboBox;
  for (int m = 0; m < MetricCount; ++m) m_metricBox->addItem(QString::fromUtf8(metricTitle(Metric(m))), m);
  m_caption = new QLabel(tr("Select a draft"));
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Metric:")));
  bar->addWidget(m_metricBox);
  bar->addStretch();
  bar->addWidget(m_caption);

  m_plot = new QCustomPlot;
  m_plot->setMinimumSize(320, 200);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  m_map->setInterpolate(false);
  m_scale = new QCPColorScale(m_plot);
  m_plot->plotLayout()->addElement(0, 1, m_scale);
  m_scale->setType(QCPAxis::atRight);
  m_map->setColorScale(m_scale);
  // Viridis: perceptually uniform and never white, so full banks stay visible on the white background
  // (QCustomPlot 2.1 has no built-in viridis).
  QCPColorGradient viridis;
  viridis.setColorStopAt(0.0, QColor(0x44, 0x01, 0x54));
  viridis.setColorStopAt(0.25, QColor(0x3b, 0x52, 0x8b));
  viridis.setColorStopAt(0.5, QColor(0x21, 0x91, 0x8c));
  viridis.setColorStopAt(0.75, QColor(0x5e, 0xc9, 0x62));
  viridis.setColorStopAt(1.0, QColor(0xfd, 0xe7, 0x25));
  m_map->setGradient(viridis);
  auto* group = new QCPMarginGroup(m_plot);
  m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  m_plot->yAxis->setRangeReversed(true);  // bank 0 at the top, like a memory map
  m_plot->installEventFilter(this);
  m_plot->setMouseTracking(true);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(m_plot, 1);
  connect(m_metricBox, &QComboBox::currentIndexChanged, this, [this](int i) { setMetric(Metric(i)); });
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { rebuild(); });
  rebuild();
}

void BankHeatmap::setAnalysis(std::shared_ptr<const DraftAnalysis> analysis) {
  m_analysis = std::move(analysis);
  rebuild();
}

void BankHeatmap::setMetric(Metric m) {
  m_metric = m;
  if (m_metricBox->currentIndex() != m) m_metricBox->setCurrentIndex(m);
  rebuild();
}

std::vector<double> BankHeatmap::values(Metric m) const {
  std::vector<double> v(static_cast<std::size_t>(m_channels * m_banks), 0.0);
  if (!m_analysis || !m_analysis->layout) return v;
  const pim::BankLayout& layout = *m_analysis->layout;
  const int coresPerGroup = m_analysis->mapping ? m_analysis->mapping->coresPerGroup : 1;
  if (m == ResidentBytes || m == TileId || m == Padding) {
    for (const pim::BankPlacement& b : layout.banks) {
      const std::size_t i = static_cast<std::size_t>(b.channel * m_banks + b.bank);
      if (i >= v.size()) continue;
      if (m == ResidentBytes) v[i] = b.bytes / 1024.0;
      if (m == Padding) v[i] = b.paddingBytes / 1024.0;
      if (m == TileId) v[i] = b.core < 0 ? -1 : b.group * coresPerGroup + b.core;
    }
    return v;
  }
  if (!m_analysis->evaluation) return v;
  // The simulator's channel is a PIM group whose flat bank id runs over the group's pseudo-channels; the
  // layout's channel is a pseudo-channel. Map one onto the other.
  const int p = m_analysis->problem ? m_analysis->problem->backend().group.pseudoChannelsPerGroup : 1;
  for (const auto& s : m_analysis->evaluation->banks) {
    const int channel = s.channel * p + s.bank / m_banks;
    const int bank = s.bank % m_banks;
    const std::size_t i = static_cast<std::size_t>(channel * m_banks + bank);
    if (channel >= m_channels || i >= v.size()) continue;
    if (m == BusyCycles) v[i] = static_cast<double>(s.busyCycles);
    if (m == Activations) v[i] = static_cast<double>(s.activations);
    if (m == Energy) v[i] = s.energy_pJ / 1e3;
  }
  return v;
}

double BankHeatmap::cellValue(int channel, int bank) const {
  const std::size_t i = static_cast<std::size_t>(channel * m_banks + bank);
  return i < m_values.size() ? m_values[i] : 0.0;
}

QString BankHeatmap::cellTooltip(int channel, int bank) const {
  if (!m_analysis || !m_analysis->layout || channel < 0 || bank < 0 || channel >= m_channels ||
      bank >= m_banks)
    return {};
  const pim::BankPlacement& b = m_analysis->layout->at(channel, bank);
  const pim::Kernel& k = m_analysis->problem->kernel();
  QString text = tr("<b>Pseudo-channel %1, bank %2</b><br>").arg(channel).arg(bank);
  if (b.core < 0) return text + tr("unused by this draft");
  text += tr("PIM group %1, core %2<br>%3: %4<br>resident %5 B, padding %6 B, %7 rows")
              .arg(b.group)
              .arg(b.core)
              .arg(QString::fromUtf8(metricTitle(m_metric)))
              .arg(cellValue(channel, bank), 0, 'g', 6)
              .arg(b.bytes)
              .arg(b.paddingBytes)
              .arg(b.rowsTouched);
  for (const pim::TensorSlice& s : b.slices) {
    QString axes;
    for (const auto& a : s.axes) axes += QString::fromStdString(a.str()).toHtmlEscaped() + QLatin1Char(' ');
    const QString name = s.tensor >= 0 && s.tensor < static_cast<int>(k.tensors.size())
                             ? QString::fromStdString(k.tensors[static_cast<std::size_t>(s.tensor)].name)
                             : QStringLiteral("?");
    text += tr("<br>%1 %2(%3 B)").arg(name, axes).arg(s.bytes);
  }
  return text;
}

void BankHeatmap::rebuild() {
  const bool have = m_analysis && m_analysis->layout;
  m_channels = have ? m_analysis->layout->channels : 0;
  m_banks = have ? m_analysis->layout->banksPerChannel : 0;
  m_values = values(m_metric);
  m_plot->clearItems();
  if (!have) {
    m_map->data()->setSize(1, 1);
    m_map->data()->setCell(0, 0, 0);
    m_caption->setText(
        m_analysis && !m_analysis->error.empty()
            ? tr("Draft %1: %2").arg(m_analysis->draft.id).arg(QString::fromStdString(m_analysis->error))
            : tr("Select a draft"));
    m_plot->replot();
    return;
  }
  m_map->data()->setSize(m_channels, m_banks);
  m_map->data()->setRange(QCPRange(0, m_channels - 1), QCPRange(0, m_banks - 1));
  for (int c = 0; c < m_channels; ++c)
    for (int b = 0; b < m_banks; ++b) m_map->data()->setCell(c, b, cellValue(c, b));
  m_map->rescaleDataRange(true);
  if (m_metric != TileId) {
    // Quantities start at zero: a 2% imbalance should not look like full against empty.
    QCPRange r = m_map->dataRange();
    m_map->setDataRange(QCPRange(std::min(0.0, r.lower), r.upper > 0 ? r.upper : 1.0));
  }
  m_scale->axis()->setLabel(QString::fromUtf8(metricTitle(m_metric)));

  const pim::Backend& backend = m_analysis->problem->backend();
  const int p = std::max(1, backend.group.pseudoChannelsPerGroup);
  const int groups = m_channels / p;
  // Group separators: with many groups, a line per group would hide the cells, so thin them out.
  const int every = groups > 40 ? backend.group.groupsPerDevice : 1;
  for (int g = every; g < groups; g += every) {
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(g * p - 0.5, 0);
    line->point2->setCoords(g * p - 0.5, 1);
    line->setPen(QPen(QColor(230, 30, 30, every > 1 ? 230 : 150), every > 1 ? 2 : 1));
  }
  m_plot->xAxis->setLabel(every > 1 ? tr("Pseudo-channel (%1 per PIM group; lines separate devices)").arg(p)
                                    : tr("Pseudo-channel (%1 per PIM group; lines separate groups)").arg(p));
  m_plot->yAxis->setLabel(tr("Bank"));
  m_plot->xAxis->setRange(-0.5, m_channels - 0.5);
  m_plot->yAxis->setRange(-0.5, m_banks - 0.5);
  const pim::BankLayout& layout = *m_analysis->layout;
  m_caption->setText(tr("Draft %1 on %2: %3 banks used, %4 KiB resident, %5 KiB padding")
                         .arg(m_analysis->draft.id)
                         .arg(QString::fromStdString(backend.name))
                         .arg(layout.banksUsed)
                         .arg(layout.residentBytes / 1024)
                         .arg(layout.paddingBytes / 1024));
  m_plot->replot();
}

bool BankHeatmap::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_plot && event->type() == QEvent::MouseMove && m_channels > 0) {
    auto* me = static_cast<QMouseEvent*>(event);
    const int c = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(me->pos().x())));
    const int b = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(me->pos().y())));
    const QString tip = cellTooltip(c, b);
    if (tip.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(me->globalPosition().toPoint(), tip, m_plot);
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace pimgui
