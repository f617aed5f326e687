// SPDX-License-Identifier: Apache-2.0
// Two objectives of every evaluated draft (QCustomPlot): the non-dominated front highlighted and joined,
// dominated drafts dimmed, the shared selection ringed. Hover names a draft, click selects it (Ctrl adds),
// Shift+drag box-selects, wheel/drag zoom and pan, double-click resets the view.
#pragma once
#include <QWidget>
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "views/draft_row.h"

class QCustomPlot;
class QCPGraph;
class QCPItemText;
class QCheckBox;
class QComboBox;
class QLabel;

namespace pim {
struct StatDecl;
}

namespace pimgui {

class DraftTableModel;
class DraftSelection;

/// An earlier run kept to compare with: every evaluated draft's objectives (NaN where it had none), and what
/// the legend calls it ("front before (hostTflops 312)").
struct ParetoGhost {
  QString label;
  std::vector<std::array<double, kObjectiveCount>> values;
};

/// Indices (into `points`) of the drafts no other draft beats on both objectives (minimising both).
std::vector<std::size_t> paretoFront(const std::vector<std::pair<double, double>>& points);

class ParetoPlot : public QWidget {
  Q_OBJECT
 public:
  ParetoPlot(DraftTableModel* model, DraftSelection* selection, QWidget* parent = nullptr);
  /// Axes on offer: the fixed objectives and the target's figures after them. setObjectives takes any
  /// below axisCount().
  int axisCount() const;
  /// Whether the axes offer `o`: not a fixed objective the target does not report (a conv mapping's
  /// rearrangement time), which stays in the boxes hidden so that every axis keeps its index.
  bool offersAxis(Objective o) const;
  void setObjectives(Objective x, Objective y);
  Objective xObjective() const;
  Objective yObjective() const;
  bool logAxes() const;
  void setLogAxes(bool on);
  /// Visible ranges (x lower, x upper, y lower, y upper) and whether the user zoomed or panned away from the
  /// automatic view; setView restores both (a session reopens at the zoom it was saved with).
  std::array<double, 4> viewRange() const;
  bool userZoomed() const { return m_userZoomed; }
  void setView(const std::array<double, 4>& range);
  /// Rebuilds the points from the model (call when rows change; cheap for thousands of points).
  void refresh();
  /// Resets zoom to show every point.
  void resetView();
  /// Draws pruned drafts (the model's rows after the kept ones) as small light-grey points behind the others,
  /// on axes where both objectives have a value (predicted time, banks used; never a simulated quantity).
  /// They are never part of the front.
  void setShowPruned(bool on);
  bool showPruned() const { return m_showPruned; }

  struct Point {
    double x = 0, y = 0;
    quint64 id = 0;
    int row = 0;
    bool front = false;
  };
  const std::vector<Point>& points() const { return m_points; }
  QCustomPlot* plot() const { return m_plot; }
  /// The note an empty plot shows instead of axes scaled to nothing; empty when there are points.
  QString emptyNote() const;
  /// Pruned drafts drawn (after thinning, see kMaxPrunedPoints) and how many had values on both axes.
  const std::vector<Point>& prunedPoints() const { return m_prunedPoints; }
  std::size_t prunedPlottable() const { return m_prunedPlottable; }
  QCPGraph* prunedGraph() const { return m_prunedGraph; }
  /// Above this many grey points every k-th is drawn (deterministic; the legend says so): replots stay fast.
  static constexpr std::size_t kMaxPrunedPoints = 20000;

  /// The kept rows of `model` as a ghost.
  static ParetoGhost captureGhost(const DraftTableModel& model, const QString& label);
  /// Draws the ghost run's front on the current axes as a faint dashed staircase behind the points (a
  /// what-if edit shows what moved); nullptr removes it.
  void setGhost(std::shared_ptr<const ParetoGhost> ghost);
  const ParetoGhost* ghost() const { return m_ghost.get(); }
  /// The ghost's front on the current axes, sorted by x; empty without a ghost.
  const std::vector<std::pair<double, double>>& ghostFront() const { return m_ghostFront; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  int pointAt(const QPoint& pixel) const;        // nearest point within a few pixels, -1 if none
  int prunedPointAt(const QPoint& pixel) const;  // same among the grey points drawn
  int nearestPoint(const std::vector<Point>& points, const QPoint& pixel, double radiusPx) const;
  void refreshPruned(Objective x, Objective y);
  // Axes: the fixed objectives, then the target's figures (DraftTableModel::facts) as Objective values from
  // kObjectiveCount on (pim-hierarchy: DRAM row activations).
  const pim::StatDecl* factAxis(Objective o) const;  // nullptr for a fixed objective
  std::optional<double> axisValue(const DraftRow& row, Objective o) const;
  QString axisTitle(Objective o) const;
  void syncAxisItems();  // one item per axis of the model's target, titles included
  void refreshGhost(Objective x, Objective y);
  void showSelection();
  void selectInRect(const QRect& rect);
  void applyScale();

  DraftTableModel* m_model;
  DraftSelection* m_selection;
  QComboBox* m_x;
  QComboBox* m_y;
  QCheckBox* m_log;
  QLabel* m_summary;
  QCustomPlot* m_plot;
  QCPGraph* m_dominated;
  QCPGraph* m_front;
  QCPGraph* m_selected;
  QCPGraph* m_prunedGraph;
  QCPGraph* m_ghostGraph;
  std::shared_ptr<const ParetoGhost> m_ghost;
  std::vector<std::pair<double, double>> m_ghostFront;
  std::vector<Point> m_prunedPoints;
  std::size_t m_prunedPlottable = 0;
  bool m_showPruned = false;
  std::vector<Point> m_points;
  QCPItemText* m_emptyNote;  // "No drafts with both values yet", over an empty plot
  bool m_userZoomed = false;
};

}  // namespace pimgui
