// SPDX-License-Identifier: Apache-2.0
// The "stale" marker: when the control panel (or the what-if hardware) no longer matches what the shown
// results were explored with, an amber banner above the table says what changed and how to update, and the
// result docks say "stale" in their titles, so nobody reads old numbers as answers to the new question.
#pragma once
#include <QLabel>
#include <QString>

#include "views/session_config.h"

namespace pimgui {

/// What differs between the settings results were explored with (`shown`) and the ones the panel asks for
/// now: "" when none; else the field as undo names it ("dimension n", "strategy", "settings"), or "what-if
/// hardware" when only the edited backend differs.
QString staleReason(const SessionConfig& shown, const SessionConfig& requested);

class StaleBanner : public QLabel {
  Q_OBJECT
 public:
  explicit StaleBanner(QWidget* parent = nullptr);
  /// Shows that the results of `shownTitle` are stale because `reason` changed; hides it when `reason` is
  /// empty.
  void setStale(const QString& reason, const QString& shownTitle);
  const QString& reason() const { return m_reason; }

 private:
  QString m_reason;
};

}  // namespace pimgui
