// SPDX-License-Identifier: Apache-2.0
// What the HBM3-based devices (AttAcc, DCC's HBM-PIM) share: attacc.md's command buses and refresh.
#pragma once
#include "engine/hw/backend.h"
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

}  // namespace pim
