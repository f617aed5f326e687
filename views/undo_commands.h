// SPDX-License-Identifier: Apache-2.0
// Undoable steering actions: a change of the control panel (backend, kernel, a dimension, strategy, a rule, a
// pass) and an edit of the what-if hardware. Each command holds the state before and after and an apply
// function that puts a state back on screen; the window guards that function so applying a state records
// nothing new.
#pragma once
#include <QString>
#include <QUndoCommand>
#include <functional>

#include "engine/hw/backend.h"
#include "views/session_config.h"

namespace pimgui {

/// The steering field that differs between two control-panel configurations ("strategy", "dimension out",
/// ...), "settings" when several differ, empty when none does.
QString steeringChange(const SessionConfig& before, const SessionConfig& after);

class ControlsCommand : public QUndoCommand {
 public:
  using Apply = std::function<void(const SessionConfig&)>;
  /// `after` is already on screen when the command is pushed, so the first redo() does nothing.
  ControlsCommand(SessionConfig before, SessionConfig after, Apply apply);
  void undo() override;
  void redo() override;
  int id() const override { return 1; }
  /// Consecutive edits of the same dimension (typing 8192 into a spin box) merge into one step.
  bool mergeWith(const QUndoCommand* other) override;

 private:
  SessionConfig m_before, m_after;
  QString m_field;
  bool m_mergeable = false;
  Apply m_apply;
  bool m_first = true;
};

class WhatIfCommand : public QUndoCommand {
 public:
  using Apply = std::function<void(const pim::Backend&)>;
  WhatIfCommand(pim::Backend before, pim::Backend after, Apply apply);
  void undo() override;
  void redo() override;

 private:
  pim::Backend m_before, m_after;
  Apply m_apply;
  bool m_first = true;
};

}  // namespace pimgui
