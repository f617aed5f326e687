// SPDX-License-Identifier: Apache-2.0
// UPMEM's vendor schedule: PrIM's implementation (upmem.md, "PrIM's configurations"). PrIM splits the
// outermost axis of its largest tensor (GEMV's rows, VA's and RED's elements) evenly over the DPUs, with
// its default tasklets and block; as in IMTP's "PrIM" baseline, the DPU count is grid-searched over powers
// of two.
#pragma once
#include "engine/target/target.h"

namespace pim {

Baseline primBaseline(const ITarget& self, const Problem& p, const EvalOptions& o);

}  // namespace pim
