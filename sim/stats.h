// SPDX-License-Identifier: Apache-2.0
#pragma once
// Per-bank statistics, command-bus utilisation and energy, replicated from the simulated distinct programs.
#include <memory>
#include <vector>

#include "sim/config.h"
#include "sim/program.h"
#include "sim/result.h"
#include "sim/scheduler.h"

namespace pim::sim {

void accumulateStats(const DeviceConfig& cfg, const Program& prog,
                     const std::vector<std::shared_ptr<const ChannelRun>>& runs,
                     const std::vector<size_t>& progToSim, Result& res);

}  // namespace pim::sim
