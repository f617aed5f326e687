// SPDX-License-Identifier: Apache-2.0
// The simulator configuration derived from the shipped backend files must equal the spec presets the
// simulator is calibrated with, so the calibration holds for what users actually run.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/codegen/device_config.h"
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

TEST(DeviceConfig, Hbm2PimBackendMatchesTheSpecPreset) {
  expectSameTiming(deviceConfigFor(BackendRegistry::builtin().get("hbm2-pim")), sim::hbm2PimConfig(true));
}

TEST(DeviceConfig, AttaccBackendMatchesTheSpecPreset) {
  expectSameTiming(deviceConfigFor(BackendRegistry::builtin().get("attacc")), sim::attaccConfig(true));
}

TEST(DeviceConfig, CalibrationHoldsThroughTheShippedBackendFile) {
  const auto c = deviceConfigFor(BackendRegistry::builtin().get("hbm2-pim"));
  const auto r = sim::simulate(c, sim::hbm2pimGemv(c, 64, 4096, 4096));
  EXPECT_LE(std::abs(r.phase(sim::Phase::Compute) - 13166.0), 0.005 * 13166);
}

TEST(DeviceConfig, RefreshCanBeSwitchedOff) {
  const auto c = deviceConfigFor(BackendRegistry::builtin().get("hbm-pim"), SimSettings{false});
  EXPECT_FALSE(c.refresh);
}

}  // namespace
}  // namespace pim
