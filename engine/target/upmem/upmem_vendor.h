// SPDX-License-Identifier: Apache-2.0
// UPMEM's vendor schedule: PrIM's implementation (upmem.md, "PrIM's configurations"). PrIM splits the
// outermost axis of its largest tensor (GEMV's rows, VA's and RED's elements) evenly over the DPUs, with
// its default tasklets and block; as in IMTP's "PrIM" baseline, the DPU count is given (PrIM's NR_DPUS) or
// grid-searched over powers of two.
#pragma once
#include <functional>
#include <string>

#include "engine/codegen/upmem_codegen.h"
#include "engine/target/target.h"

namespace pim {

/// `evaluate` times a draft as PrIM's code runs it (the target's code generator with PrIM's choices, which
/// `choices` names for the summary: "16 tasklets, 1024-B blocks"). `dpus` > 0: on exactly that many DPUs (an
/// unavailable baseline saying why when they cannot be allocated or the data does not fit them); 0: the
/// fastest power of two.
Baseline primBaseline(const ITarget& self, const Problem& p,
                      const std::function<Evaluation(const Draft&)>& evaluate, const std::string& choices,
                      int dpus = 0);

/// IMTP's "PrIM+search": PrIM's split, with its DPU count (powers of two), tasklets (PrIM's sweep: 1, 2, 4,
/// 8, 16) and block (2^8 to 2^11 B) grid-searched; `evaluate` times a draft under given choices. Choices a
/// limit refuses (WRAM, DMA size, MRAM) are skipped and counted in the summary.
Baseline primSearchBaseline(
    const ITarget& self, const Problem& p, const UpmemCodegenOptions& base,
    const std::function<Evaluation(const Draft&, const UpmemCodegenOptions&)>& evaluate);

}  // namespace pim
