// SPDX-License-Identifier: Apache-2.0
// The LLM view's Per token tab: the time of every decode step (ms) against its step, one line per system
// that ran, so the growth of attention with the context and any re-layout of the KV cache show as they
// happen; online compilation is not in these times (the caption gives each system's total).
#pragma once
#include <QWidget>

#include "engine/llm/inference.h"

class QCustomPlot;
class QLabel;

namespace pimgui {

class LlmTokenChart : public QWidget {
  Q_OBJECT
 public:
  explicit LlmTokenChart(QWidget* parent = nullptr);
  /// Draws `r` (nullptr: an empty chart with a note).
  void setResult(const pim::llm::InferenceResult* r);
  QCustomPlot* plot() const { return m_plot; }
  QLabel* caption() const { return m_caption; }

 private:
  QLabel* m_caption;
  QCustomPlot* m_plot;
};

}  // namespace pimgui
