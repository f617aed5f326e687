// SPDX-License-Identifier: Apache-2.0
// Hand-derived timing cases for the bank-level engine (hbm2-pim.md / attacc.md timing tables).
#include <gtest/gtest.h>

#include "sim/simulator.h"
#include "tests/shipped_device.h"

using namespace pim::sim;

namespace {
DeviceConfig hbm2NoRefresh() {
  DeviceConfig c = pim::test::shippedDevice("hbm2-pim", false);
  return c;
}
int64_t issueOf(const Result& r, Op op, int nth = 0) {
  for (const TraceEvent& e : r.trace)
    if (e.op == op && nth-- == 0) return e.start;
  return -1;
}
SimOptions traced() {
  SimOptions o;
  o.trace.enabled = true;
  return o;
}
}  // namespace

// ACT@0; RD at tRCD_RD=14 then every tCCD_L=4 (same bank): 14..42; PRE >= max(ACT+tRAS=33,
// lastRD + (BL/2 + max(tRTP_L,tCCD_L) - tCCD_L = 3) = 45) = 45; last data at 42 + RL 20 + BL/2 2 = 64.
TEST(SimTiming, SingleBankActEightReadsPre) {
  DeviceConfig c = hbm2NoRefresh();
  ProgramBuilder b;
  b.act(0, 0, 0, 5);
  b.rd(0, 0, 0, 5, 0, 8);
  b.pre(0, 0, 0);
  const Result r = simulate(c, Program::replicated(b.take(), 1), traced());
  EXPECT_EQ(issueOf(r, Op::RD, 0), 14);
  EXPECT_EQ(issueOf(r, Op::RD, 7), 42);
  EXPECT_EQ(issueOf(r, Op::PRE), 45);
  EXPECT_EQ(r.totalCycles, 64);
  EXPECT_EQ(r.banks[0].activations, 1);
  EXPECT_EQ(r.banks[0].bytesRead, 8 * 32);
}

// Row hits: 32 RD to one open row: 14 + 31*4 = 138, done 138 + 22 = 160.
TEST(SimTiming, RowHitStream) {
  DeviceConfig c = hbm2NoRefresh();
  ProgramBuilder b;
  b.rd(0, 0, 0, 0, 0, 32);
  const Result r = simulate(c, Program::replicated(b.take(), 1));
  EXPECT_EQ(r.totalCycles, 160);
}

// Alternating bank groups: ACT bg0@0, ACT bg1@4 (tRRD_S); RDs at 14, 18, then every tCCD_S=2:
// 16th RD at 18 + 14*2 = 46, done 68. Same bank group (banks 0 and 1): tCCD_L=4 -> 2nd RD at 20 (ACT@6),
// then every 4: 16th RD at 20 + 14*4 = 76, done 98.
TEST(SimTiming, BankGroupAlternation) {
  DeviceConfig c = hbm2NoRefresh();
  ProgramBuilder alt, same;
  for (int i = 0; i < 8; ++i) {
    alt.rd(0, 0, 0, 0, uint32_t(i));
    alt.rd(0, 1, 0, 0, uint32_t(i));
    same.rd(0, 0, 0, 0, uint32_t(i));
    same.rd(0, 0, 1, 0, uint32_t(i));
  }
  EXPECT_EQ(simulate(c, Program::replicated(alt.take(), 1)).totalCycles, 68);
  EXPECT_EQ(simulate(c, Program::replicated(same.take(), 1)).totalCycles, 98);
}

// 600 row hits (columns wrap inside row 0); rank 0 refreshes at tREFI/2 = 1950 (two ranks): RD #484 would
// issue at 1950, the bank may precharge from 1949 (RD-to-PRE 3 after the read at 1946), so PRE@1950 and, with
// hbm2-pim's lazy refresh (DRAMSim2: no tRP wait), REF@1951, ACT@2301 (tRFC), RD@2315, the remaining 115 RDs
// every 4 -> 2775, done 2797.
TEST(SimTiming, RefreshMidKernel) {
  DeviceConfig c = pim::test::shippedDevice("hbm2-pim");
  ProgramBuilder b;
  for (int i = 0; i < 600; ++i) b.rd(0, 0, 0, 0, uint32_t(i % 32));  // all hits in row 0
  const Result r = simulate(c, Program::replicated(b.take(), 1), traced());
  EXPECT_EQ(r.totalCycles, 2797);
  EXPECT_EQ(r.refreshes, 1);
  EXPECT_EQ(issueOf(r, Op::ACT, 1), 2301);
}

// AttAcc all-bank MAC: ACTAB@0, MACAB 19 + 6k (power) -> 205, PREA 213, ACTAB 232, MACAB 251..437,
// done 437 + CL 19 + nBL 2 = 458. Without power constraint MACAB every 4: 19..143, PREA 151, ACTAB 170,
// MACAB 189..313, done 334.
TEST(SimTiming, AttaccAllBankMacPowerSettings) {
  for (bool power : {true, false}) {
    DeviceConfig c = pim::test::attaccDevice(power);
    ProgramBuilder b;
    for (int i = 0; i < 64; ++i) {
      Command m;
      m.op = Op::MACAB;
      m.row = uint32_t(i / 32);
      m.col = uint32_t(i % 32);
      b.add(m);
    }
    const Result r = simulate(c, Program::replicated(b.take(), 1));
    EXPECT_EQ(r.totalCycles, power ? 458 : 334) << "power=" << power;
    EXPECT_EQ(r.banks[63].pimOps, 64);
    EXPECT_EQ(r.banks[0].activations, 2);
  }
}

// HBM-PIM (HBM3) broadcast MACs need the row open in every bank (the controller opens it all-bank) and are
// spaced like column commands (tCCD_L = 4): same arithmetic as AttAcc without the power constraint -> 334.
TEST(SimTiming, HbmPimBroadcastMac) {
  const DeviceConfig c = pim::test::shippedDevice("hbm-pim");
  ProgramBuilder b;
  for (int i = 0; i < 64; ++i) {
    Command m;
    m.op = Op::PIM_MAC;
    m.row = uint32_t(i / 32);
    m.col = uint32_t(i % 32);
    b.add(m);
  }
  const Result r = simulate(c, Program::replicated(b.take(), 16));
  EXPECT_EQ(r.totalCycles, 334);
  EXPECT_EQ(r.distinctProgramsSimulated, 1);
  EXPECT_EQ(r.banks.size(), 16u * 64u);
}

// Two pseudo-channels have their own data buses, so a controller serving per-bank queues interleaves them
// even when the program lists one pseudo-channel's reads before the other's (attacc, refresh off; 4 rounds
// of one RD to bank 0 of bank groups 0-3 of pseudo-channel 0, then the same on pseudo-channel 1).
// Interleaved: ACTs p0g0@0, p1g0@1, p0g1@2, ... p1g3@7 (one row command per cycle, tRRD_S = 2 per rank); the
// first RD at 19 (tRCD_RD), then one per cycle alternating the pseudo-channels (tCCD_S = 2 on each): the 32nd
// at 50, done 50 + CL 19 + nBL 2 = 71. Served one pseudo-channel's bank groups after the other's (timing
// model 1) a round took 16 cycles: 95.
TEST(SimTiming, PseudoChannelsInterleave) {
  DeviceConfig c = pim::test::shippedDevice("attacc");
  c.refresh = false;
  ProgramBuilder b;
  for (int col = 0; col < 4; ++col)
    for (int p = 0; p < 2; ++p)
      for (int g = 0; g < 4; ++g) b.rd(0, g, 0, 0, uint32_t(col)).pch = uint8_t(p);
  EXPECT_EQ(simulate(c, Program::replicated(b.take(), 1)).totalCycles, 71);
}

// AttAcc's MACAB feeds the GEMV units on a data path of its own (attacc.md; its reference's timing table has
// no rule between MACAB and buffer moves), so buffer moves of the same barrier group issue alongside the
// MACs. Refresh off. 16 MACABs over one row: ACTAB@0, MACAB at 19 + 6k (power constraint), the last at 109,
// done 109 + CL 19 + nBL 2 = 130. 32 MVSB to one bank group: every tCCD_L = 4 from 0 (even cycles, never a
// MACAB's), the last at 124, done 126: the total stays 130. After a barrier they wait for the last MACAB: 110
// + 31 * 4 = 234, done 236.
TEST(SimTiming, AttaccBufferMovesRunAlongsideMacs) {
  DeviceConfig c = pim::test::shippedDevice("attacc");
  c.refresh = false;
  for (bool barrier : {false, true}) {
    ProgramBuilder b;
    for (int i = 0; i < 16; ++i) {
      Command m;
      m.op = Op::MACAB;
      m.col = uint32_t(i);
      b.add(m);
    }
    if (barrier) b.barrier();
    for (int i = 0; i < 32; ++i) b.add(Command{.op = Op::MVSB});
    const Result r = simulate(c, Program::replicated(b.take(), 1), traced());
    EXPECT_EQ(issueOf(r, Op::MACAB, 15 * 64), 109);  // one trace event per bank of the channel
    EXPECT_EQ(issueOf(r, Op::MVSB, 0), barrier ? 110 : 0);
    EXPECT_EQ(r.totalCycles, barrier ? 236 : 130);
  }
}
