// SPDX-License-Identifier: Apache-2.0
#include "engine/target/target.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "engine/codegen/ir_text.h"

namespace pim {

std::unique_ptr<ICandidateSpace> ITarget::candidates(const Problem& p, std::vector<bool> enabled,
                                                     const PruneRuleRegistry& rules) const {
  auto drafts = std::make_unique<DraftCandidateSpace>(p.space(), std::move(enabled), rules);
  CandidateIds ids = candidateIds(p);
  if (ids.choices() == 1) return drafts;
  return std::make_unique<ChoiceCandidateSpace>(std::move(drafts), std::move(ids));
}

const std::vector<SubPhaseDecl>& ITarget::subPhases() const {
  static const std::vector<SubPhaseDecl> none;
  return none;
}

const std::vector<StatDecl>& ITarget::factColumns() const {
  static const std::vector<StatDecl> none;
  return none;
}

const std::vector<std::string>& ITarget::featureNames() const {
  static const std::vector<std::string> none;
  return none;
}

std::unique_ptr<ICandidateEstimator> ITarget::estimator(const Problem&, const OptimizerOptions&) const {
  return nullptr;
}

std::vector<std::string> ITarget::check(const Problem& p) const {
  if (p.network() && !compilesNetworks())
    return {p.subject() + " is a whole network and family " + std::string(family()) +
            " runs kernels, not networks: networks compile on crossbar backends, and `pimscope-cli compare "
            "--network " +
            p.subject() + "` runs its layers one by one on " + p.backend().name};
  return checkProblem(p);
}

std::vector<TimeSegment> timeBreakdown(const ITarget& t, const Evaluation& e, double nsPerCycle) {
  static const char* kPhases[] = {"Input rearrangement", "Compute", "Output rearrangement"};
  const auto& subs = t.subPhases();
  const bool hasSubs = e.subCycles.size() == subs.size();
  std::vector<TimeSegment> out;
  for (int phase = 0; phase < 3; ++phase) {
    std::int64_t rest = e.cycles[static_cast<std::size_t>(phase)];
    bool split = false;
    for (std::size_t s = 0; hasSubs && s < subs.size(); ++s) {
      if (subs[s].phase != phase) continue;
      split = true;
      out.push_back({subs[s].label, phase, static_cast<double>(e.subCycles[s]) * nsPerCycle});
      rest -= e.subCycles[s];
    }
    if (!split) {
      out.push_back({kPhases[phase], phase, static_cast<double>(rest) * nsPerCycle});
    } else if (rest > 0) {
      out.push_back({std::string("Other ") + kPhases[phase], phase, static_cast<double>(rest) * nsPerCycle});
    }
  }
  return out;
}

bool timesPhase(const ITarget& t, int phase) {
  const auto& subs = t.subPhases();
  return subs.empty() ||
         std::any_of(subs.begin(), subs.end(), [&](const SubPhaseDecl& s) { return s.phase == phase; });
}

CandidateAnalysis ITarget::analyse(const Problem& p, const Draft& d, const EvalOptions& o) const {
  CandidateAnalysis a;
  auto attempt = [&](auto&& step) {
    try {
      step();
    } catch (const std::exception& e) {
      if (a.error.empty()) a.error = e.what();
    }
  };
  attempt([&] { a.mapping = mapDraft(p.space(), d, o.indexing); });
  if (a.mapping) {
    a.ir = irText(p.space(), *a.mapping);
    attempt([&] { a.layout = place(p, *a.mapping); });
  }
  attempt([&] { a.listing = listing(p, d, o, 400); });
  attempt([&] { a.evaluation = evaluate(p, d, o); });
  return a;
}

}  // namespace pim
