// SPDX-License-Identifier: Apache-2.0
#include "views/search_progress_plot.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "views/plot_legend.h"
#include "views/plot_tickers.h"

namespace pimgui {

SearchProgressPlot::SearchProgressPlot(QWidget* parent)
    : QWidget(parent), m_plot(new QCustomPlot), m_caption(new QLabel) {
  m_caption->setWordWrap(true);
  m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_caption);
  layout->addWidget(m_plot, 1);

  m_plot->setMinimumSize(240, 160);
  m_plot->xAxis->setLabel(tr("Trial (in the order the search ran them)"));
  m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new CountAwareTicker(true)));
  m_plot->yAxis->setLabel(tr("Simulated time (µs)"));
  m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
  m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new WrittenOutLabels<ReadableLogTicker>(false)));
  m_plot->yAxis->setNumberFormat(QStringLiteral("g"));
  m_plot->yAxis->setNumberPrecision(7);  // 0.25, not 2.5e-01

  m_trials = m_plot->addGraph();
  m_trials->setName(tr("each trial"));
  m_trials->setLineStyle(QCPGraph::lsNone);
  m_trials->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(150, 150, 150), 4));
  m_best = m_plot->addGraph();
  m_best->setName(tr("best so far"));
  m_best->setLineStyle(QCPGraph::lsStepLeft);
  m_best->setPen(QPen(QColor(31, 119, 180), 2));
  // The legend in its own row under the axes, as the Pareto plot's: never over a trial.
  placeLegendBelow(m_plot);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  clear();
}

void SearchProgressPlot::clear() {
  m_bestNs.clear();
  m_trials->data()->clear();
  m_best->data()->clear();
  m_caption->setText(
      tr("Explore with the imtp strategy to see its search converge: each trial's time and the best found "
         "so far."));
  m_plot->xAxis->setRange(0, 1);
  m_plot->yAxis->setRange(1, 10);
  m_plot->replot();
}

void SearchProgressPlot::setRecords(const std::vector<pim::DraftRecord>& records, const QString& strategy,
                                    bool trials) {
  clear();
  if (!trials) {
    m_caption->setText(tr("%1 lists the kept drafts, not its trials in the order it ran them: the search "
                          "curve is drawn for sampling searches (imtp).")
                           .arg(strategy));
    return;
  }
  m_bestNs = pim::bestSoFarNs(records);
  QVector<double> tx, ty, bx, by;
  std::size_t firstBest = 0, unsimulated = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const pim::DraftRecord& r = records[i];
    const double trial = static_cast<double>(i + 1);
    if (r.simulated && !r.simulated->lowerBound) {
      tx << trial;
      ty << r.simulated->timeNs / 1e3;
    } else {
      ++unsimulated;
    }
    if (!std::isfinite(m_bestNs[i])) continue;
    if (i == 0 || m_bestNs[i] < m_bestNs[i - 1]) firstBest = i + 1;
    bx << trial;
    by << m_bestNs[i] / 1e3;
  }
  m_trials->setData(tx, ty, true);
  m_best->setData(bx, by, true);
  const QLocale l;
  if (by.isEmpty()) {
    m_caption->setText(
        tr("No trial of %1 has a time yet (%2 trials).").arg(strategy, l.toString(records.size())));
  } else {
    m_caption->setText(tr("%1: best %2 µs after %3 trials, first reached at trial %4; %5 trials without a "
                          "time (refused or failed).")
                           .arg(strategy, l.toString(by.back(), 'f', 1), l.toString(records.size()),
                                l.toString(firstBest), l.toString(unsimulated)));
    const auto [lo, hi] = std::minmax_element(ty.begin(), ty.end());
    const double low = std::min(*lo, by.back()) / 1.3, high = std::max(*hi, by.front()) * 1.3;
    m_plot->yAxis->setRange(low, high);
    // Early trials are often orders of magnitude slower: beyond two decades only the decades are labelled
    // (1-2-5 labels crowded the dock's short axis).
    if (high / low > 100) {
      auto decades = QSharedPointer<QCPAxisTickerLog>(new WrittenOutLabels<QCPAxisTickerLog>);
      decades->setSubTickCount(8);
      m_plot->yAxis->setTicker(decades);
    } else {
      m_plot->yAxis->setTicker(
          QSharedPointer<QCPAxisTickerLog>(new WrittenOutLabels<ReadableLogTicker>(false)));
    }
  }
  m_plot->xAxis->setRange(0.5, static_cast<double>(std::max<std::size_t>(records.size(), 1)) + 0.5);
  m_plot->replot();
}

QString SearchProgressPlot::caption() const { return m_caption->text(); }

}  // namespace pimgui
