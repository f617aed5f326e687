// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <QCoreApplication>
#include <QElapsedTimer>
#include <functional>

#include "views/session_config.h"

namespace pimgui::test {

/// Processes events until `done` or `timeoutMs`; returns whether `done` became true.
inline bool waitFor(const std::function<bool()>& done, int timeoutMs) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > timeoutMs) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
  }
  return true;
}

/// Small problem that explores exhaustively in a few seconds.
inline SessionConfig smallConfig() {
  SessionConfig c;
  c.backend = "hbm-pim";
  c.kernel = "red";
  c.shape = "b=1,n=4096";
  c.strategy = "exhaustive";
  c.maxSimulations = 40;
  return c;
}

}  // namespace pimgui::test
