// SPDX-License-Identifier: Apache-2.0
#include "sim/config.h"

#include <algorithm>

namespace pim::sim {

void DeviceConfig::finalize() {
  const int bus = burstCycles();
  if (rdToPre < 0) rdToPre = bus + std::max(tRTPL, tCCDL) - tCCDL;
  if (wrToPre < 0) wrToPre = CWL + bus + tWR;
  if (rdToWr < 0) rdToWr = CL + bus + tRTRS - CWL;
  if (wrToRdS < 0) wrToRdS = CWL + bus + tWTRS;
  if (wrToRdL < 0) wrToRdL = CWL + bus + tWTRL;
  if (pimActToMac < 0) pimActToMac = tRCDRD;
  if (pimMacToMac < 0) pimMacToMac = tCCDL;
  if (pimMacToPre < 0) pimMacToPre = rdToPre;
  if (pimPreToAct < 0) pimPreToAct = tRP;
  if (pimActToAct < 0) pimActToAct = tRC;
  if (pimActToPre < 0) pimActToPre = tRAS;
}

namespace {
// Energies: the specs give none for the DRAM side, so these are stated estimates (see docs/simulator.md).
CommandEnergies dramEnergies(const char* device) {
  const std::string est = std::string("PIMScope estimate for ") + device + " (no figure in the specs)";
  CommandEnergies e;
  e.act = {909.0, est + ": ACT+PRE of a 1 KB row"};
  e.pre = {0.0, "folded into the ACT energy"};
  e.rd = {300.0, est + ": 256-bit internal column read, ~1.17 pJ/bit"};
  e.wr = {300.0, est + ": 256-bit internal column write, ~1.17 pJ/bit"};
  e.pimOp = {16 * 0.32, "16 FP16 MACs x 0.32 pJ/MAC (attacc.md, GPU MAC energy used as proxy)"};
  e.ref = {30000.0, est + ": one all-bank refresh of a rank"};
  e.hostIoByte = {28.72, "attacc.md: 28.72 pJ per off-chip byte"};
  e.bufMove = {300.0, est + ": one 32-B buffer move"};
  return e;
}
}  // namespace

DeviceConfig hbm2PimConfig(bool refreshOn) {
  DeviceConfig c;  // the defaults of DeviceConfig are the hbm2-pim.md timing table
  c.name = "hbm2-pim";
  c.tCK_ns = 1.0;
  c.pseudoChannels = 1;
  c.ranks = 2;
  c.bankGroups = 4;
  c.banksPerGroup = 4;
  c.rows = 16384;
  c.columns = 32;
  c.bytesPerColumn = 32;
  c.refresh = refreshOn;
  c.refreshScope = Scope::Rank;
  c.staggerRefresh = true;
  c.tFAW = 0;  // "tFAW is not enforced in the reference"
  c.separateRowColumnBus = false;
  c.energy = dramEnergies("HBM2");
  c.finalize();
  return c;
}

DeviceConfig attaccConfig(bool powerConstraint) {
  DeviceConfig c;
  c.name = powerConstraint ? "attacc" : "attacc-nopower";
  c.tCK_ns = 0.769;
  c.pseudoChannels = 2;
  c.ranks = 2;
  c.bankGroups = 4;
  c.banksPerGroup = 4;
  c.rows = 16384;
  c.columns = 32;
  c.bytesPerColumn = 32;
  c.BL = 4;
  c.burstCyclesOverride = 2;  // nBL 2
  c.CL = 19;
  c.CWL = 6;
  c.tRCDRD = 19;
  c.tRCDWR = 19;
  c.tRP = 19;
  c.tRAS = 45;
  c.tRC = 63;
  c.tWR = 21;
  c.tRTPS = 6;
  c.tRTPL = 8;
  c.tCCDS = 2;
  c.tCCDL = 4;
  c.tRRDS = 2;
  c.tRRDL = 4;
  c.tWTRS = 8;
  c.tWTRL = 11;
  c.tFAW = 39;
  c.tRFC = 456;
  c.tREFI = 5070;
  c.refresh = true;
  c.refreshScope = Scope::PseudoChannel;
  c.staggerRefresh = false;
  c.rrdFawScope = Scope::Rank;  // as the reference: two windows per pseudo-channel
  c.separateRowColumnBus = true;
  // Ramulator 2 HBM3 style derived constraints.
  c.rdToPre = c.tRTPL;            // 8 (= MACAB -> PREA)
  c.wrToPre = c.CWL + 2 + c.tWR;  // 29
  c.pimActToMac = 19;
  c.pimMacToMac = powerConstraint ? 6 : 4;
  c.pimMacToPre = 8;
  c.pimPreToAct = 19;
  c.pimActToAct = 63;
  c.pimActToPre = 45;
  c.energy = dramEnergies("HBM3");
  c.finalize();
  return c;
}

DeviceConfig hbmPimHbm3Config() {
  DeviceConfig c = attaccConfig(false);
  c.name = "hbm-pim";
  return c;
}

}  // namespace pim::sim
