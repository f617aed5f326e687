// SPDX-License-Identifier: Apache-2.0
// Simulated cost of one draft: map it, place it on the banks, lower it to the backend's command program, run
// the bank-level simulator, and compose the fixed breakdown (input rearrangement, compute, output
// rearrangement; the parts add up to the total).
#pragma once
#include <cstdint>
#include <string>

#include "engine/codegen/device_config.h"
#include "engine/codegen/lowering.h"
#include "engine/core/evaluation.h"
#include "engine/core/problem.h"
#include "sim/channel_cache.h"

namespace pim {

/// Throws InputError when the backend cannot run the kernel or the draft's tiles do not fit the banks.
Evaluation evaluateDraft(const Problem& p, const Draft& d, const EvalOptions& o = {});

/// The command program evaluateDraft simulates for `d` (naive rearrangement is composed outside it), for
/// listings and export. Throws InputError as evaluateDraft does.
sim::Program draftProgram(const Problem& p, const Draft& d, const EvalOptions& o = {});

/// Program of a draft as a readable listing (one line per command or repeated block), for the GUI and export.
std::string commandListing(const sim::Program& prog, std::size_t maxLines = 400);

}  // namespace pim
