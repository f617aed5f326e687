// SPDX-License-Identifier: Apache-2.0
// UPMEM's vendor schedule: PrIM's implementation (upmem.md, "PrIM's configurations"). PrIM splits the
// outermost axis of its largest tensor (GEMV's rows, VA's and RED's elements) evenly over the DPUs, with
// its default tasklets and block; as in IMTP's "PrIM" baseline, the DPU count is grid-searched over powers
// of two.
#pragma once
#include <functional>

#include "engine/target/target.h"

namespace pim {

/// `evaluate` times a draft as PrIM's code runs it (the target's code generator with PrIM's choices).
Baseline primBaseline(const ITarget& self, const Problem& p,
                      const std::function<Evaluation(const Draft&)>& evaluate);

}  // namespace pim
