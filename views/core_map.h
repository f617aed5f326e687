// SPDX-License-Identifier: Apache-2.0
// The per-core map of a compiled network on a crossbar accelerator (issue 19), in place of the per-bank heat
// map: each chip's cores in a grid, chips side by side, coloured by a metric the switch chooses (crossbar
// use, MVM busy share, communication volume, layers per core, local-memory peak in LL); the tooltip names the
// array groups on the core.
#pragma once
#include <QWidget>
#include <memory>
#include <vector>

#include "engine/target/crossbar/network_compile.h"

class QComboBox;
class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QLabel;

namespace pimgui {

class CoreMap : public QWidget {
  Q_OBJECT
 public:
  enum class Metric { CrossbarUse, MvmBusy, CommunicationVolume, Layers, LocalMemoryPeak, SpillTraffic };
  explicit CoreMap(QWidget* parent = nullptr);
  void setResult(std::shared_ptr<const pim::NetworkCompileResult> result);
  void setMetric(Metric m);
  Metric metric() const { return m_metric; }
  /// The core drawn at plot cell (x, y), or -1 where there is none (the gap between chips).
  int coreAt(int x, int y) const;
  /// The metric's value of a core, and the tooltip the map shows for it.
  double value(int core) const;
  QString tooltip(int core) const;
  QCustomPlot* plot() const { return m_plot; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  struct Cell {
    int x = 0, y = 0;
  };
  void rebuild();
  void layoutCores();

  std::shared_ptr<const pim::NetworkCompileResult> m_result;
  Metric m_metric = Metric::CrossbarUse;
  std::vector<Cell> m_cells;  // per core
  int m_width = 0, m_height = 0;
  QComboBox* m_metricBox;
  QLabel* m_caption;
  QCustomPlot* m_plot;
  QCPColorMap* m_map;
  QCPColorScale* m_scale;
};

}  // namespace pimgui
