// SPDX-License-Identifier: Apache-2.0
#include "views/run_confirmation.h"

#include <QCheckBox>
#include <QMessageBox>
#include <QMetaObject>
#include <QPushButton>
#include <exception>

#include "engine/predict/predictor.h"
#include "engine/search/strategy.h"
#include "engine/target/registry.h"
#include "views/exploration_session.h"

namespace pimgui {

RunConfirmation::RunConfirmation(QWidget* dialogParent) : QObject(dialogParent), m_parent(dialogParent) {}

RunConfirmation::~RunConfirmation() {
  if (m_stopEstimate) m_stopEstimate->store(true);  // a long preparation stops rather than hold the exit
  m_tasks.closeAndWait();
  if (m_question) m_question->deleteLater();
}

void RunConfirmation::setEnabled(bool on) {
  if (on == m_enabled) return;
  m_enabled = on;
  emit enabledChanged(on);
}

bool RunConfirmation::drop() {
  ++m_generation;
  if (m_stopEstimate) m_stopEstimate->store(true);
  if (m_question) m_question->close();
  if (!m_estimating) return false;
  m_estimating = false;
  emit estimatingChanged({});
  return true;
}

void RunConfirmation::cancel() {
  if (drop()) emit estimateCancelled();
}

void RunConfirmation::request(const SessionConfig& c, std::function<void()> start) {
  drop();
  if (!m_enabled) {
    start();
    return;
  }
  const unsigned generation = m_generation;
  m_estimating = true;
  m_stopEstimate = std::make_shared<std::atomic<bool>>(false);
  emit estimatingChanged(tr("estimating the run time (a few sample simulations)"));
  m_tasks.start([this, generation, c, stop = m_stopEstimate, start = std::move(start)]() mutable {
    std::optional<pim::RunEstimate> estimate;
    try {
      const auto problem = makeProblem(c);
      // The family's own work first (pim-hierarchy: the searches behind its candidate list), shown as it
      // goes; the run that follows finds it done.
      pim::PrepareControl control;
      control.cancel = stop.get();
      control.report = [this, generation](const std::string& line) {
        QMetaObject::invokeMethod(
            this,
            [this, generation, text = QString::fromStdString(line)] {
              if (generation == m_generation && m_estimating) emit estimatingChanged(text);
            },
            Qt::QueuedConnection);
      };
      if (!pim::targetOf(problem->backend()).prepare(*problem, control)) return;  // dropped: nothing to say
      pim::ExploreOptions o = exploreOptionsFor(c);
      // As the session does: a model-ranked strategy without a shipped model runs its fallback, capped.
      const pim::StrategyInfo& s = pim::StrategyRegistry::builtin().get(o.strategy);
      const bool model = s.predictions == pim::PredictionUse::Required &&
                         pim::sharedShippedModel(problem->backend()).model != nullptr;
      if (s.predictions == pim::PredictionUse::Required && !model && o.maxSimulations == 0)
        o.maxSimulations = kFallbackSimulations;
      estimate = pim::estimateRun(*problem, o, model);
    } catch (const std::exception&) {
      // The run itself says what is wrong (the verdict banner, the status bar); nothing to estimate.
    }
    QMetaObject::invokeMethod(
        this,
        [this, generation, estimate, start = std::move(start)]() mutable {
          if (generation != m_generation) return;  // superseded or cancelled
          m_estimating = false;
          emit estimatingChanged({});
          m_last = estimate;
          if (!estimate || estimate->seconds <= kLongRunSeconds) {
            start();
            return;
          }
          decide(*estimate, std::move(start));
        },
        Qt::QueuedConnection);
  });
}

void RunConfirmation::decide(const pim::RunEstimate& e, std::function<void()> start) {
  auto* box = new QMessageBox(QMessageBox::Question, tr("Long run"),
                              tr("This exploration is estimated to take %1, plus the baselines. Start it?")
                                  .arg(QString::fromStdString(pim::estimateText(e))),
                              QMessageBox::NoButton, m_parent);
  box->setInformativeText(
      tr("While it runs, the status bar shows its progress and the time left, and Cancel (Esc) stops it "
         "keeping what it found. A smaller shape, a simulation cap or the predictor strategy is faster."));
  QPushButton* go = box->addButton(tr("Start"), QMessageBox::AcceptRole);
  box->addButton(QMessageBox::Cancel);
  box->setDefaultButton(go);
  auto* dontAsk = new QCheckBox(tr("Don't ask before long runs"));
  box->setCheckBox(dontAsk);
  box->setAttribute(Qt::WA_DeleteOnClose);
  const unsigned generation = m_generation;
  connect(box, &QMessageBox::buttonClicked, this,
          [this, go, dontAsk, generation, start = std::move(start)](QAbstractButton* clicked) {
            if (generation != m_generation || clicked != go) return;
            if (dontAsk->isChecked()) setEnabled(false);
            start();
          });
  m_question = box;
  box->open();
}

}  // namespace pimgui
