// SPDX-License-Identifier: Apache-2.0
#include "views/breakdown_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QStackedBarSeries>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>

namespace pimgui {
namespace {

/// The fixed phases keep their colours across every family; a family's sub-phases take shades of their
/// phase's colour (the first the colour itself, then lighter and darker ones, then a turned hue: a fourth
/// shade lighter still read as white on orange), so a stack reads by phase.
QColor colourOf(const QString& category, int phase, int indexInPhase) {
  static const QStringList fixed = {"Input rearrangement", "Compute", "Output rearrangement",
                                    "GPU only (host)"};
  static const QColor fixedColours[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b),
                                        QColor(0x59, 0xa1, 0x4f), QColor(0x9c, 0x75, 0x5f)};
  if (const qsizetype f = fixed.indexOf(category); f >= 0) return fixedColours[f];
  const QColor base = fixedColours[std::clamp(phase, 0, 2)];
  static const int shades[] = {100, 150, 60, 0, 40};  // QColor::lighter factors; < 100 darkens; 0 turns
  const int shade = shades[static_cast<std::size_t>(indexInPhase) % std::size(shades)];
  if (shade == 0) {
    const QColor hsv = base.toHsv();
    return QColor::fromHsv((hsv.hue() + 330) % 360, hsv.saturation(), hsv.value() * 4 / 5);
  }
  return shade >= 100 ? base.lighter(shade) : base.darker(10000 / shade);
}

}  // namespace

double BreakdownBar::total() const {
  if (totalOnly) return totalNs;
  double t = 0;
  for (const Segment& s : segments) t += s.ns;
  return t;
}

double BreakdownBar::ns(const QString& category) const {
  double t = 0;
  for (const Segment& s : segments)
    if (s.category == category) t += s.ns;
  return t;
}

BreakdownBar breakdownBar(const QString& label, const pim::ITarget& target, const pim::Evaluation& e,
                          double nsPerCycle) {
  BreakdownBar b;
  b.label = label;
  for (const pim::TimeSegment& s : pim::timeBreakdown(target, e, nsPerCycle))
    b.segments.push_back({QString::fromStdString(s.label), s.ns, s.phase});
  return b;
}

BreakdownChart::BreakdownChart(QWidget* parent) : QWidget(parent), m_chart(new QChart), m_view(nullptr) {
  m_chart->setAnimationOptions(QChart::NoAnimation);  // live updates arrive every 50 ms
  m_chart->legend()->setAlignment(Qt::AlignBottom);
  m_chart->setMargins(QMargins(4, 4, 4, 4));
  m_view = new QChartView(m_chart, this);
  m_view->setRenderHint(QPainter::Antialiasing);
  // Title, three value labels, bar labels and the legend: below this the axes turn to "…".
  m_view->setMinimumHeight(200);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_view);
  connect(m_chart, &QChart::plotAreaChanged, this, [this] {
    fitTicks();
    placeAnnotations();
  });
  setBars({}, std::nullopt);
}

QString BreakdownChart::speedupText(int i) const {
  if (!m_reference || i < 0 || i >= static_cast<int>(m_bars.size())) return {};
  const double ref = m_bars[static_cast<std::size_t>(*m_reference)].total();
  const double t = m_bars[static_cast<std::size_t>(i)].total();
  if (ref <= 0 || t <= 0) return {};
  return QString::number(ref / t, 'f', 2) + QStringLiteral("×");
}

void BreakdownChart::setBars(std::vector<BreakdownBar> bars, std::optional<int> reference) {
  m_bars = std::move(bars);
  m_reference = reference;
  m_chart->removeAllSeries();
  for (QAbstractAxis* a : m_chart->axes()) {
    m_chart->removeAxis(a);
    delete a;
  }
  for (auto* item : m_annotations) delete item;
  m_annotations.clear();

  // One set per category, stacked in phase order (within a phase, in the order the bars first name them), so
  // one family's sub-phases sit where another's whole phase does; the GPU-only set last.
  std::vector<std::pair<int, QString>> ordered;
  for (const BreakdownBar& b : m_bars)
    for (const BreakdownBar::Segment& s : b.segments)
      if (std::find(ordered.begin(), ordered.end(), std::pair{s.phase, s.category}) == ordered.end())
        ordered.emplace_back(s.phase, s.category);
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (ordered.empty()) ordered = {{0, "Input rearrangement"}, {1, "Compute"}, {2, "Output rearrangement"}};
  ordered.emplace_back(3, QStringLiteral("GPU only (host)"));
  QStringList names;
  for (const auto& [phase, name] : ordered) names << name;
  auto* series = new QStackedBarSeries;
  std::vector<QBarSet*> sets;
  for (int s = 0; s < names.size(); ++s) {
    sets.push_back(new QBarSet(names[s]));
    int indexInPhase = 0;
    for (int before = 0; before < s; ++before) indexInPhase += ordered[before].first == ordered[s].first;
    const QColor colour = colourOf(names[s], ordered[s].first, indexInPhase);
    sets.back()->setColor(colour);
    sets.back()->setBorderColor(colour.darker(130));
  }
  QStringList categories;
  double top = 0;
  for (const BreakdownBar& b : m_bars) {
    for (int s = 0; s + 1 < names.size(); ++s)
      sets[static_cast<std::size_t>(s)]->append(b.ns(names[s]) / 1e3);
    sets.back()->append(b.totalOnly ? b.totalNs / 1e3 : 0);
    categories << b.label;
    top = std::max(top, b.total() / 1e3);
  }
  for (QBarSet* s : sets) series->append(s);
  series->setBarWidth(0.6);
  m_chart->addSeries(series);
  // A category no bar has (a phase a family never spends time in) stays out of the legend, which elides
  // every name when crowded.
  const auto markers = m_chart->legend()->markers(series);
  for (int s = 0; s < static_cast<int>(sets.size()) && s < markers.size(); ++s)
    markers[s]->setVisible(sets[static_cast<std::size_t>(s)]->sum() > 0 || m_bars.empty());

  auto* x = new QBarCategoryAxis;
  x->append(categories.isEmpty() ? QStringList{QStringLiteral(" ")} : categories);
  auto* y = new QValueAxis;
  y->setTitleText(QStringLiteral("Time (µs)"));
  m_top = top;
  y->setRange(0, top > 0 ? top * 1.18 : 1.0);  // headroom for the speed-up labels
  y->applyNiceNumbers();
  y->setLabelFormat(QStringLiteral("%.0f"));
  if (top < 10) y->setLabelFormat(QStringLiteral("%.2f"));  // an empty chart too: not "0 0 0 1 1 1"
  m_chart->addAxis(x, Qt::AlignBottom);
  m_chart->addAxis(y, Qt::AlignLeft);
  series->attachAxis(x);
  series->attachAxis(y);
  m_chart->setTitle(m_bars.empty() ? QStringLiteral("Time breakdown: no evaluated drafts yet")
                    : m_reference
                        ? QStringLiteral("Time breakdown (speed-up over %1)").arg(m_bars[*m_reference].label)
                        : QStringLiteral("Time breakdown"));

  QFont bold = font();
  bold.setBold(true);
  for (int i = 0; i < static_cast<int>(m_bars.size()); ++i) {
    auto* item = new QGraphicsSimpleTextItem(speedupText(i), m_chart);
    item->setFont(bold);
    m_annotations.push_back(item);
  }
  fitTicks();
  placeAnnotations();
}

void BreakdownChart::fitTicks() {
  // Qt elides value labels that overlap ("..." for every label of a short chart, seen at 1280x800): as many
  // ticks as the plot's height leaves about 24 px per label for, 2 to 6.
  const auto axes = m_chart->axes(Qt::Vertical);
  auto* y = axes.isEmpty() ? nullptr : qobject_cast<QValueAxis*>(axes.front());
  if (!y) return;
  const int fit = std::clamp(static_cast<int>(m_chart->plotArea().height() / 24) + 1, 2, 6);
  if (fit == y->tickCount()) return;
  y->setTickCount(fit);
  y->setRange(0, m_top > 0 ? m_top * 1.18 : 1.0);  // headroom for the speed-up labels
  y->applyNiceNumbers();                           // round steps (it may settle on a close tick count)
}

void BreakdownChart::placeAnnotations() {
  if (m_chart->series().isEmpty()) return;
  QAbstractSeries* series = m_chart->series().front();
  for (int i = 0; i < static_cast<int>(m_annotations.size()); ++i) {
    const QPointF p =
        m_chart->mapToPosition(QPointF(i, m_bars[static_cast<std::size_t>(i)].total() / 1e3), series);
    QGraphicsSimpleTextItem* item = m_annotations[static_cast<std::size_t>(i)];
    const QRectF r = item->boundingRect();
    item->setPos(p.x() - r.width() / 2, p.y() - r.height() - 3);
  }
}

}  // namespace pimgui
