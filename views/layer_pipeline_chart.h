// SPDX-License-Identifier: Apache-2.0
// The layer pipeline of a compiled network (issue 19), the breakdown for crossbar accelerators. HT: per layer
// the MVM, vector, memory and communication time it adds to the busiest core it runs on, against the pipeline
// period, with the bottleneck layer marked. LL: per layer the span from its first instruction's start to its
// last one's finish, against the inference's latency.
#pragma once
#include <QWidget>
#include <memory>

#include "engine/target/crossbar/network_compile.h"

class QCustomPlot;
class QLabel;

namespace pimgui {

class LayerPipelineChart : public QWidget {
  Q_OBJECT
 public:
  explicit LayerPipelineChart(QWidget* parent = nullptr);
  void setResult(std::shared_ptr<const pim::NetworkCompileResult> result);
  /// The layer (index into result->layers) that bounds the period: the largest time on its busiest core.
  /// -1 without a result or in LL.
  int bottleneck() const { return m_bottleneck; }
  QCustomPlot* plot() const { return m_plot; }

 private:
  void rebuild();
  void drawHt();
  void drawLl();

  std::shared_ptr<const pim::NetworkCompileResult> m_result;
  int m_bottleneck = -1;
  QLabel* m_caption;
  QCustomPlot* m_plot;
};

}  // namespace pimgui
