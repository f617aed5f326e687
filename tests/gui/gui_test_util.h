// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <QAbstractItemModel>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <functional>
#include <memory>

#include "engine/core/problem.h"
#include "engine/hw/backend.h"
#include "engine/kernel/kernel.h"
#include "engine/kernel/library.h"
#include "engine/target/registry.h"
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

/// The drafts table's column headed `title`, -1 when there is none.
inline int columnTitled(const QAbstractItemModel& m, const QString& title) {
  for (int c = 0; c < m.columnCount(); ++c)
    if (m.headerData(c, Qt::Horizontal).toString() == title) return c;
  return -1;
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

/// A short imtp run on upmem (VA in int32, `trials` trials): records at other kernel-level choices.
inline SessionConfig imtpConfig(std::size_t trials) {
  SessionConfig c;
  c.backend = "upmem";
  c.kernel = "va";
  c.shape = "b=1,n=8192";
  c.dtype = "i32";
  c.strategy = "imtp";
  c.maxSimulations = trials;  // imtp's trials
  return c;
}

/// smallConfig()'s problem, as the views hand it to the engine.
inline std::shared_ptr<const pim::Problem> smallProblem() {
  const SessionConfig c = smallConfig();
  pim::Kernel k = pim::resolveKernel(c.kernel, "");
  const pim::Shape s = pim::parseShape(k, c.shape);
  return std::make_shared<const pim::Problem>(pim::builtinBackends().get(c.backend), std::move(k), s);
}

}  // namespace pimgui::test
