// SPDX-License-Identifier: Apache-2.0
// The stages of a pipelined candidate (Evaluation::stages; a crossbar network's layers), as the breakdown of
// such a candidate. With a period: per stage its time by the target's sub-phases on the unit it is busiest
// on, against the period, the bottleneck stage marked. Without: per stage the span from its first
// instruction's start to its last one's end, against the run's time. The compile window's layer pipeline and
// the details pane's Stages tab.
#pragma once
#include <QStringList>
#include <QWidget>
#include <memory>

#include "engine/core/evaluation.h"

class QCustomPlot;
class QLabel;

namespace pimgui {

class StageChart : public QWidget {
  Q_OBJECT
 public:
  explicit StageChart(QWidget* parent = nullptr);
  /// Draws `e`'s stages, its sub-phases named `parts` (ITarget::subPhases labels), under `caption`; nullptr
  /// or an evaluation without stages draws the `empty` note.
  void setStages(std::shared_ptr<const pim::Evaluation> e, QStringList parts, const QString& caption);
  void setEmptyNote(const QString& note);
  /// The stage that bounds the period (pim::bottleneckStage); -1 without stages or without a period.
  int bottleneck() const { return m_bottleneck; }
  QCustomPlot* plot() const { return m_plot; }

 private:
  void rebuild();
  void drawPeriod();
  void drawSpans();

  std::shared_ptr<const pim::Evaluation> m_eval;
  QStringList m_parts;
  QString m_captionText, m_emptyNote;
  int m_bottleneck = -1;
  QLabel* m_caption;
  QCustomPlot* m_plot;
};

}  // namespace pimgui
