// SPDX-License-Identifier: Apache-2.0
// How a layer's mapping search converges (Map a conv layer…): the best objective found and the proven lower
// bound against seconds, across the mapper's stages (the heuristic, then the MILP). The gap is the distance
// between the two curves; where the bound meets the best, the mapping is proven optimal.
#pragma once
#include <QWidget>

#include "engine/convmap/mapper.h"

class QCustomPlot;
class QCPGraph;
class QLabel;

namespace pimgui {

class SolveProgressPlot : public QWidget {
  Q_OBJECT
 public:
  explicit SolveProgressPlot(QWidget* parent = nullptr);

  /// Starts an empty plot for a search under `objective`, the caption saying what is searched.
  void begin(const pim::convmap::ObjectiveSpec& objective, const QString& caption);
  /// Adds one report (a point on each curve it has a value for).
  void add(const pim::convmap::MapProgress& p);
  /// Adds the final result's best and bound at its time.
  void finish(const pim::convmap::MapResult& r);

  QCustomPlot* plot() const { return m_plot; }
  QCPGraph* best() const { return m_best; }
  QCPGraph* bound() const { return m_bound; }
  QString caption() const;

 private:
  /// An objective value in the plot's unit (nJ for energy).
  double shown(double value) const;
  void rescale();

  QCustomPlot* m_plot;
  QLabel* m_caption;
  QCPGraph* m_best;
  QCPGraph* m_bound;
  pim::convmap::ObjectiveSpec m_objective;
};

}  // namespace pimgui
