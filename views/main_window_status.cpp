// SPDX-License-Identifier: Apache-2.0
// The main window's status bar: the live counts (what the views show), the prediction accuracy and the
// message a finished run leaves (done, cancelled, refused drafts).
#include <QStatusBar>
#include <utility>

#include "engine/predict/model_fit.h"
#include "engine/search/strategy.h"
#include "views/control_panel.h"
#include "views/draft_table_model.h"
#include "views/elided_label.h"
#include "views/exploration_session.h"
#include "views/main_window.h"
#include "views/run_progress.h"
#include "views/search_progress_plot.h"

namespace pimgui {

QString MainWindow::cancelledText() const {
  // The counts of what the views show (the engine keeps nothing after the cancel, so they are what it did).
  const pim::ExploreProgress& done = m_session->progress();
  const int shown = m_model->simulatedRows();
  // Before the simulation stage planned any ("0 of 0 simulated" read as a finished, empty search).
  QString msg = done.toSimulate == 0 && done.simulated == 0
                    ? tr("Cancelled before any draft was simulated")
                    : tr("Cancelled after %L1 of %L2 simulated").arg(shown).arg(done.toSimulate);
  // Compute-only runs (compute-centric's first step) count as evaluations but have no row of their own.
  if (done.simulated > static_cast<std::uint64_t>(shown))
    msg += tr(" (and %L1 compute-only runs, not listed)")
               .arg(done.simulated - static_cast<std::uint64_t>(shown));
  return msg + tr("; %L1 kept drafts listed").arg(m_model->keptRows());
}

QString MainWindow::finishedText() {
  // What the run finished, not the rows listed: every kept draft has a row, evaluated or not.
  QString msg = m_cancelled ? cancelledText() : tr("Done in %1 s").arg(m_runClock.elapsed() / 1e3, 0, 'f', 2);
  if (!m_restoreMessage.isEmpty()) msg = std::exchange(m_restoreMessage, QString());
  if (!m_importNote.isEmpty()) msg = std::exchange(m_importNote, QString()) + QStringLiteral(" · ") + msg;
  if (const pim::ExploreProgress& p = m_session->progress(); p.modelUsed) {
    // The verdict first: a narrow window cuts the end of the line short.
    if (!p.outOfDistribution.empty()) msg += tr(" · out of distribution");
    msg +=
        tr(" · predictions %1")
            .arg(QString::fromStdString(pim::predictionAccuracyText(p.predictionError, p.outOfDistribution)));
  }
  if (!m_session->note().isEmpty()) msg += QStringLiteral(" · ") + m_session->note();
  // Nothing labelled: the reason is the verdict, first. Some refused (tiles that do not fit, in a search of
  // every draft), or a Cancel before anything was labelled: said after what the run finished.
  if (const QString failed = failedText(); !failed.isEmpty())
    msg = nothingLabelled() ? failed + QStringLiteral(" · ") + msg : msg + QStringLiteral(" · ") + failed;
  return msg;
}

QString MainWindow::failedText() const {
  // Drafts the run could not label (a DCC-artifact model refuses drafts wider than one stack): say how many
  // and why, first, so an empty plot is not mistaken for a finished search.
  const pim::ExploreProgress& p = m_session->progress();
  if (p.failed == 0) return {};
  std::string first;
  for (const pim::DraftRecord& r : m_session->records()) {
    if (!r.error.empty()) {
      first = r.error;
      break;
    }
  }
  const QString why = QString::fromStdString(first);
  return nothingLabelled() ? tr("No draft could be labelled (%L1 refused): %2").arg(p.failed).arg(why)
                           : tr("%L1 drafts could not be labelled (first: %2)").arg(p.failed).arg(why);
}

bool MainWindow::nothingLabelled() const {
  // A run cancelled after refusals only has not shown that no draft can be labelled: its verdict is the
  // Cancel.
  const pim::ExploreProgress& p = m_session->progress();
  return !m_cancelled && p.failed > 0 && p.simulated == p.failed;
}

void MainWindow::updateStatus() {
  const pim::ExploreProgress& p = m_session->progress();
  // Until the last row is in the views, not only until the engine is done.
  m_runProgress->showProgress(p, m_session->running() || m_awaitFinal || m_finalArrived || m_feeding);
  QString best = tr("best –");
  if (auto id = bestDraft()) best = tr("best #%1 %2 µs").arg(*id).arg(p.bestNs / 1e3, 0, 'f', 2);
  QString pruned = tr("pruned");
  for (const pim::RuleCount& r : p.pruned) pruned += tr(" r%1 %L2").arg(r.number).arg(r.removed);
  m_counts->setText(
      tr("%1 · generated %L2 · %3 · remaining %L4 · predicted %L5%6 · simulated %L7 · %8 · %9 s")
          .arg(QString::fromStdString(p.stage))
          .arg(p.generated)
          .arg(pruned)
          .arg(p.remaining)
          .arg(p.predicted)
          .arg(predictionNote(p))
          .arg(m_model->simulatedRows())
          .arg(best)
          .arg(p.elapsedSeconds, 0, 'f', 1));
  // The whole line (the label may be cut short on a narrow window), and the model's accuracy.
  QString tip = m_counts->text();
  if (p.modelUsed) {
    tip +=
        tr("\nPredictions: %1")
            .arg(QString::fromStdString(pim::predictionAccuracyText(p.predictionError, p.outOfDistribution)));
  }
  m_counts->setToolTip(tip);
  if (p.modelUsed) m_model->setPredictionAccuracy(p.predictionError, !p.outOfDistribution.empty());
}

QString MainWindow::predictionNote(const pim::ExploreProgress& p) {
  if (!p.modelUsed) return {};
  const pim::MeasuredError& e = p.predictionError;
  QString note = e.confirmations
                     ? tr(" (±%1% on %L2 confirmed").arg(e.mapePct(), 0, 'f', 1).arg(e.confirmations)
                     : tr(" (error not measured yet");
  return note + (p.outOfDistribution.empty() ? tr(")") : tr(", out of distribution)"));
}

QString MainWindow::countsText() const { return m_counts->text(); }

void MainWindow::updateSearchProgress(const std::vector<pim::DraftRecord>& records) {
  const std::string& name = m_session->config().strategy;
  const pim::StrategyInfo* s = pim::StrategyRegistry::builtin().find(name);
  m_searchProgress->setRecords(records, QString::fromStdString(name), s && !s->listsKept);
}

}  // namespace pimgui
