// SPDX-License-Identifier: Apache-2.0
#include "views/undo_commands.h"

#include <QObject>

#include "views/residency_input.h"

namespace pimgui {

QString steeringChange(const SessionConfig& a, const SessionConfig& b) {
  QStringList fields;
  if (a.backend != b.backend) fields << QObject::tr("backend");
  if (a.kernel != b.kernel || a.kernelFile != b.kernelFile) fields << QObject::tr("kernel");
  if (a.dtype != b.dtype) fields << QObject::tr("element type");
  // A kernel change rebuilds the dimensions: the shape follows the kernel and is no separate step.
  if (fields.isEmpty() && a.shape != b.shape) {
    const QStringList da = QString::fromStdString(a.shape).split(QLatin1Char(','));
    const QStringList db = QString::fromStdString(b.shape).split(QLatin1Char(','));
    QString dim = QObject::tr("shape");
    if (da.size() == db.size()) {
      int differing = 0;
      for (int i = 0; i < da.size(); ++i) {
        if (da[i] != db[i]) {
          ++differing;
          dim = QObject::tr("dimension %1").arg(db[i].section(QLatin1Char('='), 0, 0));
        }
      }
      if (differing > 1) dim = QObject::tr("shape");
    }
    fields << dim;
  }
  // Likewise the residency: a new kernel's field is filled with what that kernel declares.
  if (a.kernel == b.kernel && a.kernelFile == b.kernelFile &&
      !sameResidency(b.kernel, b.kernelFile, a.resident, b.resident))
    fields << QObject::tr("resident tensors");
  if (a.strategy != b.strategy) fields << QObject::tr("strategy");
  const pim::PruneRuleRegistry& rules = pim::PruneRuleRegistry::builtin();
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const bool on = i < a.rules.size() && a.rules[i], after = i < b.rules.size() && b.rules[i];
    if (on != after) fields << QObject::tr("rule %1").arg(rules.at(i).number());
  }
  if (a.stagedRearrangement != b.stagedRearrangement) fields << QObject::tr("optimizer I");
  if (a.groupCommands != b.groupCommands) fields << QObject::tr("optimizer II");
  if (a.model != b.model) fields << QObject::tr("labelling model");
  if (a.crossbarTiming != b.crossbarTiming) fields << QObject::tr("timing");
  if (fields.size() > 1) return QObject::tr("settings");
  return fields.value(0);
}

ControlsCommand::ControlsCommand(SessionConfig before, SessionConfig after, Apply apply)
    : m_before(std::move(before)), m_after(std::move(after)), m_apply(std::move(apply)) {
  m_field = steeringChange(m_before, m_after);
  // Only a dimension's field and the resident tensors' produce bursts (one edit per keystroke or step); other
  // fields are one click.
  const bool typed = m_before.shape != m_after.shape || m_before.resident != m_after.resident;
  m_mergeable = typed && m_before.kernel == m_after.kernel && m_before.kernelFile == m_after.kernelFile &&
                m_field != QObject::tr("settings");
  setText(QObject::tr("change %1").arg(m_field));
}

void ControlsCommand::undo() { m_apply(m_before); }

void ControlsCommand::redo() {
  if (m_first) {
    m_first = false;
    return;
  }
  m_apply(m_after);
}

bool ControlsCommand::mergeWith(const QUndoCommand* other) {
  const auto* next = static_cast<const ControlsCommand*>(other);  // same id(): a ControlsCommand
  if (!m_mergeable || !next->m_mergeable || next->m_field != m_field) return false;
  m_after = next->m_after;
  // Typing a value back to where it started leaves nothing to undo.
  if (steeringChange(m_before, m_after).isEmpty()) setObsolete(true);
  return true;
}

WhatIfCommand::WhatIfCommand(pim::Backend before, pim::Backend after, Apply apply)
    : m_before(std::move(before)), m_after(std::move(after)), m_apply(std::move(apply)) {
  QStringList keys;
  for (const pim::Parameter& p : m_after.parameters) {
    const pim::Parameter* q = m_before.param(p.key);
    if (!q || q->value != p.value) keys << QString::fromStdString(p.key);
  }
  setText(keys.size() == 1 ? QObject::tr("edit %1").arg(keys.front())
                           : QObject::tr("edit %1 hardware parameters").arg(keys.size()));
}

void WhatIfCommand::undo() { m_apply(m_before); }

void WhatIfCommand::redo() {
  if (m_first) {
    m_first = false;
    return;
  }
  m_apply(m_after);
}

}  // namespace pimgui
