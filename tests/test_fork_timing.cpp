// SPDX-License-Identifier: Apache-2.0
// The DCC artifact's HBM3-PIM timing table in PIMScope's simulator, counted by hand: the HBM-PIM arithmetic
// spaced by address among its own kind (DeviceConfig::pimOpsByAddress), write-backs, RELU and ACC_RESET
// untimed, the drain barrier taken when the last request leaves (BarrierMode::Drain), and one row command a
// cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/frontend.h"
#include "sim/simulator.h"
#include "sim_test_util.h"

namespace pim::sim {
namespace {

// Two pseudo-channels of one rank, 4 bank groups of 4 banks; tCCD_S 2, tCCD_L 4, a burst 2 cycles; the
// DRAM defaults otherwise (tRCD_RD 14, tRAS 33, tRP 14, tRC 47, CL 20); refresh off.
DeviceConfig forkDevice(bool byAddress, bool rowsByChannel = false) {
  DeviceConfig d;
  d.pseudoChannels = 2;
  d.separateRowColumnBus = true;
  d.barrierMode = BarrierMode::Drain;
  d.refresh = false;
  d.tCCDS = 2;
  d.tCCDL = 4;
  d.burstCyclesOverride = 2;
  d.pimMacToMac = 6;
  d.pimOpsByAddress = byAddress;
  d.allBankRowsByChannel = rowsByChannel;
  d.finalize();
  return d;
}

Command at(Op op, int pch, int bg, int bank, std::uint32_t row = 0) {
  Command c;
  c.op = op;
  c.pch = static_cast<std::uint8_t>(pch);
  c.bg = static_cast<std::uint8_t>(bg);
  c.bank = static_cast<std::uint8_t>(bank);
  c.row = row;
  return c;
}

// (op, issue cycle) of every command (but the row commands unless `rows`), in issue order: an all-bank
// command once.
std::vector<std::pair<Op, std::int64_t>> issued(const DeviceConfig& d, const ChannelProgram& prog,
                                                bool rows = false) {
  Program p;
  p.programs.push_back(prog);
  p.channelMap = {0};
  SimOptions so;
  so.trace.enabled = true;
  so.fastForward = false;
  std::vector<std::pair<Op, std::int64_t>> out;
  for (const TraceEvent& e : simulate(d, p, so).trace) {
    if (!rows && (e.op == Op::ACT || e.op == Op::ACTAB || e.op == Op::PRE || e.op == Op::PREA)) continue;
    if (out.empty() || out.back() != std::pair{e.op, e.start}) out.emplace_back(e.op, e.start);
  }
  return out;
}

// Four loads at (pch 0, bg 0, bank 0), (0, 0, 1), (0, 1, 0), (1, 0, 0), a write-back, a RELU, an ACC_RESET,
// one more load at (0, 0, 0), then one at the next row.
ChannelProgram arithmetic() {
  ProgramBuilder b;
  for (auto [pch, bg, bank] : {std::tuple{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}})
    b.add(at(Op::PIM_LD, pch, bg, bank));
  b.add(at(Op::PIM_WB, 0, 0, 0));
  b.add(at(Op::PIM_RELU, 0, 2, 0));
  b.add(at(Op::PIM_RESET, 0, 0, 0));
  b.add(at(Op::PIM_LD, 0, 0, 0));
  b.add(at(Op::PIM_LD, 0, 0, 0, 1));
  return b.take();
}

TEST(ForkTiming, TheArithmeticIsSpacedByItsAddressAndWriteBacksAreUntimed) {
  // The ACTAB opens row 0 at 0 and the first load issues in its cycle. The second, same bank group: tCCD_L,
  // 4; the third, another bank group of the rank: tCCD_S after the second, 6; the fourth, the other
  // pseudo-channel: the channel's burst after the third, 8. The write-back, the RELU and the reset have no
  // constraint: one column command per cycle, 9, 10, 11. The fifth load: tCCD_L after the second (8), tCCD_S
  // after the third (8), a burst after the fourth (10), and after the reset: 12. The next row needs a PREA,
  // held only by the ACTAB (tRAS: 33), then the ACTAB tRP later (47, also tRC after the first) and the load.
  const std::vector<std::pair<Op, std::int64_t>> expected = {
      {Op::PIM_LD, 0},    {Op::PIM_LD, 4},     {Op::PIM_LD, 6},  {Op::PIM_LD, 8}, {Op::PIM_WB, 9},
      {Op::PIM_RELU, 10}, {Op::PIM_RESET, 11}, {Op::PIM_LD, 12}, {Op::PIM_LD, 47}};
  EXPECT_EQ(issued(forkDevice(true), arithmetic()), expected);
}

TEST(ForkTiming, WithoutItTheArithmeticIsAllBankCommandsAfterTrcd) {
  // PIMScope's HBM-PIM: the first load tRCD_RD after the ACTAB (14), every all-bank command 6 apart.
  const std::vector<std::pair<Op, std::int64_t>> issues = issued(forkDevice(false), arithmetic());
  ASSERT_GE(issues.size(), 3u);
  EXPECT_EQ(issues[0], (std::pair{Op::PIM_LD, std::int64_t{14}}));
  EXPECT_EQ(issues[1], (std::pair{Op::PIM_LD, std::int64_t{20}}));
  EXPECT_EQ(issues[2], (std::pair{Op::PIM_LD, std::int64_t{26}}));
}

TEST(ForkTiming, ADrainBarrierFollowsTheLastRequestsCommandNotItsData) {
  // A host read of a closed bank: ACT at 0, RD tRCD_RD later at 14; the barrier is taken at 15 and issues
  // alone, so the buffer move after it (in the other pseudo-channel, which the read does not hold) goes at
  // 16, not when the read's data is back (14 + CL + burst = 36).
  // A phase change with it is no fence either (the artifact has none): the phases only label the breakdown.
  for (bool phases : {false, true}) {
    ProgramBuilder b(phases ? Phase::InputRearrangement : Phase::Compute);
    b.add(at(Op::HOST_RD, 0, 0, 0));
    b.barrier();
    b.setPhase(Phase::Compute);
    b.add(at(Op::WRGB, 1, 0, 0));
    const std::vector<std::pair<Op, std::int64_t>> expected = {{Op::HOST_RD, 14}, {Op::WRGB, 16}};
    EXPECT_EQ(issued(forkDevice(true), b.take()), expected) << phases;
  }
}

TEST(ForkTiming, AllBankRowCommandsWaitOnlyForTheChannelsOwn) {
  // A host write to row 5 of bank 0 (ACT at 0, WR tRCD_WR later at 10), then a load at row 0 of every bank.
  ProgramBuilder b;
  b.add(at(Op::HOST_WR, 0, 0, 0, 5));
  b.add(at(Op::PIM_LD, 0, 0, 0));
  const ChannelProgram prog = b.take();
  // The artifact's table: the PREA waits for nothing of the bank's (the WR is served first, so 10), the
  // ACTAB only for the PREA's tRP (24), and the load goes in the ACTAB's cycle.
  const std::vector<std::pair<Op, std::int64_t>> channel = {
      {Op::ACT, 0}, {Op::HOST_WR, 10}, {Op::PREA, 10}, {Op::ACTAB, 24}, {Op::PIM_LD, 24}};
  EXPECT_EQ(issued(forkDevice(true, true), prog, true), channel);
  // By the bank: the PREA waits for the write's recovery (10 + CWL 8 + burst 2 + tWR 16 = 36; tRAS 33),
  // the ACTAB tRP after it (50; tRC after the host ACT, 47).
  const std::vector<std::pair<Op, std::int64_t>> bank = {
      {Op::ACT, 0}, {Op::HOST_WR, 10}, {Op::PREA, 36}, {Op::ACTAB, 50}, {Op::PIM_LD, 50}};
  EXPECT_EQ(issued(forkDevice(true, false), prog, true), bank);
}

TEST(ForkTiming, FastForwardKeepsTheArithmeticsSpacing) {
  // A long loop of loads over bank groups and rows, jumped over by fast-forward: the same result as walked.
  ProgramBuilder b;
  b.beginLoop(5000);
  for (int bg = 0; bg < 4; ++bg) {
    Command c = at(Op::PIM_LD, bg % 2, bg, 0);
    c.colStep = 1;
    b.add(c);
  }
  Command wb = at(Op::PIM_WB, 0, 0, 0);
  wb.colStep = 1;  // the write-back follows the loads' columns, so every command's row advances alike
  b.add(wb);
  b.endLoop();
  Program p;
  p.programs.push_back(b.take());
  p.channelMap = {0};
  SimOptions on, off;
  off.fastForward = false;
  const Result a = simulate(forkDevice(true, true), p, on), w = simulate(forkDevice(true, true), p, off);
  EXPECT_GT(a.iterationsFastForwarded, 0);
  test::expectSameResult(a, w);
}

// Host writes fed through the write buffer: row 0, then row 1 of the same banks, five of pseudo-channel 0
// (bank groups 0-3 and bank 1 of group 0) then two of pseudo-channel 1; 30 buffer moves in between, so
// every bank may close its row by the time row 1 comes. tFAW 20 per pseudo-channel. The last seven `op`
// commands (the row change's ACTs or PREs), in time order.
std::vector<std::int64_t> rowChangeCommands(bool byActivate, bool oneRowCommandPerCycle = false,
                                            Op op = Op::ACT) {
  DeviceConfig d = forkDevice(true, true);
  d.tFAW = 20;
  d.rankByActivate = byActivate;
  d.oneRowCommandPerCycle = oneRowCommandPerCycle;
  d.finalize();
  ProgramBuilder b;
  FrontendOrder order;
  order.sent.resize(1);
  auto request = [&](const Command& c, FrontendOrder::Buffer buffer) {
    b.add(c);
    order.sent[0].push_back(order.requests.size());
    order.requests.push_back({0, buffer});
  };
  auto barrier = [&] {
    b.barrier();
    order.barriers.push_back(order.requests.size());
  };
  for (std::uint32_t row : {0u, 1u}) {
    for (auto [pch, bg, bank] :
         {std::tuple{0, 0, 0}, {0, 1, 0}, {0, 2, 0}, {0, 3, 0}, {0, 0, 1}, {1, 0, 0}, {1, 1, 0}})
      request(at(Op::HOST_WR, pch, bg, bank, row), FrontendOrder::Buffer::Write);
    if (row == 1) break;
    barrier();
    for (int k = 0; k < 30; ++k) request(at(Op::WRGB, 0, 0, 0), FrontendOrder::Buffer::Pim);
    barrier();
  }
  std::vector<std::int64_t> times;
  for (const TraceEvent& e : test::simulateFed(d, b.take(), order).trace)
    if (e.op == op) times.push_back(e.start);
  std::sort(times.begin(), times.end());
  return {times.end() - std::min<std::ptrdiff_t>(7, std::ssize(times)), times.end()};
}

TEST(ForkTiming, ARequestThatMustCloseARowIsRankedByItsActivate) {
  // Every bank's PRE at 152 (after the buffer moves), so each request's first command is ready alike. Ranked
  // by it, the oldest goes first: pseudo-channel 0's ACTs at 166 (tRP), 170, 174, 178 (tRRD_S), the fifth
  // held by tFAW to 186, and only then pseudo-channel 1's, 187 (the next row-command cycle) and 191.
  const std::vector<std::int64_t> byPrecharge = {166, 170, 174, 178, 186, 187, 191};
  EXPECT_EQ(rowChangeCommands(false), byPrecharge);
  // Ranked by the ACT (the fork's controller, which picks a command a cycle): pseudo-channel 1's go in the
  // cycles pseudo-channel 0's tRRD_S leaves free, 167 and 171; tFAW still holds the fifth to 186.
  const std::vector<std::int64_t> byActivate = {166, 167, 170, 171, 174, 178, 186};
  EXPECT_EQ(rowChangeCommands(true), byActivate);
}

TEST(ForkTiming, TheRowBusCarriesOneCommandACycle) {
  // The seven banks' PREs of the row change above, all ready at 152: PIMScope's HBM3 model issues them in
  // one cycle, the fork's row bus one a cycle, in the order their requests are served.
  const auto pres = [](bool oneRow) { return rowChangeCommands(true, oneRow, Op::PRE); };
  EXPECT_EQ(pres(false), std::vector<std::int64_t>(7, 152));
  const std::vector<std::int64_t> oneACycle = {152, 153, 154, 155, 156, 157, 158};
  EXPECT_EQ(pres(true), oneACycle);
  // The ACTs do not move: the last PRE (158) plus tRP (14) is 172, before the seventh ACT's tFAW (186), and
  // each earlier request's PRE + tRP is at or before the tRRD_S slot it takes (166, 167, 170, 171, ...).
  const std::vector<std::int64_t> byActivate = {166, 167, 170, 171, 174, 178, 186};
  EXPECT_EQ(rowChangeCommands(true, true), byActivate);
}

}  // namespace
}  // namespace pim::sim
