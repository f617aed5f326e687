// SPDX-License-Identifier: Apache-2.0
// The status bar's progress bar of an exploration: its stage, n of N where the stage has a known size
// (simulations), and the time left from the rate so far (the CLI's estimate, pim::TimeLeftMeter). Hidden when
// nothing runs.
#pragma once
#include <QProgressBar>

#include "engine/common/time_left.h"
#include "engine/search/explorer.h"

namespace pimgui {

class RunProgress : public QProgressBar {
  Q_OBJECT
 public:
  explicit RunProgress(QWidget* parent = nullptr);
  /// Shows `p` while `running`; hides the bar otherwise.
  void showProgress(const pim::ExploreProgress& p, bool running);

 private:
  pim::TimeLeftMeter m_timeLeft;
};

}  // namespace pimgui
