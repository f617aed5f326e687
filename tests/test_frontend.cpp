// SPDX-License-Identifier: Apache-2.0
// An in-order frontend in front of bounded request buffers (sim/frontend.h, the DCC artifact's Ramulator 2
// frontend and controller): hand-counted cases of the hold-back, of the controller's choice within a buffer
// (host and PIM requests), and of channels sharing a run only while they are fed alike.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/simulator.h"
#include "sim_test_util.h"

namespace pim::sim {
namespace {

// WRGB buffer moves (no row needed) on a device counted by hand: consecutive ones issue tCCD_L = 4 apart
// and each completes a burst (2 cycles) after it issues; refresh off.
DeviceConfig handCounted() {
  DeviceConfig d;
  d.barrierMode = BarrierMode::Drain;
  d.separateRowColumnBus = true;
  d.refresh = false;
  d.tCCDS = 2;
  d.tCCDL = 4;
  d.burstCyclesOverride = 2;
  return d;
}

/// `n` WRGB on each of two channels, sent in `channels` order (one entry per request), through buffers of
/// `entries`.
struct TwoFedChannels {
  Program program;
  FrontendOrder order;
  TwoFedChannels(std::uint32_t n, const std::vector<std::uint8_t>& channels, std::size_t entries) {
    ProgramBuilder b;
    b.simple(Op::WRGB, n);
    program.programs.push_back(b.take());
    program.channelMap = {0, 0};
    order.sent.resize(2);
    for (std::uint8_t ch : channels) {
      order.sent[ch].push_back(order.requests.size());
      order.requests.push_back({ch, FrontendOrder::Buffer::Pim});
    }
    order.bufferEntries = entries;
  }
  Result run(bool fed) const {
    SimOptions so;
    so.globalBarriers = true;
    so.trace.enabled = true;
    if (fed) so.frontend = &order;
    return simulate(handCounted(), program, so);
  }
};

std::vector<std::int64_t> issues(const Result& r, int ch) {
  std::vector<std::int64_t> t;
  for (const TraceEvent& e : r.trace)
    if (e.channel == ch && e.op == Op::WRGB) t.push_back(e.start);
  return t;
}

TEST(Frontend, AFullBufferHoldsBackTheRequestsOfEveryChannelBehindIt) {
  // Four requests to channel 0, then four to channel 1, buffers of 2. Channel 0: requests 0 and 1 arrive at
  // 0, request 2 when its first departs (issued at 0, entry taken at 1), request 3 at 4 + 1 = 5; it issues at
  // 0, 4, 8, 12. Channel 1's requests are sent after channel 0's last, at 5: two at 5, the third when the
  // first departs (5 + 1), the fourth at 9 + 1; it issues at 5, 9, 13, 17 and ends at 19.
  const TwoFedChannels t(4, {0, 0, 0, 0, 1, 1, 1, 1}, 2);
  const Result fed = t.run(true);
  EXPECT_EQ(issues(fed, 0), (std::vector<std::int64_t>{0, 4, 8, 12}));
  EXPECT_EQ(issues(fed, 1), (std::vector<std::int64_t>{5, 9, 13, 17}));
  EXPECT_EQ(fed.totalCycles, 19);
  EXPECT_EQ(fed.requestsHeldBack, 4);  // the third and fourth of each channel
  // Unfed, both channels issue at 0, 4, 8, 12 and end at 14.
  EXPECT_EQ(t.run(false).totalCycles, 14);
}

TEST(Frontend, ChannelsSentInRoundsShareOneRunAndLoseNothing) {
  // Sent alternately, both channels' requests arrive alike: nothing is held back for long and one run
  // serves both (the same label as unfed); sent one channel after the other they cannot share a run.
  const TwoFedChannels rounds(4, {0, 1, 0, 1, 0, 1, 0, 1}, 2);
  const Result fed = rounds.run(true);
  EXPECT_EQ(fed.totalCycles, 14);
  EXPECT_EQ(fed.distinctProgramsSimulated, 1);
  EXPECT_EQ(issues(fed, 0), (std::vector<std::int64_t>{0, 4, 8, 12}));
  const TwoFedChannels serial(4, {0, 0, 0, 0, 1, 1, 1, 1}, 2);
  EXPECT_EQ(serial.run(true).distinctProgramsSimulated, 2);
}

TEST(Frontend, AnOrderThatDoesNotNumberTheProgramsRequestsIsALogicError) {
  TwoFedChannels t(4, {0, 0, 0, 0, 1, 1, 1}, 2);  // channel 1 sends 3 of its 4
  EXPECT_THROW(t.run(true), std::logic_error);
}

// Host writes to bank 0 of a one-channel device: the first opens row 0; then one to row 1 (a conflict)
// and one to row 0 (a hit).
struct ConflictThenHit {
  Program program;
  FrontendOrder order;
  explicit ConflictThenHit(std::size_t entries) {
    ProgramBuilder b;
    b.wr(0, 0, 0, 0, 0);
    b.wr(0, 0, 0, 1, 0);
    b.wr(0, 0, 0, 0, 1);
    program.programs.push_back(b.take());
    program.channelMap = {0};
    order.sent = {{0, 1, 2}};
    order.requests.assign(3, {0, FrontendOrder::Buffer::Write});
    order.bufferEntries = entries;
  }
  std::int64_t activations() const {
    SimOptions so;
    so.globalBarriers = true;
    so.frontend = &order;
    DeviceConfig d;
    d.refresh = false;
    std::int64_t acts = 0;
    for (const BankStats& b : simulate(d, program, so).banks) acts += b.activations;
    return acts;
  }
};

TEST(Frontend, FrFcfsServesTheRowHitInTheBufferBeforeTheOlderConflict) {
  // With room for both, the hit to the open row goes first: rows 0 then 1, two ACTs. With one entry the
  // requests go in order: rows 0, 1, 0, three ACTs.
  EXPECT_EQ(ConflictThenHit(2).activations(), 2);
  EXPECT_EQ(ConflictThenHit(1).activations(), 3);
}

// Host reads (RD) and writes (WR) to row 0 of bank 0, one column each, sent in `ops` order in one part
// through buffers of 33: the order the channel serves them.
std::vector<Op> servedHostOrder(const std::vector<Op>& ops) {
  ProgramBuilder b;
  FrontendOrder order;
  order.sent.resize(1);
  for (std::uint32_t i = 0; i < ops.size(); ++i) {
    const bool read = ops[i] == Op::RD;
    if (read)
      b.rd(0, 0, 0, 0, i);
    else
      b.wr(0, 0, 0, 0, i);
    order.sent[0].push_back(i);
    order.requests.push_back({0, read ? FrontendOrder::Buffer::Read : FrontendOrder::Buffer::Write});
  }
  std::vector<std::pair<std::int64_t, Op>> issued;
  for (const TraceEvent& e : test::simulateFed(handCounted(), b.take(), order).trace)
    if (e.op == Op::RD || e.op == Op::WR) issued.emplace_back(e.start, e.op);
  std::sort(issued.begin(), issued.end());
  std::vector<Op> served;
  for (const auto& [start, op] : issued) served.push_back(op);
  return served;
}

std::vector<Op> repeated(std::initializer_list<std::pair<Op, int>> runs) {
  std::vector<Op> v;
  for (const auto& [op, n] : runs) v.insert(v.end(), std::size_t(n), op);
  return v;
}

TEST(Frontend, ReadsGoBeforeOlderWritesUntilTheWriteBufferPassesItsHighWatermark) {
  // Ramulator 2's write mode, max_size 32: on above 25.6 writes or with no read waiting, off below 6.4 with a
  // read waiting. Three writes then three reads: the reads first. 27 writes then a read: 21 writes drain the
  // buffer to 6, then the read, then the last 6 writes.
  EXPECT_EQ(servedHostOrder(repeated({{Op::WR, 3}, {Op::RD, 3}})), repeated({{Op::RD, 3}, {Op::WR, 3}}));
  EXPECT_EQ(servedHostOrder(repeated({{Op::WR, 27}, {Op::RD, 1}})),
            repeated({{Op::WR, 21}, {Op::RD, 1}, {Op::WR, 6}}));
}

// One channel fed `cmds` in order, all PIM requests, a barrier before request `barrierAt`, through buffers of
// `entries`, on the hand-counted device with all-bank MACs 6 cycles apart (they take every bank's column
// slot of every bank group: a buffer move may follow one tCCD_L = 4 later).
struct OneFedPimChannel {
  Program program;
  FrontendOrder order;
  OneFedPimChannel(const std::vector<Command>& cmds, std::size_t barrierAt, std::size_t entries) {
    ProgramBuilder b;
    order.sent.resize(1);
    for (std::size_t i = 0; i < cmds.size(); ++i) {
      if (i == barrierAt) {
        b.barrier();
        order.barriers.push_back(i);
      }
      b.add(cmds[i]);
      order.sent[0].push_back(i);
      order.requests.push_back({0, FrontendOrder::Buffer::Pim});
    }
    program.programs.push_back(b.take());
    program.channelMap = {0};
    order.bufferEntries = entries;
  }
  Result run() const {
    DeviceConfig d = handCounted();
    d.pimMacToMac = 6;
    return test::simulateFed(d, program.programs[0], order);
  }
};

Command pimCommand(Op op, std::uint32_t row, std::uint32_t col, std::uint8_t bg = 0) {
  Command c;
  c.op = op;
  c.row = row;
  c.col = col;
  c.bg = bg;
  return c;
}

TEST(Frontend, APimRequestAtTheOpenRowOvertakesAnOlderOneThatNeedsAnother) {
  // MACAB to rows 0, 5, 0 (all banks): with room for all three the second row-0 MAC goes before row 5's, so
  // every bank opens two rows; with one entry they go in order and row 0 opens again.
  const std::vector<Command> macs = {pimCommand(Op::MACAB, 0, 0), pimCommand(Op::MACAB, 5, 0),
                                     pimCommand(Op::MACAB, 0, 1)};
  auto activations = [&](std::size_t entries) {
    const Result r = OneFedPimChannel(macs, SIZE_MAX, entries).run();
    std::int64_t acts = 0;
    for (const BankStats& b : r.banks) acts += b.activations;
    return std::pair{acts, std::int64_t(r.banks.size())};
  };
  const auto [reordered, banks] = activations(3);
  ASSERT_GT(banks, 0);
  EXPECT_EQ(reordered, 2 * banks);
  EXPECT_EQ(activations(1).first, 3 * banks);
}

TEST(Frontend, ABufferMoveWaitsForAnOlderHitInItsBankButNotInAnother) {
  // A MACAB opens row 0 (ACTAB at 0, MACAB tRCD = 14 later) and the barrier after it is taken 2 cycles
  // later (16); then two more MACABs to row 0 (addressed to bank 0), 6 cycles apart, and a WRGB, ready
  // tCCD_L = 4 cycles after the first MACAB (an all-bank MAC takes the column slot of every bank group).
  // Addressed to bank group 1 the WRGB is ready first (18) and goes ahead of both; the MACAB after it then
  // waits for the WRGB's tCCD_L in bank group 1 (22), the next 6 later (28). Addressed to bank 0, where the
  // queued MACs hit, it waits for them (20, 26) and goes tCCD_L after the last (30): the artifact's
  // scheduler lets no younger request that is no hit go first in a bank another buffered request hits.
  auto issues = [](std::uint8_t bg) {
    const Result r = OneFedPimChannel({pimCommand(Op::MACAB, 0, 0), pimCommand(Op::MACAB, 0, 1),
                                       pimCommand(Op::MACAB, 0, 2), pimCommand(Op::WRGB, 0, 0, bg)},
                                      1, 33)
                         .run();
    std::vector<std::pair<std::int64_t, Op>> t;
    for (const TraceEvent& e : r.trace)
      if ((e.op == Op::MACAB && e.bank == 0) || e.op == Op::WRGB) t.emplace_back(e.start, e.op);
    std::sort(t.begin(), t.end());
    return t;
  };
  using Issues = std::vector<std::pair<std::int64_t, Op>>;
  EXPECT_EQ(issues(1), (Issues{{14, Op::MACAB}, {18, Op::WRGB}, {22, Op::MACAB}, {28, Op::MACAB}}));
  EXPECT_EQ(issues(0), (Issues{{14, Op::MACAB}, {20, Op::MACAB}, {26, Op::MACAB}, {30, Op::WRGB}}));
}

}  // namespace
}  // namespace pim::sim
