// SPDX-License-Identifier: Apache-2.0
// Per-unit picture of the selected draft on its backend, drawn from its target's declarations: the unit
// geometry (outer units across, inner units down, bands separated by lines; DRAM-PIM: pseudo-channels x
// banks, banded by PIM group) and the statistics it keeps per unit. The metric switch offers the placement
// of the draft's data when the target places it (placed bytes, tile, padding) and every declared
// statistic; the tooltip names the unit, its band and the tensor index ranges held there.
#pragma once
#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include "engine/target/target.h"

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QLabel;

namespace pimgui {

struct DraftAnalysis;

class UnitHeatmap : public QWidget {
  Q_OBJECT
 public:
  /// Metric keys of the placement (the target's declared statistics use their own keys).
  static constexpr const char* kPlacedBytes = "layout.placed_bytes";
  static constexpr const char* kTile = "layout.tile";
  static constexpr const char* kPadding = "layout.padding_bytes";

  explicit UnitHeatmap(QWidget* parent = nullptr);
  void setAnalysis(std::shared_ptr<const DraftAnalysis> analysis);
  /// Chooses the metric by key; one the current target does not offer is kept and used once it does.
  void setMetric(const std::string& key);
  const std::string& metric() const { return m_metric; }
  /// Keys and colour-scale titles (with units) the current analysis offers, in menu order.
  struct MetricChoice {
    std::string key;
    QString title;
  };
  const std::vector<MetricChoice>& metrics() const { return m_choices; }

  const pim::UnitGeometry& geometry() const { return m_geometry; }
  /// Value shown in cell (outer, inner) for the current metric.
  double cellValue(int outer, int inner) const;
  /// Tooltip text of cell (outer, inner).
  QString cellTooltip(int outer, int inner) const;
  QCustomPlot* plot() const { return m_plot; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void rebuild();
  void rebuildChoices();
  std::vector<double> values() const;
  QString metricTitle() const;
  void drawBands();

  std::shared_ptr<const DraftAnalysis> m_analysis;
  std::string m_metric = kPlacedBytes;
  pim::UnitGeometry m_geometry;
  std::vector<pim::StatDecl> m_stats;
  std::vector<MetricChoice> m_choices;
  std::vector<double> m_values;  // unit-major, current metric
  QComboBox* m_metricBox;
  QLabel* m_caption;
  QCustomPlot* m_plot;
  QCPColorMap* m_map;
  QCPColorScale* m_scale;
};

}  // namespace pimgui
