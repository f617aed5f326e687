// SPDX-License-Identifier: Apache-2.0
#pragma once
// Lower bounds on a channel program's completion from command counts alone, for branch and bound: a program
// that provably takes longer than the best known one need not be simulated at all.
#include <cstdint>

#include "sim/config.h"
#include "sim/program.h"

namespace pim::sim {

/// Cycles the program needs at least, whatever the timing state: phases run one after the other (a phase
/// change is a full fence), and within a phase every pseudo-channel's data bus carries one burst per
/// burstCycles() (column commands and buffer moves hold it, from issue to issue) and all-bank PIM commands
/// are spaced pimMacToMac. `cfg` must be finalized. Never above what simulate() reports (tests check it).
int64_t lowerBoundCycles(const DeviceConfig& cfg, const ChannelProgram& prog);

}  // namespace pim::sim
