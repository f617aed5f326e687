// SPDX-License-Identifier: Apache-2.0
// A conv mapping's cost as the common Evaluation (engine/core/evaluation.h): the model's latency in the
// compute phase split into the bound that sets it, energy by level, and DRAM row statistics per bank and
// time slice from the trace simulator (sim/row_trace). Also the listing the details pane shows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/target/pim_hierarchy/mapping_candidates.h"
#include "engine/target/target.h"

namespace pim {

/// Time slices the per-unit statistics split the traced nest into (the heat map's columns).
inline constexpr int kTraceSlices = 16;
/// Most steps the trace takes for per-unit statistics (convmap::traceSteps, 10^7, docs/knobs.md): about half
/// a second, so a heat map follows a click; below convmap::kMaxTraceSteps, which `map --trace` may take.
inline constexpr std::int64_t kMaxStatsTraceSteps = 10'000'000;
/// Banks the statistics are kept for: the model puts each tensor in its own bank (input 0, weight 1,
/// output 2).
inline constexpr int kTraceBanks = 3;

const std::vector<SubPhaseDecl>& hierarchySubPhases();
const std::vector<StatDecl>& hierarchyStatistics();
/// The per-candidate figures the drafts table shows beside the fixed columns (Evaluation::facts keys).
const std::vector<StatDecl>& hierarchyFactColumns();

/// The evaluation of mapping `m` (candidate `id`). Per-unit statistics when `o.keepUnitStats` and the trace
/// takes at most kMaxStatsTraceSteps; `traceNote` then stays empty, else it says why there are none.
Evaluation hierarchyEvaluation(const HierarchyContext& c, const convmap::ConvMapping& m, std::uint64_t id,
                               const EvalOptions& o, std::string* traceNote = nullptr);

/// The mapping, its costs per level and tensor and its loop nest, at most `maxLines` lines.
std::string hierarchyListing(const HierarchyContext& c, const convmap::ConvMapping& m, std::size_t maxLines);

}  // namespace pim
