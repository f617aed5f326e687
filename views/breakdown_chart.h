// SPDX-License-Identifier: Apache-2.0
// Stacked time breakdown (input rearrangement / compute / output rearrangement) of a few drafts next to the
// baselines, with speed-ups over the reference bar written above each bar (DCC Fig. 2 and 13). A thin
// adapter: callers only see BreakdownBar, so Qt Charts (deprecated from Qt 6.10) can be swapped for another
// renderer without touching them.
#pragma once
#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

class QChart;
class QChartView;
class QGraphicsSimpleTextItem;

namespace pimgui {

struct BreakdownBar {
  QString label;
  double inNs = 0, computeNs = 0, outNs = 0;
  bool totalOnly = false;  // GPU-only execution has no PIM phases: one bar of `totalNs`
  double totalNs = 0;
  std::optional<quint64> draft;
  double total() const { return totalOnly ? totalNs : inNs + computeNs + outNs; }
};

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

  QChart* m_chart;
  QChartView* m_view;
  std::vector<BreakdownBar> m_bars;
  std::optional<int> m_reference;
  std::vector<QGraphicsSimpleTextItem*> m_annotations;
};

}  // namespace pimgui
