// SPDX-License-Identifier: Apache-2.0
// Fast-forward of periodic block iterations must be exact: same totals, phases and per-bank statistics as
// executing every iteration (including refreshes that land inside long loops).
#include <gtest/gtest.h>

#include "sim/simulator.h"
#include "sim/vendor_attacc.h"
#include "sim/vendor_hbm2pim.h"

using namespace pim::sim;

namespace {
void expectSame(const DeviceConfig& c, const Program& p) {
  SimOptions on, off;
  off.fastForward = false;
  const Result a = simulate(c, p, on), b = simulate(c, p, off);
  EXPECT_EQ(a.totalCycles, b.totalCycles);
  EXPECT_EQ(a.phaseCycles, b.phaseCycles);
  EXPECT_EQ(a.refreshes, b.refreshes);
  EXPECT_EQ(a.commandsIssued, b.commandsIssued);
  ASSERT_EQ(a.banks.size(), b.banks.size());
  for (size_t i = 0; i < a.banks.size(); ++i) {
    EXPECT_EQ(a.banks[i].activations, b.banks[i].activations) << i;
    EXPECT_EQ(a.banks[i].columnCommands, b.banks[i].columnCommands) << i;
    EXPECT_EQ(a.banks[i].pimOps, b.banks[i].pimOps) << i;
    EXPECT_EQ(a.banks[i].busyCycles, b.banks[i].busyCycles) << i;
  }
}
}  // namespace

TEST(SimFastForward, Hbm2PimGemvLongLoopsWithRefresh) {
  const DeviceConfig c = hbm2PimConfig(true);
  expectSame(c, hbm2pimGemv(c, 4, 512, 65536));
  expectSame(c, hbm2pimGemv(c, 64, 4096, 4096));
}

TEST(SimFastForward, Hbm2PimEltwiseAndRearrangement) {
  const DeviceConfig c = hbm2PimConfig(true);
  expectSame(c, hbm2pimEltwise(c, 2, int64_t(1) << 22, Hbm2EltOp::Add, true));
  expectSame(c, hbm2pimEltwise(c, 8, int64_t(1) << 20, Hbm2EltOp::Relu, false));
}

TEST(SimFastForward, RefreshOffLongLoops) {
  const DeviceConfig c = hbm2PimConfig(false);
  expectSame(c, hbm2pimGemv(c, 4, 512, 65536));
  expectSame(c, hbm2pimEltwise(c, 2, int64_t(1) << 22, Hbm2EltOp::Mul, true));
}

// With refresh every 3,900 cycles the state needs a few iterations to settle after each REF, so the jumps are
// short; without refresh almost the whole loop is skipped.
TEST(SimFastForward, ActuallySkipsIterations) {
  const DeviceConfig c = hbm2PimConfig(false);
  const Result r = simulate(c, hbm2pimGemv(c, 4, 512, 65536));
  EXPECT_GT(r.iterationsFastForwarded, 900);
}
