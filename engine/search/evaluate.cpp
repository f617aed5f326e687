// SPDX-License-Identifier: Apache-2.0
#include "engine/search/evaluate.h"

#include <utility>

#include "engine/common/error.h"
#include "engine/target/registry.h"

namespace pim {

Evaluation evaluateDraft(const Problem& p, const Draft& d, const EvalOptions& o) {
  return targetOf(p.backend()).evaluate(p, d, o);
}

CandidateAnalysis analyseCandidate(const Problem& p, const Draft& d, const EvalOptions& o) {
  return targetOf(p.backend()).analyse(p, d, o);
}

std::string draftIr(const Problem& p, const Draft& d, const EvalOptions& o) {
  CandidateAnalysis a = analyseCandidate(p, d, o);
  if (a.ir.empty()) throw InputError(a.error);
  return std::move(a.ir);
}

std::string draftListing(const Problem& p, const Draft& d, const EvalOptions& o, std::size_t maxLines) {
  return targetOf(p.backend()).listing(p, d, o, maxLines);
}

}  // namespace pim
