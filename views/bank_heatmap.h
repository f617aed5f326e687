// SPDX-License-Identifier: Apache-2.0
// Per-bank picture of the selected draft on its backend: pseudo-channels across, banks down, PIM groups
// separated by lines. The metric switch chooses what colours a cell (layout: bytes, tile, padding;
// simulation: busy cycles, activations, energy); the tooltip names the group/core and the tensor index ranges
// held there.
#pragma once
#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QLabel;

namespace pimgui {

struct DraftAnalysis;

class BankHeatmap : public QWidget {
  Q_OBJECT
 public:
  enum Metric { ResidentBytes, TileId, BusyCycles, Activations, Energy, Padding, MetricCount };

  explicit BankHeatmap(QWidget* parent = nullptr);
  void setAnalysis(std::shared_ptr<const DraftAnalysis> analysis);
  void setMetric(Metric m);
  Metric metric() const { return m_metric; }
  static const char* metricTitle(Metric m);  // colour-scale label with units

  int channels() const { return m_channels; }
  int banksPerChannel() const { return m_banks; }
  /// Value shown in cell (channel, bank) for the current metric.
  double cellValue(int channel, int bank) const;
  /// Tooltip text of cell (channel, bank).
  QString cellTooltip(int channel, int bank) const;
  QCustomPlot* plot() const { return m_plot; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void rebuild();
  std::vector<double> values(Metric m) const;

  std::shared_ptr<const DraftAnalysis> m_analysis;
  Metric m_metric = ResidentBytes;
  int m_channels = 0, m_banks = 0;
  std::vector<double> m_values;  // channel-major, current metric
  QComboBox* m_metricBox;
  QLabel* m_caption;
  QCustomPlot* m_plot;
  QCPColorMap* m_map;
  QCPColorScale* m_scale;
};

}  // namespace pimgui
