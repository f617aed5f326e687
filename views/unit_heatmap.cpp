// SPDX-License-Identifier: Apache-2.0
#include "views/unit_heatmap.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>

#include "engine/core/problem.h"
#include "engine/target/registry.h"
#include "views/color_map_plot.h"
#include "views/draft_analysis.h"
#include "views/elided_label.h"

namespace pimgui {
namespace {

QString capitalised(const std::string& s) {
  QString q = QString::fromStdString(s);
  if (!q.isEmpty()) q[0] = q[0].toUpper();
  return q;
}

/// A statistic's colour-scale title: "Busy cycles (cycles)", "Activations (count)".
QString statTitle(const pim::StatDecl& s) {
  return QStringLiteral("%1 (%2)").arg(capitalised(s.label), QString::fromStdString(s.unit));
}

}  // namespace

UnitHeatmap::UnitHeatmap(QWidget* parent) : QWidget(parent) {
  m_metricBox = new QComboBox;
  m_metricBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  // A long caption gives way (ending in "…", its tooltip keeps it whole) rather than squeezing the metric
  // menu; a plain QLabel was cut at its start at 1280 px ("raft 4665520 on ...").
  m_caption = new ElidedLabel(tr("Select a draft"));
  m_caption->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  m_caption->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Metric:")));
  bar->addWidget(m_metricBox);
  bar->addWidget(m_caption, 1);

  const ColorMapPlot p = makeColorMapPlot(320, 200);
  m_plot = p.plot;
  m_map = p.map;
  m_scale = p.scale;
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  m_plot->installEventFilter(this);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addLayout(bar);
  layout->addWidget(m_plot, 1);
  connect(m_metricBox, &QComboBox::activated, this,
          [this](int i) { setMetric(m_metricBox->itemData(i).toString().toStdString()); });
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { rebuild(); });
  rebuild();
}

void UnitHeatmap::setAnalysis(std::shared_ptr<const DraftAnalysis> analysis) {
  m_analysis = std::move(analysis);
  rebuild();
}

void UnitHeatmap::setMetric(const std::string& key) {
  m_metric = key;
  rebuild();
}

void UnitHeatmap::rebuildChoices() {
  m_choices.clear();
  if (m_analysis && m_analysis->layout) {
    m_choices.push_back({kPlacedBytes, tr("Placed data (KiB)")});
    m_choices.push_back({kTile, tr("Tile (global core id, -1 unused)")});
    m_choices.push_back({kPadding, tr("Padding (KiB)")});
  }
  for (const pim::StatDecl& s : m_stats) m_choices.push_back({s.key, statTitle(s)});
  const QSignalBlocker block(m_metricBox);
  m_metricBox->clear();
  for (const MetricChoice& c : m_choices) m_metricBox->addItem(c.title, QString::fromStdString(c.key));
  m_metricBox->setCurrentIndex(m_metricBox->findData(QString::fromStdString(m_metric)));
}

QString UnitHeatmap::metricTitle() const {
  for (const MetricChoice& c : m_choices)
    if (c.key == m_metric) return c.title;
  return {};
}

std::vector<double> UnitHeatmap::values() const {
  std::vector<double> v(static_cast<std::size_t>(std::max(0, m_geometry.units())), 0.0);
  if (!m_analysis) return v;
  const int inner = m_geometry.innerCount;
  if (m_analysis->layout && (m_metric == kPlacedBytes || m_metric == kTile || m_metric == kPadding)) {
    const int coresPerGroup = m_analysis->mapping ? m_analysis->mapping->coresPerGroup : 1;
    for (const pim::BankPlacement& b : m_analysis->layout->banks) {
      const std::size_t i = static_cast<std::size_t>(b.pseudoChannel * inner + b.bank);
      if (b.bank >= inner || i >= v.size()) continue;
      if (m_metric == kPlacedBytes) v[i] = b.bytes / 1024.0;
      if (m_metric == kPadding) v[i] = b.paddingBytes / 1024.0;
      if (m_metric == kTile) v[i] = b.core < 0 ? -1 : b.group * coresPerGroup + b.core;
    }
    return v;
  }
  if (!m_analysis->evaluation) return v;
  const pim::UnitStatistics& stats = m_analysis->evaluation->unitStats;
  for (std::size_t s = 0; s < m_stats.size() && s < stats.statCount; ++s) {
    if (m_stats[s].key != m_metric) continue;
    for (std::size_t u = 0; u < stats.units() && u < v.size(); ++u) v[u] = stats.at(u, s);
  }
  return v;
}

double UnitHeatmap::cellValue(int outer, int inner) const {
  if (outer < 0 || inner < 0 || inner >= m_geometry.innerCount) return 0.0;
  const std::size_t i = static_cast<std::size_t>(outer * m_geometry.innerCount + inner);
  return i < m_values.size() ? m_values[i] : 0.0;
}

QString UnitHeatmap::cellTooltip(int outer, int inner) const {
  const pim::UnitGeometry& g = m_geometry;
  if (!m_analysis || outer < 0 || inner < 0 || outer >= g.outerCount || inner >= g.innerCount) return {};
  QString text = tr("<b>%1 %2, %3 %4</b><br>")
                     .arg(capitalised(g.outerName))
                     .arg(outer)
                     .arg(QString::fromStdString(g.innerName))
                     .arg(inner);
  QStringList bands;
  for (const pim::UnitGeometry::Band& b : g.bands)
    if (b.width > 1)
      bands << QStringLiteral("%1 %2").arg(QString::fromStdString(b.name)).arg(outer / b.width);
  if (!bands.isEmpty()) text += bands.join(QStringLiteral(", ")) + QStringLiteral("<br>");
  text += tr("%1: %2").arg(metricTitle()).arg(cellValue(outer, inner), 0, 'g', 6);
  if (m_analysis->evaluation) {  // what the family says the unit holds or covers
    const auto& notes = m_analysis->evaluation->unitStats.notes;
    const auto u = static_cast<std::size_t>(outer) * static_cast<std::size_t>(g.innerCount) +
                   static_cast<std::size_t>(inner);
    if (u < notes.size() && !notes[u].empty())
      text += QStringLiteral("<br>") + QString::fromStdString(notes[u]).toHtmlEscaped();
  }
  if (!m_analysis->layout) return text;
  const pim::BankPlacement& b = m_analysis->layout->at(outer, inner);
  if (b.core < 0) return text + tr("<br>unused by this draft");
  text += tr("<br>core %1 of group %2<br>placed %3 B, padding %4 B, %5 rows")
              .arg(b.core)
              .arg(b.group)
              .arg(b.bytes)
              .arg(b.paddingBytes)
              .arg(b.rowsTouched);
  const pim::Kernel& k = m_analysis->problem->kernel();
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

void UnitHeatmap::drawBands() {
  const pim::UnitGeometry& g = m_geometry;
  const QString outer = capitalised(g.outerName);
  // The finest band with few enough lines to leave the cells visible; past the coarsest, every k-th line.
  constexpr int kMaxLines = 40;
  const pim::UnitGeometry::Band* band = nullptr;
  for (const pim::UnitGeometry::Band& b : g.bands) {
    if (b.width < 1 || g.outerCount / b.width < 2) continue;
    band = &b;
    if (g.outerCount / b.width <= kMaxLines) break;
  }
  if (!band) {
    m_plot->xAxis->setLabel(outer);
    return;
  }
  const int count = g.outerCount / band->width;
  const int every = std::max(1, (count + kMaxLines - 1) / kMaxLines);
  for (int i = every; i < count; i += every) {
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(i * band->width - 0.5, 0);
    line->point2->setCoords(i * band->width - 0.5, 1);
    line->setPen(QPen(QColor(230, 30, 30, 170), 1));
  }
  const QString name = QString::fromStdString(band->name);
  QString label = tr("%1 (%2 per %3").arg(outer).arg(band->width).arg(name);
  if (!g.bands.empty() && &g.bands.front() != band && g.bands.front().width > 1)
    label += tr(", %1 per %2").arg(g.bands.front().width).arg(QString::fromStdString(g.bands.front().name));
  label +=
      every == 1 ? tr("; lines separate %1s)").arg(name) : tr("; a line every %1 %2s)").arg(every).arg(name);
  m_plot->xAxis->setLabel(label);
}

void UnitHeatmap::rebuild() {
  // An evaluation without per-unit statistics (a conv mapping whose trace would walk too long) has nothing
  // to draw: the empty state says why, rather than a map of zeros.
  const bool have =
      m_analysis && m_analysis->problem &&
      (m_analysis->layout || (m_analysis->evaluation && !m_analysis->evaluation->unitStats.empty()));
  m_geometry = {};
  m_stats.clear();
  if (have) {
    const pim::Backend& b = m_analysis->problem->backend();
    const pim::ITarget& target = pim::targetOf(b);
    m_geometry = target.geometry(b);
    m_stats = target.statistics();
  }
  rebuildChoices();
  if (have && !m_choices.empty() && metricTitle().isEmpty()) m_metric = m_choices.front().key;
  if (m_metricBox->currentIndex() < 0 && !m_choices.empty())
    m_metricBox->setCurrentIndex(m_metricBox->findData(QString::fromStdString(m_metric)));
  m_values = values();
  m_plot->clearItems();
  const pim::UnitGeometry& g = m_geometry;
  m_map->setVisible(have && g.units() > 0);
  m_scale->setVisible(m_map->visible());
  if (!m_map->visible()) {
    // An empty state, not a one-cell map in the colour of zero that reads as "every unit idle".
    m_map->data()->setSize(1, 1);
    m_map->data()->setCell(0, 0, 0);
    m_caption->setText(
        m_analysis && !m_analysis->error.empty()
            ? tr("Draft %1: %2").arg(m_analysis->draft.id).arg(QString::fromStdString(m_analysis->error))
            : tr("Select a draft"));
    auto* note = new QCPItemText(m_plot);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.5);
    note->setColor(QColor(110, 110, 110));
    note->setText(
        m_analysis && !m_analysis->error.empty()
            ? tr("No statistics unit by unit for this draft: the caption above says why")
            : tr("No draft selected: select one in the table or the Pareto plot\nto see its data and "
                 "statistics unit by unit"));
    m_plot->xAxis->setLabel({});
    m_plot->yAxis->setLabel({});
    m_plot->replot();
    return;
  }
  m_map->data()->setSize(g.outerCount, g.innerCount);
  m_map->data()->setRange(QCPRange(0, g.outerCount - 1), QCPRange(0, g.innerCount - 1));
  for (int o = 0; o < g.outerCount; ++o)
    for (int i = 0; i < g.innerCount; ++i) m_map->data()->setCell(o, i, cellValue(o, i));
  // From the values themselves: QCustomPlot's rescale keeps the previous range when every cell is equal.
  // Quantities start at zero, so a 2% imbalance does not look like full against empty.
  const auto [lo, hi] = std::minmax_element(m_values.begin(), m_values.end());
  double lower = lo == m_values.end() ? 0.0 : *lo, upper = hi == m_values.end() ? 1.0 : *hi;
  if (m_metric != kTile) lower = std::min(0.0, lower);
  if (!(upper > lower)) upper = lower + 1.0;
  m_map->setDataRange(QCPRange(lower, upper));
  m_scale->axis()->setLabel(metricTitle());
  drawBands();
  m_plot->yAxis->setLabel(capitalised(g.innerName));
  m_plot->xAxis->setRange(-0.5, g.outerCount - 0.5);
  m_plot->yAxis->setRange(-0.5, g.innerCount - 0.5);
  const QString units = QString::fromStdString(g.innerName) + QStringLiteral("s");
  QString caption = tr("Draft %1 on %2")
                        .arg(m_analysis->draft.id)
                        .arg(QString::fromStdString(m_analysis->problem->backend().name));
  if (m_analysis->layout)
    caption += tr(": %1 %2 used, %3 KiB placed, %4 KiB padding")
                   .arg(m_analysis->layout->banksUsed)
                   .arg(units)
                   .arg(m_analysis->layout->placedBytes / 1024)
                   .arg(m_analysis->layout->paddingBytes / 1024);
  else if (m_analysis->evaluation)
    caption += tr(": %1 %2 used").arg(m_analysis->evaluation->unitsUsed).arg(units);
  m_caption->setText(caption);
  m_caption->setToolTip(caption);
  m_plot->replot();
}

bool UnitHeatmap::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_plot && event->type() == QEvent::MouseMove && m_geometry.units() > 0) {
    auto* me = static_cast<QMouseEvent*>(event);
    const int o = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(me->pos().x())));
    const int i = static_cast<int>(std::lround(m_plot->yAxis->pixelToCoord(me->pos().y())));
    const QString tip = cellTooltip(o, i);
    if (tip.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(me->globalPosition().toPoint(), tip, m_plot);
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace pimgui
