// SPDX-License-Identifier: Apache-2.0
// Axis tickers the window's QCustomPlot plots share: log axes labelled between the decades, and whole-number
// steps on axes that count things.
#pragma once
#include <qcustomplot.h>

#include <cmath>

namespace pimgui {

/// Log-axis ticks at 1-2-5 x 10^k (1-2-3-5 or 1..9 x 10^k when the range is narrower, every decade when
/// wide): QCustomPlot's log ticker labels only the decades, which leaves a plot spanning 0.2-0.9 us without
/// numbers. `integral`: no ticks below 1 (a count axis).
class ReadableLogTicker : public QCPAxisTickerLog {
 public:
  explicit ReadableLogTicker(bool integral) : m_integral(integral) {}

 protected:
  int getSubTickCount(double) override { return 0; }
  QVector<double> createTickVector(double, const QCPRange& range) override;

 private:
  bool m_integral;
};

/// Linear ticks; whole numbers only on a count axis (units used: no "bank 2.5").
class CountAwareTicker : public QCPAxisTicker {
 public:
  explicit CountAwareTicker(bool integral) : m_integral(integral) {}

 protected:
  double getTickStep(const QCPRange& range) override;

 private:
  bool m_integral;
};

/// `Ticker`'s ticks labelled as written out, in groups of three: 10,000,000 rather than 1e+07 (a 'g' format
/// switches to an exponent past its precision), as the plot's caption quotes its values.
template <class Ticker>
class WrittenOutLabels : public Ticker {
 public:
  using Ticker::Ticker;

 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar formatChar, int precision) override {
    if (std::abs(tick) >= 1 && std::abs(tick) < 1e15 && tick == std::round(tick)) {
      QLocale grouped = locale;  // QCustomPlot's axis locale omits the group separator
      grouped.setNumberOptions(QLocale::DefaultNumberOptions);
      return grouped.toString(tick, 'f', 0);
    }
    return Ticker::getTickLabel(tick, locale, formatChar, precision);
  }
};

}  // namespace pimgui
