// SPDX-License-Identifier: Apache-2.0
// What a compiled network keeps per core (the crossbar family's per-unit statistics, ITarget::statistics):
// one definition the per-core map of the compile window and the kernel explorer's heat map both read.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "engine/target/crossbar/network_compile.h"
#include "engine/target/target.h"

namespace pim {

/// The statistics in declaration order (crossbarCoreStatistics()).
enum class CoreStat : int { CrossbarUse, MvmBusy, CommunicationBytes, Layers, LocalMemoryPeak, SpillBytes };
inline constexpr std::size_t kCoreStats = 6;

const std::vector<StatDecl>& crossbarCoreStatistics();

/// Statistic `s` of core `core` in `r`; 0 for a core the result has no figure for (an LL-only statistic of an
/// HT compile, spills where local memory is unbounded).
double coreStatistic(const NetworkCompileResult& r, std::size_t core, CoreStat s);

/// "conv1: 3 AGs, fc: 1 AG" (at most `listed` layers, the rest counted; `separator` between them), or "no
/// array group".
std::string coreLayersText(const NetworkCompileResult& r, std::size_t core, std::size_t listed = 12,
                           const std::string& separator = ", ");

/// Every statistic of every core, in the geometry's order (core index), each noted with its index and layers.
UnitStatistics coreStatistics(const NetworkCompileResult& r);

}  // namespace pim
