// SPDX-License-Identifier: Apache-2.0
// The DRAM-PIM families' per-unit statistics: what the bank-level simulator keeps per bank, declared once
// (Ramulator's register_stat) next to the one conversion from its result into Evaluation::unitStats.
#pragma once
#include <vector>

#include "engine/target/target.h"
#include "sim/result.h"

namespace pim {

/// Pseudo-channels across, banks down, banded by PIM group and device; exported as the simulator numbers them
/// ("channel" = PIM group, "bank" = bank within the group).
UnitGeometry bankGeometry(const Backend& b);

/// The statistics kept per bank, in Evaluation::unitStats column order.
const std::vector<StatDecl>& bankStatisticDecls();

/// The simulator's per-bank statistics as unit statistics of `geometry` (unit = the bank's index in it), up
/// to the last unit simulated.
UnitStatistics bankStatistics(const std::vector<sim::BankStats>& banks, const UnitGeometry& geometry);

}  // namespace pim
