// SPDX-License-Identifier: Apache-2.0
#pragma once
// Entry point: simulate a Program on a device. Each distinct channel program is simulated once (identified by
// content hash) and its result replicated to every channel that runs it; per-bank statistics stay exact for
// every bank of every channel.
#include "sim/config.h"
#include "sim/program.h"
#include "sim/result.h"
#include "sim/scheduler.h"

namespace pim::sim {

struct SimOptions {
  TraceWindow trace;  // trace window in cycles (events of the first channel running each distinct program)
  bool fastForward = true;  // skip periodic iterations of repeated blocks (exact; off when tracing)
};

Result simulate(const DeviceConfig& cfg, const Program& prog, const SimOptions& opts = {});

}  // namespace pim::sim
