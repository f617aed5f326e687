// SPDX-License-Identifier: Apache-2.0
// The command program of a DRAM-PIM draft, for tests, benchmarks and listings.
#pragma once
#include <cstddef>
#include <string>

#include "engine/core/evaluation.h"
#include "engine/core/problem.h"
#include "sim/program.h"

namespace pim {

/// The program the DRAM-PIM target simulates for `d` (naive rearrangement is composed outside it). Throws
/// InputError when `p` is not a DRAM-PIM problem, cannot run or the draft does not fit.
sim::Program draftProgram(const Problem& p, const Draft& d, const EvalOptions& o = {});
/// The staged one-time placement of `p`'s resident inputs in `d`'s layout (LoweringInput::preload).
sim::Program preloadProgram(const Problem& p, const Draft& d, const EvalOptions& o = {});

/// A program as a readable listing (one line per command or repeated block), at most `maxLines` lines.
std::string commandListing(const sim::Program& prog, std::size_t maxLines = 400);

}  // namespace pim
