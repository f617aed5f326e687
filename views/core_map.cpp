// SPDX-License-Identifier: Apache-2.0
#include "views/core_map.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

#include "engine/target/crossbar/core_statistics.h"
#include "views/color_map_plot.h"
#include "views/elided_label.h"

namespace pimgui {
namespace {

/// The most square grid of `n` cores: columns x rows with columns >= rows and columns x rows == n when n
/// factors, else the smallest square that holds it.
std::pair<int, int> chipGrid(int n) {
  for (int rows = static_cast<int>(std::sqrt(static_cast<double>(n))); rows >= 1; --rows)
    if (n % rows == 0 && n / rows <= 4 * rows) return {n / rows, rows};
  const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n))));
  return {side, side};
}

QString metricTitle(CoreMap::Metric m) {
  switch (m) {
    case CoreMap::Metric::CrossbarUse:
      return QObject::tr("Crossbars used (% of the core's)");
    case CoreMap::Metric::MvmBusy:
      return QObject::tr("MVM busy (% of the run)");
    case CoreMap::Metric::CommunicationVolume:
      return QObject::tr("Communication (KiB sent and received)");
    case CoreMap::Metric::Layers:
      return QObject::tr("Layers on the core (count)");
    case CoreMap::Metric::LocalMemoryPeak:
      return QObject::tr("Local-memory peak (elements)");
    case CoreMap::Metric::SpillTraffic:
      return QObject::tr("Spilled through global memory (KiB stored and loaded)");
  }
  return {};
}

}  // namespace

CoreMap::CoreMap(QWidget* parent) : QWidget(parent) {
  m_metricBox = new QComboBox;
  for (Metric m : {Metric::CrossbarUse, Metric::MvmBusy, Metric::CommunicationVolume, Metric::Layers,
                   Metric::LocalMemoryPeak, Metric::SpillTraffic})
    m_metricBox->addItem(metricTitle(m), static_cast<int>(m));
  m_caption = new ElidedLabel(tr("Compile a network to see its cores"));
  m_caption->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Metric:")));
  bar->addWidget(m_metricBox);
  bar->addWidget(m_caption, 1);

  const ColorMapPlot p = makeColorMapPlot(320, 220);
  m_plot = p.plot;
  m_map = p.map;
  m_scale = p.scale;
  m_plot->installEventFilter(this);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(m_plot, 1);
  connect(m_metricBox, &QComboBox::activated, this,
          [this](int i) { setMetric(static_cast<Metric>(m_metricBox->itemData(i).toInt())); });
  rebuild();
}

void CoreMap::setResult(std::shared_ptr<const pim::NetworkCompileResult> result) {
  m_result = std::move(result);
  rebuild();
}

void CoreMap::setMetric(Metric m) {
  m_metric = m;
  m_metricBox->setCurrentIndex(m_metricBox->findData(static_cast<int>(m)));
  rebuild();
}

void CoreMap::layoutCores() {
  m_cells.clear();
  m_width = m_height = 0;
  if (!m_result) return;
  const pim::crossbar::Accelerator& a = m_result->accelerator;
  const int cores = static_cast<int>(a.cores()), chips = static_cast<int>(std::max<std::int64_t>(1, a.chips));
  const int perChip = cores / chips;
  // One chip: the configured X x Y layout. Several: each chip as square as its cores allow, side by side
  // with an empty column between chips.
  const auto [gx, gy] = chips == 1
                            ? std::pair<int, int>{static_cast<int>(a.coresX), static_cast<int>(a.coresY)}
                            : chipGrid(perChip);
  for (int c = 0; c < cores; ++c) {
    const int chip = c / perChip, local = c % perChip;
    m_cells.push_back({chip * (gx + 1) + local % gx, local / gx});
  }
  m_width = chips * (gx + 1) - 1;
  m_height = gy;
}

int CoreMap::coreAt(int x, int y) const {
  for (std::size_t c = 0; c < m_cells.size(); ++c)
    if (m_cells[c].x == x && m_cells[c].y == y) return static_cast<int>(c);
  return -1;
}

double CoreMap::value(int core) const {
  if (!m_result || core < 0 || core >= static_cast<int>(m_cells.size())) return 0;
  const auto c = static_cast<std::size_t>(core);
  switch (m_metric) {  // the engine's per-core statistics (core_statistics.h), volumes in KiB
    case Metric::CrossbarUse:
      return pim::coreStatistic(*m_result, c, pim::CoreStat::CrossbarUse);
    case Metric::MvmBusy:
      return pim::coreStatistic(*m_result, c, pim::CoreStat::MvmBusy);
    case Metric::CommunicationVolume:
      return pim::coreStatistic(*m_result, c, pim::CoreStat::CommunicationBytes) / 1024.0;
    case Metric::Layers:
      return pim::coreStatistic(*m_result, c, pim::CoreStat::Layers);
    case Metric::LocalMemoryPeak:
      return pim::coreStatistic(*m_result, c, pim::CoreStat::LocalMemoryPeak);
    case Metric::SpillTraffic:
      return pim::coreStatistic(*m_result, c, pim::CoreStat::SpillBytes) / 1024.0;
  }
  return 0;
}

QString CoreMap::tooltip(int core) const {
  if (!m_result || core < 0 || core >= static_cast<int>(m_cells.size())) return {};
  const auto& r = *m_result;
  const auto c = static_cast<std::size_t>(core);
  const int perChip =
      static_cast<int>(r.accelerator.cores() / std::max<std::int64_t>(1, r.accelerator.chips));
  QString text = tr("<b>Core %1</b> (chip %2)<br>%3: %4")
                     .arg(core)
                     .arg(core / perChip)
                     .arg(metricTitle(m_metric))
                     .arg(value(core), 0, 'g', 5);
  if (c < r.coreCrossbars.size())
    text += tr("<br>%1 of %2 crossbars").arg(r.coreCrossbars[c]).arg(r.accelerator.crossbarsPerCore);
  if (c < r.profile.cores.size())
    text += tr("<br>%1 MVMs; time: MVM %2 ns, vector %3 ns, memory %4 ns, sync %5 ns, transfer %6 ns")
                .arg(r.profile.cores[c].counts.mvmul)
                .arg(r.profile.cores[c].mvmNs)
                .arg(r.profile.cores[c].vectorNs)
                .arg(r.profile.cores[c].memoryNs)
                .arg(r.profile.cores[c].commSyncNs)
                .arg(r.profile.cores[c].commTransferNs);
  if (c < r.coreLayers.size())
    text += "<br>" + QString::fromStdString(pim::coreLayersText(r, c, 12, "\n"))
                         .toHtmlEscaped()
                         .replace('\n', QStringLiteral("<br>"));
  return text;
}

void CoreMap::rebuild() {
  layoutCores();
  m_plot->clearItems();
  const bool have = m_result && !m_cells.empty();
  // LL metrics: the peak in every LL run, spills only where local memory is bounded (intended timing).
  const bool localMemory = have && !m_result->coreLocalMemoryPeak.empty();
  const bool spills = have && !m_result->coreSpillBytes.empty();
  if (have && ((m_metric == Metric::LocalMemoryPeak && !localMemory) ||
               (m_metric == Metric::SpillTraffic && !spills)))
    m_metric = Metric::CrossbarUse;
  if (auto* model = qobject_cast<QStandardItemModel*>(m_metricBox->model())) {
    model->item(m_metricBox->findData(static_cast<int>(Metric::LocalMemoryPeak)))->setEnabled(localMemory);
    model->item(m_metricBox->findData(static_cast<int>(Metric::SpillTraffic)))->setEnabled(spills);
  }
  {
    const QSignalBlocker block(m_metricBox);
    m_metricBox->setCurrentIndex(m_metricBox->findData(static_cast<int>(m_metric)));
  }
  m_map->setVisible(have);
  m_scale->setVisible(have);
  m_plot->xAxis->setVisible(have);  // no grid of made-up cores before there is a network
  m_plot->yAxis->setVisible(have);
  if (!have) {
    m_map->data()->setSize(1, 1);
    auto* note = new QCPItemText(m_plot);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.5);
    note->setColor(QColor(110, 110, 110));
    note->setText(tr("Compile a network (Compile) and select a row to see its cores"));
    m_caption->setText(tr("No compiled network selected"));
    m_plot->replot();
    return;
  }
  m_map->data()->setSize(m_width, m_height);
  m_map->data()->setRange(QCPRange(0, m_width - 1), QCPRange(0, m_height - 1));
  m_map->data()->fill(std::nan(""));
  for (std::size_t c = 0; c < m_cells.size(); ++c)
    m_map->data()->setCell(m_cells[c].x, m_cells[c].y, value(static_cast<int>(c)));
  m_map->rescaleDataRange(true);
  m_scale->axis()->setLabel(metricTitle(m_metric));
  const auto& a = m_result->accelerator;
  m_plot->xAxis->setLabel(a.chips == 1 ? tr("Core x")
                                       : tr("Core x (chips left to right, a gap between chips)"));
  m_plot->yAxis->setLabel(tr("Core y"));
  m_plot->xAxis->setRange(-0.5, m_width - 0.5);
  m_plot->yAxis->setRange(-0.5, m_height - 0.5);
  m_caption->setText(tr("%1 on %2, %3: %4 cores, %5 chip(s)")
                         .arg(QString::fromStdString(m_result->network),
                              QString::fromStdString(m_result->backend),
                              QString::fromStdString(m_result->replication))
                         .arg(a.cores())
                         .arg(a.chips));
  m_plot->replot();
}

bool CoreMap::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_plot && event->type() == QEvent::MouseMove && m_result) {
    const auto* e = static_cast<QMouseEvent*>(event);
    const int x = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(e->position().x())));
    const int y = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(e->position().y())));
    const int core = coreAt(x, y);
    if (core >= 0)
      QToolTip::showText(e->globalPosition().toPoint(), tooltip(core), m_plot);
    else
      QToolTip::hideText();
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace pimgui
