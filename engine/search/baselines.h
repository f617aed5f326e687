// SPDX-License-Identifier: Apache-2.0
// The schedules DCC improves on, from the problem's target: the vendor library's schedule, and GPU-only
// execution on the host.
#pragma once
#include "engine/search/evaluate.h"
#include "engine/target/target.h"

namespace pim {

/// The vendor-default schedule of `p`'s backend, or unavailable with the reason.
Baseline vendorBaseline(const Problem& p, const EvalOptions& o = {});

/// GPU-only execution on the host, or unavailable with the reason.
Baseline gpuBaseline(const Problem& p);

/// The family's further baselines (ITarget::familyBaselines), each named.
std::vector<Baseline> familyBaselines(const Problem& p, const EvalOptions& o = {});

}  // namespace pim
