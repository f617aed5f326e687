// SPDX-License-Identifier: Apache-2.0
#include "views/run_progress.h"

#include <algorithm>
#include <limits>

namespace pimgui {

RunProgress::RunProgress(QWidget* parent) : QProgressBar(parent) {
  setObjectName(QStringLiteral("runProgress"));
  setMinimumWidth(320);
  setTextVisible(true);
  hide();
}

QString RunProgress::text() const {
  return minimum() == 0 && maximum() == 0 ? format() : QProgressBar::text();
}

void RunProgress::showBusy(const QString& what) {
  setVisible(true);
  setRange(0, 0);
  // A long line (a family's search: "mapping the layer (latency, 1 of 3): best ..., bound ...") shows its
  // head in the bar; the status bar and the tooltip have it all.
  const auto cut = what.indexOf(QStringLiteral("): "));
  setFormat(cut > 0 ? what.left(cut + 1) : what);
  setToolTip(what);
}

void RunProgress::showProgress(const pim::ExploreProgress& p, bool running, const QString& what) {
  setVisible(running);
  if (!running) return;
  const QString lead = what.isEmpty() ? QString() : what + QStringLiteral(": ");
  QString stage = lead + QString::fromStdString(p.stage);
  if (!p.detail.empty()) stage += QStringLiteral(" · ") + QString::fromStdString(p.detail);
  if (p.stage != "simulating" || p.toSimulate == 0) {
    // Generating, screening, loading and predicting have no count the engine reports as they go: a busy bar.
    showBusy(stage);
    return;
  }
  const std::uint64_t done = std::min<std::uint64_t>(p.simulated + p.failed, p.toSimulate);
  // QProgressBar counts in int; plans beyond it are shown in proportion.
  const double scale = std::max(1.0, static_cast<double>(p.toSimulate) / std::numeric_limits<int>::max());
  setRange(0, static_cast<int>(static_cast<double>(p.toSimulate) / scale));
  setValue(static_cast<int>(static_cast<double>(done) / scale));
  QString text = lead + tr("simulating %L1 of %L2").arg(done).arg(p.toSimulate);
  // Each search of a multi-search job measures its own rate.
  if (const auto left = m_timeLeft.secondsLeft(what.toStdString() + p.stage, static_cast<double>(done),
                                               static_cast<double>(p.toSimulate)))
    text += *left < 1 ? tr(" · under a second left")
                      : tr(" · about %1 left").arg(QString::fromStdString(pim::durationText(*left)));
  setFormat(text);
}

}  // namespace pimgui
