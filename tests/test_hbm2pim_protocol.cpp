// SPDX-License-Identifier: Apache-2.0
// The HBM2-PIM vendor protocol around a kernel (park, mode switches, CRF) and refresh inside a PIM kernel,
// derived by hand from hbm2-pim.md and the reference controller's rules (sim/config.h, lazyRefresh).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "sim/hbm2pim_protocol.h"
#include "sim/simulator.h"
#include "sim/vendor_hbm2pim.h"
#include "tests/shipped_device.h"

using namespace pim::sim;

namespace {

struct ProtocolStep {
  Op op;
  int bg, bank;  // single-bank target, or -1/-1 for the even (bank 0) / odd (bank 1) AB half
  uint32_t row, col;
  bool modeSwitch = false;
};

std::vector<Command> flat(const ChannelProgram& p) {
  std::vector<Command> out;
  for (const Block& b : p.blocks)
    for (const Command& c : b.cmds)
      if (c.op != Op::BARRIER) out.push_back(c);
  return out;
}

std::vector<TraceEvent> of(const Result& r, Op op) {
  std::vector<TraceEvent> v;
  for (const TraceEvent& e : r.trace)
    if (e.op == op) v.push_back(e);
  std::sort(v.begin(), v.end(), [](const TraceEvent& a, const TraceEvent& b) { return a.start < b.start; });
  return v;
}

}  // namespace

// A kernel with no tile is its prologue and epilogue: park-in (16 RD), SB->AB (4 WR to the ABMR row of banks
// 0, 1, 8, 9), CRF (1 WR), AB->AB-PIM (1 WR), AB-PIM->AB (1 WR), AB->SB (2 WR to the SBMR row, then its
// precharge in both halves, which switches the mode), park-out (16 RD): 43 commands, in this order.
TEST(Hbm2PimProtocol, PrologueAndEpilogueAreTheLibrarysTransactions) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim", false);
  const Program p = hbm2pimEltwise(c, 1, 0, Hbm2EltOp::Relu);
  std::vector<ProtocolStep> want;
  auto park = [&] {
    for (int ba = 0; ba < 4; ++ba)
      for (int bg = 0; bg < 4; ++bg) want.push_back({Op::RD, bg, ba, kHbm2ParkRow, 0});
  };
  park();
  for (int bg : {0, 2})
    for (int ba : {0, 1}) want.push_back({Op::WR, bg, ba, kHbm2AbmrRow, 0x1F});
  want.push_back({Op::WR, -1, 1, kHbm2RegRow, 4});  // CRF, odd half
  want.push_back({Op::WR, -1, 0, kHbm2RegRow, 0});  // control register: AB-PIM on
  want.push_back({Op::WR, -1, 0, kHbm2RegRow, 0});  // AB-PIM off
  want.push_back({Op::WR, -1, 0, kHbm2SbmrRow, 0x1F});
  want.push_back({Op::WR, -1, 1, kHbm2SbmrRow, 0x1F});
  want.push_back({Op::PRE, -1, 0, 0, 0, true});
  want.push_back({Op::PRE, -1, 1, 0, 0, true});
  park();
  const std::vector<Command> got = flat(p.programs.at(0));
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(got.size(), 43u);
  Hbm2Emitter e(c);
  for (size_t i = 0; i < got.size(); ++i) {
    const Command& g = got[i];
    const ProtocolStep& w = want[i];
    EXPECT_EQ(g.op, w.op) << i;
    if (w.bg >= 0) {
      EXPECT_EQ(g.bankMask, 0u) << i;
      EXPECT_EQ(int(g.bg), w.bg) << i;
    } else {
      EXPECT_EQ(g.bankMask, e.half(w.bank)) << i;
    }
    EXPECT_EQ(int(g.bank), w.bank) << i;
    if (w.op != Op::PRE) {
      EXPECT_EQ(g.row, w.row) << i;
      EXPECT_EQ(g.col, w.col) << i;
    }
    EXPECT_EQ((g.flags & kFlagModeSwitch) != 0, w.modeSwitch) << i;
  }
}

// The mode-switch writes are transactions with write recovery: the parked row of bank 0 is precharged, the
// ABMR row activated and written, and the next row command of bank 0 waits WR-to-PRE (CWL + BL/2 + tWR = 26),
// not only tRAS. On the way out, no ACT of park-out issues before the SBMR precharge that ends AB mode.
TEST(Hbm2PimProtocol, ModeSwitchWritesHoldTheirBanksAndGateParkOut) {
  const DeviceConfig c = pim::test::shippedDevice("hbm2-pim", false);
  SimOptions o;
  o.trace.enabled = true;
  const Result r = simulate(c, hbm2pimEltwise(c, 1, 0, Hbm2EltOp::Relu), o);
  const int64_t wrToPre = c.CWL + c.BL / 2 + c.tWR;
  ASSERT_EQ(wrToPre, 26);
  std::vector<TraceEvent> bank0;
  for (const TraceEvent& ev : r.trace)
    if (ev.bank == 0) bank0.push_back(ev);
  std::sort(bank0.begin(), bank0.end(), [](auto& a, auto& b) { return a.start < b.start; });
  // bank 0: ACT(park) RD PRE ACT(ABMR) WR PRE ...
  ASSERT_GE(bank0.size(), 6u);
  EXPECT_EQ(bank0[0].op, Op::ACT);
  EXPECT_EQ(bank0[1].op, Op::RD);
  EXPECT_EQ(bank0[2].op, Op::PRE);
  EXPECT_EQ(bank0[3].op, Op::ACT);
  EXPECT_EQ(bank0[4].op, Op::WR);
  EXPECT_GE(bank0[4].start - bank0[3].start, c.tRCDWR);  // and RD-to-WR after the last park-in read
  EXPECT_EQ(bank0[5].op, Op::PRE);
  EXPECT_GE(bank0[5].start - bank0[4].start, wrToPre);
  // Park-out: the last PREs of bank 0 and bank 1 are the SBMR precharges that end AB mode; no ACT issues from
  // the first of them until after the second, and all 16 park-out ACTs follow.
  int64_t modeEven = 0, modeOdd = 0;
  for (const TraceEvent& ev : of(r, Op::PRE)) {
    if (ev.bank == 0) modeEven = std::max(modeEven, ev.start);
    if (ev.bank == 1) modeOdd = std::max(modeOdd, ev.start);
  }
  int parkOutActs = 0;
  for (const TraceEvent& ev : of(r, Op::ACT)) {
    if (ev.start >= std::min(modeEven, modeOdd)) {
      EXPECT_GT(ev.start, std::max(modeEven, modeOdd));
    }
    if (ev.start > std::max(modeEven, modeOdd)) ++parkOutActs;
  }
  EXPECT_EQ(parkOutActs, 16);
}

// A refresh due inside a run of AB-PIM reads: the controller precharges the even half as soon as the read
// allows (RD-to-PRE = 3 after the last read, here exactly at the deadline), issues REF the next cycle (no tRP
// wait), and the stream resumes with an ACT tRFC after REF and a read tRCD_RD later. The other rank's refresh
// at 3900 finds its banks closed and costs nothing.
TEST(Hbm2PimProtocol, RefreshInsideAPimKernelClosesLazily) {
  const DeviceConfig on = pim::test::shippedDevice("hbm2-pim", true);
  ASSERT_TRUE(on.lazyRefresh);
  ASSERT_EQ(on.tREFI / on.ranks, 1950);
  auto program = [](const DeviceConfig& c) {
    Hbm2Emitter e(c);
    e.b.beginLoop(600);
    e.rdAll(0, 5, 0, 1, true);  // the same column of row 5, every tCCD_L
    e.b.endLoop();
    return Program::replicated(e.b.take(), 1);
  };
  SimOptions o;
  o.trace.enabled = true;
  const Result r = simulate(on, program(on), o);
  const std::vector<TraceEvent> acts = of(r, Op::ACT), rds = of(r, Op::RD);
  ASSERT_EQ(acts.size(), 2u * 8u);  // the even half opened twice, one event per bank
  // Reads at 14 + 4i: the last one before the deadline is at 1946; the bank may precharge at 1949, the
  // deadline is 1950, so the PRE is at 1950 and REF at 1951.
  int64_t before = 0;
  for (const TraceEvent& ev : rds)
    if (ev.start < 1950) before = std::max(before, ev.start);
  EXPECT_EQ(before, 1946);
  int64_t pre = -1;
  for (const TraceEvent& ev : of(r, Op::PREA))
    if (ev.bank == 0 && ev.start >= 1950 && ev.start < 2000 && ev.duration == on.tRP) pre = ev.start;
  EXPECT_EQ(pre, 1950);
  const int64_t reopen = acts.back().start;
  EXPECT_EQ(reopen, 1951 + on.tRFC);
  int64_t after = INT64_MAX;
  for (const TraceEvent& ev : rds)
    if (ev.start > 1950) after = std::min(after, ev.start);
  EXPECT_EQ(after, reopen + on.tRCDRD);
  const DeviceConfig off = pim::test::shippedDevice("hbm2-pim", false);
  const Result r0 = simulate(off, program(off));
  EXPECT_EQ(r.phase(Phase::Compute) - r0.phase(Phase::Compute), after - 1950);  // 365 cycles
}

// A refresh falling due inside a run of writes costs nothing: every write pushes the bank's precharge 26
// cycles out, the run ends before the bank can close, and the kernel is over before REF.
TEST(Hbm2PimProtocol, RefreshDueInAWriteRunCostsNothing) {
  auto compute = [](bool refresh) {
    const DeviceConfig c = pim::test::shippedDevice("hbm2-pim", refresh);
    Hbm2Emitter e(c);
    e.b.beginLoop(520);  // writes at 10 + 4i: past the 1950 deadline, ending at 2086
    e.wrAll(0, 5, 0, 1, true);
    e.b.endLoop();
    return simulate(c, Program::replicated(e.b.take(), 1)).phase(Phase::Compute);
  };
  EXPECT_EQ(compute(true), compute(false));
}
