// SPDX-License-Identifier: Apache-2.0
// The LLM view's Breakdown tab (DCC Fig. 11): one stacked bar per system, its mean time per decode step split
// into the six phases, normalised to the gpu system's time per token (to the slowest system, said in the axis
// title, when gpu did not run), with the speed-up over that reference above each bar. A system that cannot
// run the request is a labelled gap whose tooltip gives the engine's reason; a bar's tooltip gives its
// numbers.
#pragma once
#include <QString>
#include <QWidget>
#include <array>
#include <vector>

#include "engine/llm/inference.h"

class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace pimgui {

class LlmBreakdownChart : public QWidget {
  Q_OBJECT
 public:
  struct Bar {
    QString system;
    bool available = false;
    QString reason;                                     // why not, when unavailable
    std::array<double, pim::llm::kPhaseCount> parts{};  // normalised, per phase
    double total = 0;                                   // normalised time per token
    QString speedup;                                    // "2.53x": reference time / this time
    QString tooltip;
  };

  explicit LlmBreakdownChart(QWidget* parent = nullptr);
  /// Draws `r` (nullptr: an empty chart with a note).
  void setResult(const pim::llm::InferenceResult* r);
  /// One per system of the result, in its order (unavailable ones too).
  const std::vector<Bar>& bars() const { return m_bars; }
  /// The system the bars are normalised to ("gpu", or the slowest when gpu did not run); empty when none ran.
  const QString& reference() const { return m_reference; }
  /// The tooltip of the bar or gap at axis position `x` (empty outside the bars).
  QString tooltipAt(double x) const;
  QCustomPlot* plot() const { return m_plot; }
  QLabel* caption() const { return m_caption; }

 private:
  void computeBars(const pim::llm::InferenceResult& r);
  void draw();
  void onMouseMove(QMouseEvent* e);

  std::vector<Bar> m_bars;
  int m_phases = 0;  // the phases drawn: all but the LM head's unless the result timed it
  QString m_reference;
  QLabel* m_caption;
  QCustomPlot* m_plot;
};

/// "GPT-3 13B, batch 1, 2048 input and 32 output tokens, fp16, 1 GPU": the request a result answers.
QString llmRequestText(const pim::llm::InferenceResult& r);
/// "attacc-full, auto cannot run: <reason>": one line per reason the unavailable systems give ("No system
/// can run this request: <reason>" when every system gives the same one).
QString llmUnavailableText(const pim::llm::InferenceResult& r);
/// Why `s` cannot run, without the system's name the engine may start it with.
QString llmUnavailableReason(const pim::llm::SystemResult& s);

}  // namespace pimgui
