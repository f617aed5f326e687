// SPDX-License-Identifier: Apache-2.0
// The cost of one draft, from the target of the problem's hardware family (engine/target): for the DRAM-PIM
// families a bank-level simulation of the lowered command program, with the fixed breakdown (input
// rearrangement, compute, output rearrangement; the parts add up to the total).
#pragma once
#include <cstddef>
#include <string>

#include "engine/core/evaluation.h"
#include "engine/core/problem.h"
#include "engine/target/target.h"

namespace pim {

/// Throws InputError when the backend cannot run the kernel or the draft does not fit the hardware.
Evaluation evaluateDraft(const Problem& p, const Draft& d, const EvalOptions& o = {});

/// Mapping, placement, IR, listing and evaluation of one draft, mapped and lowered once (the details pane).
CandidateAnalysis analyseCandidate(const Problem& p, const Draft& d, const EvalOptions& o = {});

/// The draft's IR as the details pane shows it (with what the lowered code does for each reduction).
/// Throws InputError when the draft cannot be mapped.
std::string draftIr(const Problem& p, const Draft& d, const EvalOptions& o = {});

/// What the hardware executes for the draft (commands, instructions), readable, at most `maxLines` lines.
/// Throws InputError as evaluateDraft does.
std::string draftListing(const Problem& p, const Draft& d, const EvalOptions& o = {},
                         std::size_t maxLines = 400);

}  // namespace pim
