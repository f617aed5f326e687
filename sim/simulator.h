// SPDX-License-Identifier: Apache-2.0
#pragma once
// Entry point: simulate a Program on a device. Each distinct channel program is simulated once (found by its
// content hash, confirmed by comparison) and its result replicated to every channel that runs it; per-bank
// statistics stay exact for every bank of every channel.
#include "sim/config.h"
#include "sim/frontend.h"
#include "sim/program.h"
#include "sim/result.h"
#include "sim/scheduler.h"

namespace pim::sim {

class ChannelRunCache;

/// Version of the timing model: bumped whenever the simulated time of a given program changes, so that
/// results stored by an older simulator are not taken for current ones (the store keys labels and lookups
/// by it). 2: host streams interleave pseudo-channels as an FR-FCFS controller does. 3: host transfers at
/// burst granularity (the lowered program changes; the version covers the whole pipeline a label comes from).
/// 4: HBM2-PIM protocol as the vendor library issues it (mode switches are WR transactions, AB->SB gates
/// later ACTs) and DRAMSim2's lazy refresh on hbm2-pim. 5: AttAcc's MACAB on a data path of its own (buffer
/// moves issue alongside it) and its attention program's software pipelining of head pairs.
inline constexpr int kTimingModelVersion = 6;

struct SimOptions {
  TraceWindow trace;  // trace window in cycles (events of the first channel running each distinct program)
  bool fastForward = true;  // skip periodic iterations of repeated blocks (exact; off when tracing)
  /// Branch and bound: when > 0, stop as soon as some channel has a command completing after this cycle. The
  /// program then provably takes longer than `stopAfterCycles` (phases only add up and every channel's
  /// completion time only grows), and the result says so (Result::stoppedEarly) instead of timing the rest.
  /// Programs whose command counts alone prove it (sim/bounds.h) are not simulated at all.
  int64_t stopAfterCycles = 0;
  /// Channel runs reused across calls (not owned; one per thread). Ignored while tracing.
  ChannelRunCache* cache = nullptr;
  /// Barriers are global steps (the DCC artifact's frontend, which sends one trace in order and stalls on a
  /// channel's barrier until that channel drained): after its k-th barrier no channel issues a column
  /// command before every channel has drained up to its own k-th barrier (the drain point of a
  /// BarrierMode::Drain barrier; other modes have none). The cache is then not used (a channel's run depends
  /// on the others).
  bool globalBarriers = false;
  /// With globalBarriers: the order in which an in-order frontend sends the program's requests (not owned);
  /// every request is then held until the frontend has sent it (sim/frontend.h). Each channel is simulated
  /// on its own, without fast-forward.
  const FrontendOrder* frontend = nullptr;
};

Result simulate(const DeviceConfig& cfg, const Program& prog, const SimOptions& opts = {});

}  // namespace pim::sim
