// SPDX-License-Identifier: Apache-2.0
#include "engine/search/baselines.h"

#include "engine/target/registry.h"

namespace pim {

Baseline vendorBaseline(const Problem& p, const EvalOptions& o) { return targetOf(p.backend()).vendor(p, o); }

Baseline gpuBaseline(const Problem& p) { return targetOf(p.backend()).gpu(p); }

std::vector<Baseline> familyBaselines(const Problem& p, const EvalOptions& o) {
  return targetOf(p.backend()).familyBaselines(p, o);
}

}  // namespace pim
