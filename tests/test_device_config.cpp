// SPDX-License-Identifier: Apache-2.0
// The simulator configuration derived from the shipped backend files (the only description of a device) must
// hold the specs' numbers the simulator is calibrated with, so the calibration holds for what users run.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/common/error.h"
#include "engine/target/dram_pim/device_config.h"
#include "engine/target/registry.h"
#include "sim/simulator.h"
#include "sim/vendor_attacc.h"
#include "sim/vendor_hbm2pim.h"

namespace pim {
namespace {

void expectSameTiming(const sim::DeviceConfig& a, const sim::DeviceConfig& b) {
  EXPECT_DOUBLE_EQ(a.tCK_ns, b.tCK_ns);
  EXPECT_EQ(a.pseudoChannels, b.pseudoChannels);
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.banksPerChannel(), b.banksPerChannel());
  EXPECT_EQ(a.burstCycles(), b.burstCycles());
  for (auto [x, y] : {std::pair{a.CL, b.CL},
                      {a.CWL, b.CWL},
                      {a.tRCDRD, b.tRCDRD},
                      {a.tRCDWR, b.tRCDWR},
                      {a.tRP, b.tRP},
                      {a.tRAS, b.tRAS},
                      {a.tRC, b.tRC},
                      {a.tCCDS, b.tCCDS},
                      {a.tCCDL, b.tCCDL},
                      {a.tRRDS, b.tRRDS},
                      {a.tRRDL, b.tRRDL},
                      {a.tFAW, b.tFAW},
                      {a.tWR, b.tWR},
                      {a.tWTRS, b.tWTRS},
                      {a.tWTRL, b.tWTRL},
                      {a.tRTPS, b.tRTPS},
                      {a.tRTPL, b.tRTPL},
                      {a.tREFI, b.tREFI},
                      {a.tRFC, b.tRFC},
                      {a.rdToPre, b.rdToPre},
                      {a.wrToPre, b.wrToPre},
                      {a.rdToWr, b.rdToWr},
                      {a.wrToRdL, b.wrToRdL},
                      {a.pimActToMac, b.pimActToMac},
                      {a.pimMacToMac, b.pimMacToMac},
                      {a.pimMacToPre, b.pimMacToPre},
                      {a.pimPreToAct, b.pimPreToAct},
                      {a.pimActToAct, b.pimActToAct}}) {
    EXPECT_EQ(x, y);
  }
  EXPECT_EQ(a.separateRowColumnBus, b.separateRowColumnBus);
  EXPECT_EQ(a.refreshScope, b.refreshScope);
  EXPECT_EQ(a.rrdFawScope, b.rrdFawScope);
}

// hbm2-pim.md's timing table: one pseudo-channel of two ranks (PIM in rank 0), one command bus, REF per rank.
sim::DeviceConfig hbm2PimSpec() {
  sim::DeviceConfig c;
  c.pseudoChannels = 1;
  c.ranks = 2;
  c.CL = 20, c.CWL = 8, c.BL = 4;
  c.tRCDRD = 14, c.tRCDWR = 10, c.tRP = 14, c.tRAS = 33, c.tRC = 47;
  c.tCCDS = 2, c.tCCDL = 4, c.tRRDS = 4, c.tRRDL = 6, c.tFAW = 0;  // "tFAW is not enforced in the reference"
  c.tWR = 16, c.tWTRS = 4, c.tWTRL = 9, c.tRTPS = 4, c.tRTPL = 5, c.tRTRS = 1;
  c.tREFI = 3900, c.tRFC = 350;
  c.refreshScope = sim::Scope::Rank;
  c.finalize();
  return c;
}

// attacc.md: an HBM3 channel of 2 pseudo-channels x 2 ranks, nBL 2, separate row and column buses, REF per
// pseudo-channel, nRRD/nFAW per rank, MACAB every 6 cycles under the power constraint.
sim::DeviceConfig attaccSpec() {
  sim::DeviceConfig c;
  c.tCK_ns = 0.769;
  c.pseudoChannels = 2;
  c.ranks = 2;
  c.BL = 4, c.burstCyclesOverride = 2;
  c.CL = 19, c.CWL = 6;
  c.tRCDRD = 19, c.tRCDWR = 19, c.tRP = 19, c.tRAS = 45, c.tRC = 63, c.tWR = 21;
  c.tRTPS = 6, c.tRTPL = 8, c.tCCDS = 2, c.tCCDL = 4, c.tRRDS = 2, c.tRRDL = 4;
  c.tWTRS = 8, c.tWTRL = 11, c.tFAW = 39, c.tRFC = 456, c.tREFI = 5070;
  c.refreshScope = sim::Scope::PseudoChannel;
  c.rrdFawScope = sim::Scope::Rank;
  c.separateRowColumnBus = true;
  c.rdToPre = 8;   // tRTPL (= MACAB -> PREA)
  c.wrToPre = 29;  // CWL + 2 + tWR
  c.pimActToMac = 19, c.pimMacToMac = 6, c.pimMacToPre = 8, c.pimPreToAct = 19, c.pimActToAct = 63;
  c.pimActToPre = 45;
  c.finalize();
  return c;
}

TEST(DeviceConfig, Hbm2PimBackendHoldsTheSpecTiming) {
  expectSameTiming(deviceConfigFor(builtinBackends().get("hbm2-pim")), hbm2PimSpec());
}

TEST(DeviceConfig, AttaccBackendHoldsTheSpecTiming) {
  expectSameTiming(deviceConfigFor(builtinBackends().get("attacc")), attaccSpec());
}

TEST(DeviceConfig, HbmPimIsAttaccWithoutThePowerConstraint) {
  sim::DeviceConfig spec = attaccSpec();
  spec.pimMacToMac = 4;  // tCCD_L: dcc-backends.md's HBM-PIM has no power constraint
  expectSameTiming(deviceConfigFor(builtinBackends().get("hbm-pim")), spec);
}

TEST(DeviceConfig, UpmemIsNotADramDevice) {
  EXPECT_THROW(deviceConfigFor(builtinBackends().get("upmem")), InputError);
}

TEST(DeviceConfig, CalibrationHoldsThroughTheShippedBackendFile) {
  const auto c = deviceConfigFor(builtinBackends().get("hbm2-pim"));
  const auto r = sim::simulate(c, sim::hbm2pimGemv(c, 64, 4096, 4096));
  EXPECT_LE(std::abs(r.phase(sim::Phase::Compute) - 13166.0), 0.005 * 13166);
}

TEST(DeviceConfig, RefreshCanBeSwitchedOff) {
  const auto c = deviceConfigFor(builtinBackends().get("hbm-pim"), SimSettings{false});
  EXPECT_FALSE(c.refresh);
}

}  // namespace
}  // namespace pim
