// SPDX-License-Identifier: Apache-2.0
// The Warm-up tab's chart (DCC Fig. 15): the latency of every request of a stream against its index, served
// with an online lookup table (unseen shapes compiled when they first appear, inside that request's latency)
// and with an offline one (every shape compiled before the stream), one line each; the caption gives the
// warm-up length and the table sizes.
#pragma once
#include <QWidget>
#include <vector>

#include "engine/llm/serve.h"

class QCustomPlot;
class QLabel;

namespace pimgui {

class LlmServeChart : public QWidget {
  Q_OBJECT
 public:
  explicit LlmServeChart(QWidget* parent = nullptr);
  /// Draws `runs` (empty: a note).
  void setRuns(const std::vector<pim::llm::ServeResult>& runs);
  QCustomPlot* plot() const { return m_plot; }
  QLabel* caption() const { return m_caption; }

 private:
  QLabel* m_caption;
  QCustomPlot* m_plot;
};

/// "online: warm-up 32 requests, 27 shapes in the table; offline: 27 shapes compiled in 12.4 s before …".
QString llmServeCaption(const std::vector<pim::llm::ServeResult>& runs);

}  // namespace pimgui
