// SPDX-License-Identifier: Apache-2.0
// How a sampling search (imtp) converged: the time of each of its trials and the best time found after each,
// in trial order (IMTP's search curves). Other strategies list the kept drafts, not their trials in the order
// they ran, so for them the plot says so instead of drawing a curve.
#pragma once
#include <QWidget>
#include <vector>

#include "engine/search/explorer.h"

class QCustomPlot;
class QCPGraph;
class QLabel;

namespace pimgui {

class SearchProgressPlot : public QWidget {
  Q_OBJECT
 public:
  explicit SearchProgressPlot(QWidget* parent = nullptr);

  /// Draws `records` as the trials of `strategy`; `trials`: the records are trials in order (the strategy
  /// samples the space itself, StrategyInfo::listsKept false); otherwise the plot only says why it is empty.
  void setRecords(const std::vector<pim::DraftRecord>& records, const QString& strategy, bool trials);
  /// Nothing explored: the plot empty, with a note saying how to fill it.
  void clear();

  QCustomPlot* plot() const { return m_plot; }
  /// The curve drawn: the best time after each trial in ns (infinity until one ran); empty when none is.
  const std::vector<double>& bestSoFarNs() const { return m_bestNs; }
  /// The line above the plot (what it shows, or why it is empty).
  QString caption() const;

 private:
  QCustomPlot* m_plot;
  QLabel* m_caption;
  QCPGraph* m_trials;
  QCPGraph* m_best;
  std::vector<double> m_bestNs;
};

}  // namespace pimgui
