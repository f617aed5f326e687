// SPDX-License-Identifier: Apache-2.0
// Branch and bound (SimOptions::stopAfterCycles) and the channel-run cache must never change a result: a
// bounded run either gives the exact result or proves the program is slower than the bound, and a cached run
// is the run it replaces.
#include <gtest/gtest.h>

#include "sim/bounds.h"
#include "sim/channel_cache.h"
#include "sim/simulator.h"
#include "sim/vendor_attacc.h"
#include "sim/vendor_hbm2pim.h"
#include "sim_test_util.h"
#include "tests/shipped_device.h"

using namespace pim::sim;

namespace {

std::vector<std::pair<DeviceConfig, Program>> programs() {
  std::vector<std::pair<DeviceConfig, Program>> v;
  const DeviceConfig h2 = pim::test::shippedDevice("hbm2-pim"), a = pim::test::shippedDevice("attacc");
  v.emplace_back(h2, hbm2pimGemv(h2, 4, 512, 4096));
  v.emplace_back(h2, hbm2pimEltwise(h2, 2, int64_t(1) << 18, Hbm2EltOp::Add, Hbm2Copies::all()));
  v.emplace_back(a, test::interleavedHost(a, 700, Op::HOST_WR));
  v.emplace_back(a, test::interleavedHost(a, 300, Op::HOST_RD, 3, 1));
  return v;
}

Program twoDistinctChannels(const DeviceConfig& c) {
  Program p = test::interleavedHost(c, 400, Op::HOST_WR, 1, 0, 1);
  const Program q = test::interleavedHost(c, 250, Op::HOST_RD, 1, 0, 1);
  p.programs.push_back(q.programs[0]);
  p.channelMap = {0, 1, 0, 1};
  return p;
}

}  // namespace

TEST(SimBound, StopsExactlyWhenTheProgramIsSlowerThanTheBound) {
  for (const auto& [cfg, prog] : programs()) {
    const Result full = simulate(cfg, prog);
    ASSERT_FALSE(full.stoppedEarly);
    ASSERT_GT(full.totalCycles, 10);
    // At the total (a tie) the run completes and is the exact result.
    SimOptions o;
    o.stopAfterCycles = full.totalCycles;
    test::expectSameResult(simulate(cfg, prog, o), full);
    // Below it, the run stops with a lower bound that proves it is slower.
    for (const int64_t bound : {full.totalCycles - 1, full.totalCycles / 2, int64_t{1}}) {
      o.stopAfterCycles = bound;
      const Result r = simulate(cfg, prog, o);
      EXPECT_TRUE(r.stoppedEarly) << bound;
      EXPECT_GT(r.totalCycles, bound);
      EXPECT_LE(r.totalCycles, full.totalCycles);
    }
  }
}

TEST(SimBound, CachedRunsGiveTheSameResults) {
  ChannelRunCache cache;
  SimOptions cached;
  cached.cache = &cache;
  for (const auto& [cfg, prog] : programs()) {
    const Result exact = simulate(cfg, prog);
    const std::size_t hits = cache.hits();
    test::expectSameResult(simulate(cfg, prog, cached), exact);  // simulated and kept
    test::expectSameResult(simulate(cfg, prog, cached), exact);  // looked up
    EXPECT_EQ(cache.hits(), hits + 1);
  }
  const DeviceConfig a = pim::test::shippedDevice("attacc");
  const Program two = twoDistinctChannels(a);
  test::expectSameResult(simulate(a, two, cached), simulate(a, two));
  const std::size_t hits = cache.hits();
  test::expectSameResult(simulate(a, two, cached), simulate(a, two));
  EXPECT_EQ(cache.hits(), hits + 2);
}

TEST(SimBound, AnotherConfigurationDoesNotReuseRuns) {
  ChannelRunCache cache;
  SimOptions cached;
  cached.cache = &cache;
  DeviceConfig on = pim::test::shippedDevice("attacc"), off = on;
  off.refresh = false;
  const Program p = test::interleavedHost(on, 2000, Op::HOST_WR);
  const Result withRefresh = simulate(on, p, cached);
  const Result without = simulate(off, p, cached);
  test::expectSameResult(without, simulate(off, p));
  EXPECT_NE(withRefresh.totalCycles, without.totalCycles);
  EXPECT_EQ(cache.hits(), 0u);
}

TEST(SimBound, AStoppedRunIsReusedOnlyUnderATighterBound) {
  ChannelRunCache cache;
  const DeviceConfig a = pim::test::shippedDevice("attacc");
  const Program p = test::interleavedHost(a, 900, Op::HOST_WR);
  const Result full = simulate(a, p);
  DeviceConfig c = a;
  c.finalize();
  const int64_t counted = lowerBoundCycles(c, p.programs[0]);  // bounds between it and the total need a run
  ASSERT_LT(counted + 8, full.totalCycles);
  SimOptions o;
  o.cache = &cache;
  o.stopAfterCycles = full.totalCycles - (full.totalCycles - counted) / 4;
  const Result stopped = simulate(a, p, o);
  ASSERT_TRUE(stopped.stoppedEarly);
  EXPECT_EQ(cache.hits(), 0u);
  o.stopAfterCycles = counted + (full.totalCycles - counted) / 4;  // proven slower already: from the cache
  EXPECT_TRUE(simulate(a, p, o).stoppedEarly);
  EXPECT_EQ(cache.hits(), 1u);
  o.stopAfterCycles = 0;  // the whole run is needed: simulated again, exactly
  test::expectSameResult(simulate(a, p, o), full);
  o.stopAfterCycles = full.totalCycles - 1;  // the complete run now answers any bound
  const Result again = simulate(a, p, o);
  EXPECT_TRUE(again.stoppedEarly);
  EXPECT_EQ(again.totalCycles, full.totalCycles);
}

// The count-based bound never exceeds the simulated completion: vendor programs, host streams and random
// mixes of single-bank, masked, all-bank and buffer commands over several phases.
TEST(SimBound, CountBoundIsNeverAboveTheSimulatedTime) {
  auto check = [](DeviceConfig cfg, const Program& p) {
    cfg.finalize();
    const Result r = simulate(cfg, p);
    for (const ChannelProgram& cp : p.programs) EXPECT_LE(lowerBoundCycles(cfg, cp), r.totalCycles);
    return r;
  };
  for (const auto& [cfg, prog] : programs()) {
    DeviceConfig c = cfg;
    c.finalize();
    const Result r = check(cfg, prog);
    EXPECT_GT(lowerBoundCycles(c, prog.programs[0]), r.totalCycles / 8);  // and not vacuous
  }
  check(pim::test::shippedDevice("attacc"),
        attaccDecodeAttention(pim::test::shippedDevice("attacc"), 1, 32, 2048));
  uint64_t seed = 777;
  auto rnd = [&](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  const DeviceConfig cfgs[] = {pim::test::shippedDevice("attacc"), pim::test::shippedDevice("hbm-pim"),
                               pim::test::shippedDevice("hbm2-pim")};
  for (int trial = 0; trial < 60; ++trial) {
    const DeviceConfig& c = cfgs[trial % 3];
    const int nb = c.banksPerChannel();
    ProgramBuilder b;
    for (int blk = 0; blk < 3; ++blk) {
      b.setPhase(Phase(rnd(3)));
      b.beginLoop(int64_t(1 + rnd(200)));
      for (int i = 0, n = 1 + int(rnd(6)); i < n; ++i) {
        static const Op ops[] = {Op::HOST_RD, Op::HOST_WR, Op::RD, Op::MACAB, Op::PIM_MAC, Op::WRGB, Op::ACT};
        Command cmd;
        cmd.op = ops[rnd(7)];
        cmd.phase = Phase(rnd(3));
        const int bank = int(rnd(uint64_t(nb)));
        cmd.pch = uint8_t(bank / c.banksPerPseudoChannel());
        cmd.rank = uint8_t(bank / c.banksPerRank() % c.ranks);
        cmd.bg = uint8_t(bank % c.banksPerRank() / c.banksPerBankGroup);
        cmd.bank = uint8_t(bank % c.banksPerBankGroup);
        if (cmd.op == Op::RD && rnd(2)) cmd.bankMask = (rnd(1ULL << 32) | 1) & (~0ULL >> (64 - nb));
        cmd.row = uint32_t(100 + rnd(4) * 50);
        cmd.colStep = int32_t(rnd(3));
        cmd.repeat = rnd(3) == 0 ? uint32_t(1 + rnd(8)) : 1;
        if (cmd.op == Op::WRGB)
          b.simple(Op::WRGB, cmd.repeat);
        else
          b.add(cmd);
      }
      b.endLoop();
    }
    check(c, Program::replicated(b.take(), 1));
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "trial " << trial;
      break;
    }
  }
}
