// SPDX-License-Identifier: Apache-2.0
#include "views/llm_breakdown_chart.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <map>

#include "engine/llm/decode_ops.h"
#include "views/llm_chart_style.h"

namespace pimgui {
namespace {

using namespace pim::llm;

QString ms(double v) { return QString::number(v, 'f', v >= 100 ? 1 : 3); }

QString barTooltip(const SystemResult& s, int phases, const QString& speedup, const QString& reference) {
  QString t = QObject::tr("%1: %2 ms per token, %3 against %4")
                  .arg(QString::fromStdString(s.system), ms(s.meanTokenMs), speedup, reference);
  for (int p = 0; p < phases; ++p)
    t += QStringLiteral("\n  %1: %2 ms")
             .arg(QString::fromLatin1(phaseName(static_cast<Phase>(p))),
                  ms(s.breakdownMs[static_cast<std::size_t>(p)]));
  t += QObject::tr("\nprefill %1 ms, total %2 ms, %3 tokens/s, %4 mJ per token")
           .arg(ms(s.prefillMs), ms(s.totalMs))
           .arg(s.tokensPerS, 0, 'f', 1)
           .arg(s.energyPerTokenMj, 0, 'f', 1);
  return t;
}

}  // namespace

QString llmRequestText(const InferenceResult& r) {
  return QObject::tr("%1, batch %2, %3 input and %4 output tokens, %5, %6 GPU%7")
      .arg(QString::fromStdString(r.display))
      .arg(r.batch)
      .arg(r.lin)
      .arg(r.lout)
      .arg(QString::fromStdString(r.dtype))
      .arg(r.gpus)
      .arg(r.gpus > 1 ? QStringLiteral("s") : QString());
}

QString llmUnavailableReason(const SystemResult& s) {
  // The engine may start the reason with the system's name; the view names the system itself.
  const std::string prefix = s.system + ": ";
  return QString::fromStdString(s.reason.starts_with(prefix) ? s.reason.substr(prefix.size()) : s.reason);
}

QString llmUnavailableText(const InferenceResult& r) {
  // Systems that share a reason (FP8 on every PIM system, a request beyond the memory) share one line.
  std::vector<std::pair<QString, QStringList>> reasons;
  std::size_t unavailable = 0;
  for (const SystemResult& s : r.systems) {
    if (s.available) continue;
    ++unavailable;
    const QString why = llmUnavailableReason(s);
    auto at = std::find_if(reasons.begin(), reasons.end(), [&](const auto& e) { return e.first == why; });
    if (at == reasons.end()) at = reasons.insert(reasons.end(), {why, {}});
    at->second << QString::fromStdString(s.system);
  }
  if (reasons.size() == 1 && unavailable == r.systems.size() && unavailable > 1)
    return QObject::tr("No system can run this request: %1").arg(reasons.front().first);
  QStringList lines;
  for (const auto& [why, systems] : reasons)
    lines << QObject::tr("%1 cannot run: %2").arg(systems.join(QStringLiteral(", ")), why);
  return lines.join(QLatin1Char('\n'));
}

LlmBreakdownChart::LlmBreakdownChart(QWidget* parent) : QWidget(parent) {
  m_caption = newLlmCaption();
  m_plot = newLlmPlot(260);
  m_plot->setMouseTracking(true);
  connect(m_plot, &QCustomPlot::mouseMove, this, &LlmBreakdownChart::onMouseMove);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(m_caption);
  layout->addWidget(m_plot, 1);
  setResult(nullptr);
}

void LlmBreakdownChart::computeBars(const InferenceResult& r) {
  const SystemResult* ref = nullptr;
  for (const SystemResult& s : r.systems)
    if (s.available && s.system == "gpu") ref = &s;
  if (!ref)  // normalised to the slowest system that ran, so every bar is at most 1
    for (const SystemResult& s : r.systems)
      if (s.available && (!ref || s.meanTokenMs > ref->meanTokenMs)) ref = &s;
  m_reference = ref ? QString::fromStdString(ref->system) : QString();
  m_phases = reportedPhaseCount(r);
  for (const SystemResult& s : r.systems) {
    Bar b;
    b.system = QString::fromStdString(s.system);
    b.available = s.available && ref && ref->meanTokenMs > 0;
    if (!b.available) {
      b.reason = llmUnavailableReason(s);
      b.tooltip = tr("%1 cannot run: %2").arg(b.system, b.reason);
    } else {
      for (int p = 0; p < kPhaseCount; ++p)
        b.parts[static_cast<std::size_t>(p)] = s.breakdownMs[static_cast<std::size_t>(p)] / ref->meanTokenMs;
      b.total = s.meanTokenMs / ref->meanTokenMs;
      b.speedup = QString::number(ref->meanTokenMs / s.meanTokenMs, 'f', 2) + QLatin1Char('x');
      b.tooltip = barTooltip(s, m_phases, b.speedup, m_reference);
    }
    m_bars.push_back(std::move(b));
  }
}

void LlmBreakdownChart::setResult(const InferenceResult* r) {
  m_bars.clear();
  m_reference.clear();
  if (r) computeBars(*r);
  if (!r || r->systems.empty()) {
    m_caption->setText(tr("Run a request to see each system's time per token, split by phase"));
  } else {
    QString text = m_reference.isEmpty() ? llmRequestText(*r)
                                         : tr("%1: mean time per decode step by phase, normalised to %2")
                                               .arg(llmRequestText(*r), m_reference);
    if (const QString gaps = llmUnavailableText(*r); !gaps.isEmpty()) text += QLatin1Char('\n') + gaps;
    m_caption->setText(text);
  }
  draw();
}

void LlmBreakdownChart::draw() {
  m_plot->clearPlottables();
  m_plot->clearItems();
  m_plot->xAxis->setLabel(tr("system"));
  if (m_bars.empty()) {
    showPlotNote(m_plot, tr("Each system becomes a bar: its time per token split by phase"));
    m_plot->yAxis->setLabel(tr("time per token (normalised to GPU)"));
    m_plot->legend->setVisible(false);
    m_plot->replot();
    return;
  }
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  double top = 0;
  for (std::size_t i = 0; i < m_bars.size(); ++i) {
    ticker->addTick(static_cast<double>(i), m_bars[i].system);
    top = std::max(top, m_bars[i].total);
  }
  QCPBars* below = nullptr;
  for (int p = 0; p < m_phases; ++p) {
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setName(QString::fromLatin1(phaseName(static_cast<Phase>(p))));
    bars->setBrush(llmPhaseColour(p));
    bars->setPen(QPen(llmPhaseColour(p).darker(130)));
    bars->setWidth(0.6);
    for (std::size_t i = 0; i < m_bars.size(); ++i)
      if (m_bars[i].available)
        bars->addData(static_cast<double>(i), m_bars[i].parts[static_cast<std::size_t>(p)]);
    if (below) bars->moveAbove(below);
    below = bars;
  }
  QFont bold = m_plot->font();
  bold.setBold(true);
  for (std::size_t i = 0; i < m_bars.size(); ++i) {
    auto* label = new QCPItemText(m_plot);
    const bool gap = !m_bars[i].available;
    // A gap's label sits at the foot of its column, a bar's speed-up just above the bar.
    label->position->setCoords(static_cast<double>(i), gap ? 0 : m_bars[i].total);
    label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    label->setPadding(QMargins(0, 0, 0, 3));
    label->setText(gap ? tr("cannot run\n(hover: why)") : m_bars[i].speedup);
    label->setFont(gap ? m_plot->font() : bold);
    label->setColor(gap ? QColor(170, 30, 30) : Qt::black);
  }
  m_plot->xAxis->setTicker(ticker);
  m_plot->xAxis->setRange(-0.6, static_cast<double>(m_bars.size()) - 0.4);
  m_plot->xAxis->grid()->setVisible(false);
  m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  // Headroom for the speed-up labels; 0..1.15 when nothing ran, so the gaps stand on a familiar scale.
  m_plot->yAxis->setRange(0, (top > 0 ? std::max(top, 0.2) : 1.0) * 1.15);
  showTickLabels(m_plot);
  m_plot->yAxis->setLabel(
      m_reference.isEmpty() || m_reference == QLatin1String("gpu")
          ? tr("time per token (normalised to GPU)")
          : tr("time per token (normalised to the slowest, %1: no GPU run)").arg(m_reference));
  placeLegendBeside(m_plot);
  m_plot->replot();
}

QString LlmBreakdownChart::tooltipAt(double x) const {
  const auto i = static_cast<long>(std::lround(x));
  if (i < 0 || i >= static_cast<long>(m_bars.size()) || std::abs(x - static_cast<double>(i)) > 0.4) return {};
  return m_bars[static_cast<std::size_t>(i)].tooltip;
}

void LlmBreakdownChart::onMouseMove(QMouseEvent* e) {
  const QString tip = tooltipAt(m_plot->xAxis->pixelToCoord(e->position().x()));
  if (tip == m_plot->toolTip()) return;
  m_plot->setToolTip(tip);  // and at once, not only after the pointer rests on the next column
  if (tip.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(e->globalPosition().toPoint(), tip, m_plot);
}

}  // namespace pimgui
