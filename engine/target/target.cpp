// SPDX-License-Identifier: Apache-2.0
#include "engine/target/target.h"

#include <exception>

#include "engine/codegen/ir_text.h"

namespace pim {

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
