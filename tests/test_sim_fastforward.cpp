// SPDX-License-Identifier: Apache-2.0
// Fast-forward of periodic block iterations must be exact: same totals, phases and per-bank statistics as
// executing every iteration (including refreshes that land inside long loops).
#include <gtest/gtest.h>

#include "sim/simulator.h"
#include "sim/synthetic_streams.h"
#include "sim/vendor_attacc.h"
#include "sim/vendor_hbm2pim.h"
#include "sim_test_util.h"
#include "tests/shipped_device.h"

using namespace pim::sim;

namespace {
using test::interleavedHost;

Result expectSame(const DeviceConfig& c, const Program& p) {
  SimOptions on, off;
  off.fastForward = false;
  const Result a = simulate(c, p, on), b = simulate(c, p, off);
  EXPECT_EQ(b.iterationsFastForwarded, 0);
  test::expectSameResult(a, b);
  return a;
}

// A broadcast stream: n commands over consecutive columns of successive rows, optionally with a buffer move.
Program broadcast(Op op, int64_t n, uint64_t mask, uint32_t col = 0, bool withMove = false) {
  ProgramBuilder b;
  b.simple(Op::WRGB, 8);
  b.beginLoop(n);
  Command cmd;
  cmd.op = op;
  cmd.bankMask = mask;
  cmd.row = 100;
  cmd.col = col;
  cmd.colStep = 1;
  b.add(cmd);
  if (withMove) b.simple(Op::MVSB);
  b.endLoop();
  b.simple(Op::SFM);
  return Program::replicated(b.take(), 3);
}
}  // namespace

TEST(SimFastForward, Hbm2PimGemvLongLoopsWithRefresh) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim");
  expectSame(c, hbm2pimGemv(c, 4, 512, 65536));
  expectSame(c, hbm2pimGemv(c, 64, 4096, 4096));
}

TEST(SimFastForward, Hbm2PimEltwiseAndRearrangement) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim");
  expectSame(c, hbm2pimEltwise(c, 2, int64_t(1) << 22, Hbm2EltOp::Add, Hbm2Copies::all()));
  expectSame(c, hbm2pimEltwise(c, 8, int64_t(1) << 20, Hbm2EltOp::Relu, Hbm2Copies::none()));
}

TEST(SimFastForward, RefreshOffLongLoops) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim", false);
  expectSame(c, hbm2pimGemv(c, 4, 512, 65536));
  expectSame(c, hbm2pimEltwise(c, 2, int64_t(1) << 22, Hbm2EltOp::Mul, Hbm2Copies::all()));
}

// With refresh every 3,900 cycles the state needs a few iterations to settle after each REF, so the jumps are
// short; without refresh almost the whole loop is skipped.
TEST(SimFastForward, ActuallySkipsIterations) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim", false);
  const Result r = simulate(c, hbm2pimGemv(c, 4, 512, 65536));
  EXPECT_GT(r.iterationsFastForwarded, 900);
}

TEST(SimFastForward, InterleavedHostStreamsAttaccRefreshOn) {
  const DeviceConfig c = pim::test::shippedDevice("attacc");
  ASSERT_TRUE(c.refresh);
  for (Op op : {Op::HOST_RD, Op::HOST_WR}) {
    const Result r = expectSame(c, interleavedHost(c, 3000, op));
    EXPECT_GT(r.refreshes, 0);
    EXPECT_GT(r.iterationsFastForwarded, 1000) << opName(op);
  }
  expectSame(c, interleavedHost(c, 500, Op::HOST_WR, 3));
  expectSame(c, interleavedHost(c, 500, Op::HOST_RD, 0, 1));
  expectSame(c, interleavedHost(c, 700, Op::HOST_RD, 5, 1));
}

TEST(SimFastForward, InterleavedHostStreamsHbm2RefreshOn) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim");
  expectSame(c, interleavedHost(c, 2000, Op::HOST_RD));
  expectSame(c, interleavedHost(c, 2000, Op::HOST_WR, 2));
}

TEST(SimFastForward, BroadcastStreamsOverManyRows) {
  const DeviceConfig a = pim::test::shippedDevice("attacc");
  const Result r = expectSame(a, broadcast(Op::MACAB, 20000, 0));
  EXPECT_GT(r.refreshes, 0);
  EXPECT_GT(r.iterationsFastForwarded, 15000);
  expectSame(a, broadcast(Op::MACAB, 5000, 0, 7, true));
  expectSame(pim::test::attaccDevice(false), broadcast(Op::MACAB, 7000, 0, 31));
  const DeviceConfig h = pim::test::shippedDevice("hbm-pim");
  const Result m = expectSame(h, broadcast(Op::PIM_MAC, 20000, 0x0F0F0F0F0F0F0F0FULL));
  EXPECT_GT(m.iterationsFastForwarded, 15000);
  expectSame(h, broadcast(Op::PIM_MAC, 3000, 0x00000000FFFF0000ULL, 5));
  expectSame(h, broadcast(Op::PIM_WB, 3000, 0xFFFF000000000000ULL));
  expectSame(pim::test::shippedDevice("hbm2-pim"), broadcast(Op::RD, 6000, 0x5555, 3));
}

// Buffer moves leave the column frontier behind, so no period is found while they run (the snapshots are
// skipped there: see FastForward::afterIteration); the MAC streams around them still jump, and every result
// is the one of simulating each iteration.
TEST(SimFastForward, LongBufferMoveLoopsBetweenMacStreams) {
  const DeviceConfig c = pim::test::shippedDevice("attacc");
  const Result r = expectSame(c, bufferMoveLoop(c, 6000, 20000, true, 2));
  EXPECT_GT(r.refreshes, 0);
  EXPECT_GT(r.iterationsFastForwarded, 8000);  // of the 12,000 MACs (those next to a refresh run exactly)
  expectSame(pim::test::attaccDevice(false), bufferMoveLoop(c, 300, 5000, true, 2));
}

// Randomised programs: loops of mixed single-bank, masked and all-bank commands with assorted row/column
// steps, repeats, barriers and buffer moves; fast-forward must never change a result.
TEST(SimFastForward, RandomisedProgramsMatchExactly) {
  uint64_t seed = 12345;
  auto rnd = [&](uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  const DeviceConfig cfgs[] = {pim::test::shippedDevice("attacc"), pim::test::shippedDevice("hbm-pim"),
                               pim::test::shippedDevice("hbm2-pim"),
                               pim::test::shippedDevice("hbm2-pim", false)};
  int64_t skipped = 0;
  for (int trial = 0; trial < 80; ++trial) {
    DeviceConfig c = cfgs[trial % 4];
    if (trial % 8 == 0) c.refresh = false;
    const int nb = c.banksPerChannel();
    ProgramBuilder b(Phase(rnd(2)));
    const int blocks = 1 + int(rnd(3));
    for (int k = 0; k < blocks; ++k) {
      b.beginLoop(int64_t(20 + rnd(400)));
      const int n = 1 + int(rnd(6));
      for (int i = 0; i < n; ++i) {
        Command cmd;
        static const Op ops[] = {Op::HOST_RD, Op::HOST_WR, Op::RD,  Op::WR,  Op::MACAB, Op::PIM_MAC,
                                 Op::MVSB,    Op::BARRIER, Op::ACT, Op::PRE, Op::PIM_WB};
        cmd.op = ops[rnd(11)];
        cmd.phase = Phase::Compute;
        const int bank = int(rnd(uint64_t(nb)));
        cmd.pch = uint8_t(bank / c.banksPerPseudoChannel());
        cmd.rank = uint8_t(bank / c.banksPerRank() % c.ranks);
        cmd.bg = uint8_t(bank % c.banksPerRank() / c.banksPerBankGroup);
        cmd.bank = uint8_t(bank % c.banksPerBankGroup);
        if (cmd.op == Op::RD || cmd.op == Op::WR)
          cmd.bankMask = rnd(2) ? (rnd(1ULL << 32) | 1) & (~0ULL >> (64 - nb)) : 0;
        if (cmd.op == Op::PIM_MAC || cmd.op == Op::PIM_WB) cmd.bankMask = 0x0F0F0F0F0F0F0F0FULL >> (64 - nb);
        cmd.row = uint32_t(100 + rnd(4) * 50);
        cmd.col = uint32_t(rnd(40));
        cmd.colStep = int32_t(rnd(5));
        if (rnd(3) == 0) cmd.colStep = int32_t(rnd(3) * 16);
        cmd.rowStep = rnd(4) == 0 ? int32_t(rnd(3)) : 0;
        cmd.repeat = rnd(4) == 0 ? uint32_t(1 + rnd(12)) : 1;
        if (rnd(6) == 0) {  // walking backwards
          cmd.col = 4000 + uint32_t(rnd(32));
          cmd.colStep = -1 - int32_t(rnd(3));
          cmd.row = 2000;
          cmd.rowStep = -int32_t(rnd(2));
        }
        if (cmd.op == Op::BARRIER)
          b.barrier();
        else if (cmd.op == Op::MVSB)
          b.simple(Op::MVSB);
        else
          b.add(cmd);
      }
      b.endLoop();
    }
    const Result r = expectSame(c, Program::replicated(b.take(), 2));
    skipped += r.iterationsFastForwarded;
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "trial " << trial;
      break;
    }
  }
  EXPECT_GT(skipped, 0);
}
