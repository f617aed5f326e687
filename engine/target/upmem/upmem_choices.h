// SPDX-License-Identifier: Apache-2.0
// UPMEM's kernel-level choices beside a draft (IMTP's joint space, section 5.2.1): tasklets per DPU, the
// WRAM caching tile per streamed operand, and for kernels that reduce, how tasklets share the reduction
// (IMTP's rfactor within a DPU), and whose loops run (generated ones with IMTP's boundary-check passes, or
// PrIM's hand-written ones), and for a histogram or a scan PrIM's two ways (HST-S or HST-L, SCAN-SSA or
// SCAN-RSS). Each axis starts with the backend's own value (pim.tasklets, pim.blockBytes, the
// automatic split), so draft ids keep their meaning (engine/core/kernel_choices.h).
#pragma once
#include <cstdint>
#include <optional>

#include "engine/codegen/upmem_codegen.h"
#include "engine/core/kernel_choices.h"

namespace pim {

/// The key of the tasklet-split axis and the text of each of its values (what a mapping's level 3 and a
/// mapping file's "choices" name it by).
inline constexpr const char* kTaskletSplitKey = "tasklet_split";
const char* taskletSplitText(TaskletSplit s);

/// The axes for `p` given the backend's own choices `own`: tasklets 1, 2, 4, 8, 12, 16, 20, 24 (up to
/// own.maxTasklets), tiles of 32 to 2,048 B (up to own.dmaMaxBytes), and the split where a statement
/// reduces.
ChoiceAxes upmemChoiceAxes(const Kernel& k, const UpmemCodegenOptions& own);

/// `o` running PrIM's code: its hand-written loops (blocks sized to what is left) and host code (RED reads
/// back every tasklet's 16-B result record).
UpmemCodegenOptions withPrimCode(UpmemCodegenOptions o);

/// `own` with the choices candidate `id` makes (the boundary-check passes stay `own`'s).
UpmemCodegenOptions upmemChoicesOf(const CandidateIds& ids, std::uint64_t id, UpmemCodegenOptions own);

/// The id of draft `draft` run with `o`'s tasklets, tile, split and loops; nullopt when an axis lacks one of
/// them (a value the axes do not offer).
std::optional<std::uint64_t> upmemCandidateId(const CandidateIds& ids, std::uint64_t draft,
                                              const UpmemCodegenOptions& o);

}  // namespace pim
