// SPDX-License-Identifier: Apache-2.0
// A banner above the views that says, before any work, why the problem in the control panel cannot run (the
// engine's verdict: an input error, an unsupported kernel, a shape that does not fit). Hidden when it can.
#pragma once
#include <QLabel>
#include <QString>

#include "views/session_config.h"

namespace pimgui {

/// The engine's verdict on `config` as the window states it: empty when the problem can run, else the reason
/// (the same text the CLI prints: makeProblem's input errors, then the target's check).
QString problemVerdict(const SessionConfig& config);

class VerdictBanner : public QLabel {
  Q_OBJECT
 public:
  explicit VerdictBanner(QWidget* parent = nullptr);
  /// Shows `reason` (plain text), or hides the banner when it is empty.
  void setVerdict(const QString& reason);
  const QString& verdict() const { return m_verdict; }

 private:
  QString m_verdict;
};

}  // namespace pimgui
