// SPDX-License-Identifier: Apache-2.0
// The main window's what-if wiring: an accepted edit (or its undo) re-explores the panel's problem on the
// edited hardware, keeps the run before it as the Pareto plot's ghost front, and when the re-run is done
// tells the what-if dock what moved (best draft, GPU-only time) instead of leaving "re-exploring…".
#include <QStatusBar>
#include <algorithm>

#include "engine/core/problem.h"
#include "engine/target/registry.h"
#include "views/control_panel.h"
#include "views/draft_table_model.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/undo_commands.h"
#include "views/what_if_panel.h"

namespace pimgui {

namespace {

QString microseconds(double ns) { return QObject::tr("%1 µs").arg(ns / 1e3, 0, 'f', 2); }

/// The GPU-only time, or why there is none.
QString gpuText(const std::vector<pim::Baseline>& baselines) {
  for (const pim::Baseline& b : baselines) {
    if (b.name != "gpu") continue;
    return b.available ? microseconds(b.eval.timeNs)
                       : QObject::tr("unavailable (%1)").arg(QString::fromStdString(b.reason));
  }
  return QObject::tr("–");
}

}  // namespace

QString whatIfChange(const pim::Backend& before, const pim::Backend& after) {
  QStringList changed;
  for (const pim::Parameter& p : before.parameters) {
    const pim::Parameter* q = after.param(p.key);
    if (q && q->value != p.value)
      changed << QStringLiteral("%1 %2")
                     .arg(QString::fromStdString(p.key.substr(p.key.find('.') + 1)))
                     .arg(p.value, 0, 'g', 12);
  }
  if (changed.size() > 2) return QObject::tr("%1 parameters as they were").arg(changed.size());
  return changed.join(QStringLiteral(", "));
}

void MainWindow::connectWhatIf() {
  connect(m_whatIf, &WhatIfPanel::backendEdited, this, [this](std::shared_ptr<const pim::Backend> b) {
    SessionConfig c = m_controls->config();
    c.backend = m_whatIf->original().name;
    c.backendOverride = m_whatIf->modified() ? std::move(b) : nullptr;
    startWhatIfRun(c);
  });
}

void MainWindow::startWhatIfRun(const SessionConfig& c) {
  const SessionConfig& prev = m_session->config();
  m_whatIfRun = false;
  if (m_session->problem() && prev.backend == c.backend && steeringChange(prev, c).isEmpty()) {
    const pim::Backend& was = m_session->problem()->backend();
    const pim::Backend& now = c.backendOverride ? *c.backendOverride : pim::builtinBackends().get(c.backend);
    const QString change = whatIfChange(was, now);
    if (m_session->running()) {
      // A burst of edits interrupts its own runs: the front to compare with is the last finished one.
      if (m_pareto->ghost()) m_pendingGhost = std::make_shared<ParetoGhost>(*m_pareto->ghost());
    } else if (!change.isEmpty()) {
      m_pendingGhost = std::make_shared<ParetoGhost>(
          ParetoPlot::captureGhost(*m_model, tr("front before (%1)").arg(change)));
      m_whatIfBestBefore = bestText();
      m_whatIfGpuBefore = gpuText(m_session->baselines());
    }
    m_whatIfRun = true;
  }
  startSession(c);
}

QString MainWindow::bestText() const {
  return bestDraft() ? microseconds(m_session->progress().bestNs) : tr("–");
}

void MainWindow::noteWhatIfFinished() {
  if (!m_whatIfRun || m_session->running()) return;
  m_whatIfRun = false;
  if (m_cancelled) {
    m_whatIf->setRunNote(tr("Re-run cancelled: the views show what it finished."));
    return;
  }
  QString note = tr("Explored the edited hardware: best %1 (was %2)").arg(bestText(), m_whatIfBestBefore);
  note += tr("; GPU only %1 (was %2)").arg(gpuText(m_session->baselines()), m_whatIfGpuBefore);
  m_whatIf->setRunNote(note + QStringLiteral("."));
}

}  // namespace pimgui
