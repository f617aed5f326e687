// SPDX-License-Identifier: Apache-2.0
#include "views/draft_analysis.h"

#include <QMetaObject>
#include <chrono>
#include <exception>

#include "engine/codegen/ir_text.h"
#include "engine/codegen/lowering.h"
#include "engine/core/problem.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"

namespace pimgui {

DraftAnalysis analyseDraft(std::shared_ptr<const pim::Problem> problem, const pim::Draft& draft,
                           const std::vector<bool>& rules, const pim::EvalOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  DraftAnalysis a;
  a.problem = problem;
  a.draft = draft;
  try {
    // A candidate space memoises and is not thread-safe, so each analysis has its own.
    const auto space = pim::targetOf(problem->backend()).candidates(*problem, rules);
    a.label = space->label(draft);
    a.verdict = space->why(draft.id);
    pim::EvalOptions o = options;
    o.keepUnitStats = true;
    // The details say what the one-time placement of resident tensors costs (a second simulation, so the
    // search leaves it off; one draft here is cheap).
    o.preload = true;
    pim::CandidateAnalysis c = pim::analyseCandidate(*problem, draft, o);
    a.mapping = std::move(c.mapping);
    a.layout = std::move(c.layout);
    a.irText = std::move(c.ir);
    a.commands = std::move(c.listing);
    a.evaluation = std::move(c.evaluation);
    a.error = std::move(c.error);
  } catch (const std::exception& e) {
    a.error = e.what();
  }
  a.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return a;
}

DraftAnalysisRunner::DraftAnalysisRunner(QObject* parent) : QObject(parent) {}

DraftAnalysisRunner::~DraftAnalysisRunner() {
  // Running analyses post to `this`: wait for them (queued ones are dropped), not for the whole pool.
  m_tasks.closeAndWait();
}

void DraftAnalysisRunner::clear() {
  ++m_ticket;
  m_latest.reset();
  emit analysed(nullptr);
}

void DraftAnalysisRunner::request(std::shared_ptr<const pim::Problem> problem, std::uint64_t draftId,
                                  std::vector<bool> rules, pim::EvalOptions options) {
  if (!problem) return;
  const unsigned ticket = ++m_ticket;
  ++m_pending;
  m_tasks.start([this, ticket, problem, draftId, rules = std::move(rules), options] {
    auto result = std::make_shared<DraftAnalysis>();
    try {
      *result = analyseDraft(problem, pim::candidateOf(*problem, draftId), rules, options);
    } catch (const std::exception& e) {
      result->problem = problem;
      result->draft.id = draftId;
      result->error = e.what();
    }
    QMetaObject::invokeMethod(
        this,
        [this, ticket, result] {
          --m_pending;
          if (ticket != m_ticket) return;  // superseded by a newer selection
          m_latest = result;
          emit analysed(result);
        },
        Qt::QueuedConnection);
  });
}

}  // namespace pimgui
