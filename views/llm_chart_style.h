// SPDX-License-Identifier: Apache-2.0
// What the LLM view's charts share (issue 21): one colour per decode phase and per system, the same in every
// chart, a legend in a column of its own beside the plot (the bars and lines stay uncovered whatever their
// heights), and the grey note an empty chart shows.
#pragma once
#include <QColor>
#include <QString>
#include <string>

class QCustomPlot;
class QLabel;

namespace pimgui {

/// qkv, attention, projection, ffn, other, communication (pim::llm::Phase order).
QColor llmPhaseColour(int phase);
/// By the system's place in pim::llm::systemNames(); a vendor system and its +dcc variant are shades of one
/// hue, so the pairs read together.
QColor llmSystemColour(const std::string& system);
/// The caption above an LLM chart: wrapped, selectable.
QLabel* newLlmCaption();
/// An LLM chart's plot: its minimum size and the legend's font.
QCustomPlot* newLlmPlot(int minimumHeight);
/// Moves `plot`'s legend out of the axis rect into a column at its right, and shows it.
void placeLegendBeside(QCustomPlot* plot);
/// Clears `plot` (graphs, bars, items), hides the axes' numbers (the last run's ranges would suggest data)
/// and writes `text` in grey at its centre.
void showPlotNote(QCustomPlot* plot, const QString& text);
/// The axes' numbers back on, for a plot drawing data after a note.
void showTickLabels(QCustomPlot* plot);

}  // namespace pimgui
