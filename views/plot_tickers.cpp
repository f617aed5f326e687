// SPDX-License-Identifier: Apache-2.0
#include "views/plot_tickers.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace pimgui {

namespace {
// Every tick of 1..9 x 10^k crowds the low end of a log axis (70,000 80,000 90,000 100,000 ran into one
// another over 70,000-500,000): keep only ticks at least a sixth of the range's decades apart.
QVector<double> spreadOut(const QVector<double>& ticks, double decades) {
  QVector<double> kept;
  for (double t : ticks)
    if (kept.isEmpty() || std::log10(t / kept.back()) >= decades / 6) kept << t;
  return kept;
}
}  // namespace

QVector<double> ReadableLogTicker::createTickVector(double, const QCPRange& range) {
  const double lo = std::max(range.lower, 1e-300), hi = std::max(range.upper, lo);
  for (const std::vector<double>& mantissas : {std::vector<double>{1, 2, 5}, std::vector<double>{1, 2, 3, 5},
                                               std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}}) {
    QVector<double> ticks;
    const bool wide = hi / lo > 1e4;
    for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10) {
      for (double m : wide ? std::vector<double>{1} : mantissas) {
        if (m * decade >= lo * (1 - 1e-12) && m * decade <= hi * (1 + 1e-12)) ticks << m * decade;
      }
    }
    if (m_integral)
      ticks.erase(std::remove_if(ticks.begin(), ticks.end(), [](double t) { return t < 1; }), ticks.end());
    if (mantissas.size() == 9) ticks = spreadOut(ticks, std::log10(hi / lo));
    if (ticks.size() >= 5 || wide) return ticks;
  }
  // Less than a tenth of a decade: plain steps, whole ones on a count axis.
  const double step = getTickStep(range);
  return QCPAxisTicker::createTickVector(m_integral ? std::max(1.0, std::round(step)) : step, range);
}

double CountAwareTicker::getTickStep(const QCPRange& range) {
  const double step = QCPAxisTicker::getTickStep(range);
  return m_integral ? std::max(1.0, std::round(step)) : step;
}

}  // namespace pimgui
