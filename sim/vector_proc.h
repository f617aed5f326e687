// SPDX-License-Identifier: Apache-2.0
#pragma once
// CoMoNM's VECTOR_PROC compute engine (seed 003, section V and Algorithm 1) for DRAM-PIM command programs:
// each channel is one blocking instruction stream. A command issues when the one before it allows (the DRAM
// timing between the two: tCCD_L between columns, the read/write turnarounds, tRCD after an activate, the
// read/write-to-precharge delays, tRP and tRAS), with a row opened (tRP + tRCD) where a column command finds
// its bank on another row. Nothing overlaps: no command of one bank runs under another's, and refresh is not
// modelled. The estimate is a phase's cycles, the slowest channel's; it is what HBM-PIM's lockstep all-bank
// mode mostly is, and its error against the bank-level engine (simulator.h) is what the premise costs.
#include <cstdint>

#include "sim/config.h"
#include "sim/program.h"

namespace pim::sim {

/// Cycles of phase `phase` of `prog` on `cfg` under VECTOR_PROC: every channel program walked once, loops
/// and repeated commands counted, not expanded.
std::int64_t vectorProcCycles(const DeviceConfig& cfg, const Program& prog, Phase phase);

}  // namespace pim::sim
