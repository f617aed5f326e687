// SPDX-License-Identifier: Apache-2.0
// Stacked time breakdown of a few drafts next to the baselines, in the categories their targets declare (the
// three fixed phases, or a family's sub-phases of them: pim::timeBreakdown), with speed-ups over the
// reference bar written above each bar (DCC Fig. 2 and 13). A thin adapter: callers only see BreakdownBar, so
// Qt Charts (deprecated from Qt 6.10) can be swapped for another renderer without touching them.
#pragma once
#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "engine/target/target.h"

class QChart;
class QChartView;
class QGraphicsSimpleTextItem;

namespace pimgui {

struct BreakdownBar {
  /// A stacked part: its category (one legend entry per distinct name across the bars) and its time.
  struct Segment {
    QString category;
    double ns = 0;
    int phase = 0;  // the fixed phase it belongs to: categories stack in phase order
    bool operator==(const Segment&) const = default;
  };
  QString label;
  std::vector<Segment> segments;
  bool totalOnly = false;  // GPU-only execution has no PIM phases: one bar of `totalNs`
  double totalNs = 0;
  std::optional<quint64> draft;
  double total() const;
  /// Time in the segment named `category`, 0 when the bar has none.
  double ns(const QString& category) const;
};

/// The bar of an evaluation by its target's breakdown (pim::timeBreakdown), cycles scaled by `nsPerCycle`.
BreakdownBar breakdownBar(const QString& label, const pim::ITarget& target, const pim::Evaluation& e,
                          double nsPerCycle);

class BreakdownChart : public QWidget {
  Q_OBJECT
 public:
  explicit BreakdownChart(QWidget* parent = nullptr);
  /// `reference` indexes the bar speed-ups are relative to (the vendor default when there is one).
  void setBars(std::vector<BreakdownBar> bars, std::optional<int> reference);
  const std::vector<BreakdownBar>& bars() const { return m_bars; }
  /// "1.53×" for bar `i` (reference time / bar time), empty without a reference.
  QString speedupText(int i) const;

 private:
  void placeAnnotations();
  void fitTicks();

  QChart* m_chart;
  QChartView* m_view;
  std::vector<BreakdownBar> m_bars;
  std::optional<int> m_reference;
  double m_top = 0;  // the tallest bar, µs
  std::vector<QGraphicsSimpleTextItem*> m_annotations;
};

}  // namespace pimgui
