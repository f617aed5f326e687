// SPDX-License-Identifier: Apache-2.0
// The progress bar of an exploration: its stage, n of N where the stage has a known size (simulations), and
// the time left from the rate so far (the CLI's estimate, pim::TimeLeftMeter). Hidden when nothing runs. The
// window's status bar, the compare view (one search per backend) and the classroom (building a walkthrough)
// each show one.
#pragma once
#include <QProgressBar>

#include "engine/common/time_left.h"
#include "engine/search/explorer.h"

namespace pimgui {

class RunProgress : public QProgressBar {
  Q_OBJECT
 public:
  explicit RunProgress(QWidget* parent = nullptr);
  /// Shows `p` while `running`; hides the bar otherwise. `what` leads the text ("attacc (2 of 3)") when a job
  /// runs several searches.
  void showProgress(const pim::ExploreProgress& p, bool running, const QString& what = {});
  /// A job without counts (a busy bar) that says what it does.
  void showBusy(const QString& what);
  /// What the bar says; a busy bar says its stage too (QProgressBar shows no text while busy).
  QString text() const override;

 private:
  pim::TimeLeftMeter m_timeLeft;
};

}  // namespace pimgui
