// SPDX-License-Identifier: Apache-2.0
// Two objectives of every evaluated draft (QCustomPlot): the non-dominated front highlighted and joined,
// dominated drafts dimmed, the shared selection ringed. Hover names a draft, click selects it (Ctrl adds),
// Shift+drag box-selects, wheel/drag zoom and pan, double-click resets the view.
#pragma once
#include <QWidget>
#include <vector>

#include "views/draft_row.h"

class QCustomPlot;
class QCPGraph;
class QCheckBox;
class QComboBox;
class QLabel;

namespace pimgui {

class DraftTableModel;
class DraftSelection;

/// Indices (into `points`) of the drafts no other draft beats on both objectives (minimising both).
std::vector<std::size_t> paretoFront(const std::vector<std::pair<double, double>>& points);

class ParetoPlot : public QWidget {
  Q_OBJECT
 public:
  ParetoPlot(DraftTableModel* model, DraftSelection* selection, QWidget* parent = nullptr);
  void setObjectives(Objective x, Objective y);
  /// Rebuilds the points from the model (call when rows change; cheap for thousands of points).
  void refresh();
  /// Resets zoom to show every point.
  void resetView();

  struct Point {
    double x = 0, y = 0;
    quint64 id = 0;
    int row = 0;
    bool front = false;
  };
  const std::vector<Point>& points() const { return m_points; }
  QCustomPlot* plot() const { return m_plot; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  int pointAt(const QPoint& pixel) const;  // nearest point within a few pixels, -1 if none
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
  std::vector<Point> m_points;
  bool m_userZoomed = false;
};

}  // namespace pimgui
