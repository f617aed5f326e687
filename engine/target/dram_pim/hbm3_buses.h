// SPDX-License-Identifier: Apache-2.0
// What the HBM3-based devices (AttAcc, DCC's HBM-PIM) share: attacc.md's command buses and refresh.
#pragma once
#include <vector>

#include "engine/hw/backend.h"
#include "engine/target/target.h"
#include "sim/config.h"

namespace pim {

/// Separate row and column command buses, REF per pseudo-channel (not staggered), Ramulator 2 HBM3-style
/// read/write-to-precharge spacings.
inline void configureHbm3Buses(const Backend& b, sim::DeviceConfig& c) {
  c.separateRowColumnBus = true;
  c.refreshScope = sim::Scope::PseudoChannel;
  c.staggerRefresh = false;
  c.rdToPre = b.timing.tRTPL;
  c.wrToPre = b.timing.CWL + c.burstCycles() + b.timing.tWR;
}

/// Measured, not proven (WhatIfParameters.*): since host transfers are burst-granular (timing model 3) no
/// program of these devices reads within timing.tWTRL of a write to another bank group of its pseudo-channel,
/// so the same-bank-group figure (which the schema keeps at least as large) governs every turnaround.
inline void hbm3UnreadTurnaround(std::vector<UnreadParameter>& out) {
  out.push_back({"timing.tWTRS",
                 "no read of these programs follows a write to another bank group closely enough for it to "
                 "matter (timing.tWTRL, at least as large, governs); the simulator still applies it"});
}

}  // namespace pim
