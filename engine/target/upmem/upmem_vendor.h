// SPDX-License-Identifier: Apache-2.0
// UPMEM's vendor schedule: PrIM's implementation (upmem.md, "PrIM's configurations"). PrIM splits the
// outermost axis of its largest tensor (GEMV's rows, VA's and RED's elements; BS's keys) evenly over the
// DPUs, with its default tasklets and block; as in IMTP's "PrIM" baseline, the DPU count is given (PrIM's
// NR_DPUS) or grid-searched over powers of two.
#pragma once
#include <functional>
#include <string>

#include "engine/codegen/upmem_codegen.h"
#include "engine/core/kernel_choices.h"
#include "engine/target/target.h"

namespace pim {

/// Times a draft run with the given kernel-level choices.
using UpmemRunner = std::function<Evaluation(const Draft&, const UpmemCodegenOptions&)>;

/// PrIM's schedule: its split with PrIM's choices `prim` (tasklets, block, output assignment). `dpus` > 0:
/// on exactly that many DPUs (an unavailable baseline saying why when they cannot be allocated or the data
/// does not fit them); 0: the fastest power of two. Its draft is the candidate of `ids` with those choices,
/// so `simulate --schedule draft:ID` runs it again.
Baseline primBaseline(const ITarget& self, const Problem& p, const CandidateIds& ids,
                      const UpmemCodegenOptions& prim, const UpmemRunner& run, int dpus = 0);

/// IMTP's "PrIM+search": PrIM's split, with its DPU count (powers of two), tasklets (PrIM's sweep: 1, 2, 4,
/// 8, 16) and block (2^8 to 2^11 B) grid-searched over `base`. Choices a limit refuses (WRAM, DMA size,
/// MRAM) are skipped and counted in the summary.
Baseline primSearchBaseline(const ITarget& self, const Problem& p, const CandidateIds& ids,
                            const UpmemCodegenOptions& base, const UpmemRunner& run);

}  // namespace pim
