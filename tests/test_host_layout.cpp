// SPDX-License-Identifier: Apache-2.0
// Host transfers at burst granularity: a host read or write of B bytes is ceil(B / 32) bursts in the
// (channel, bank, column) the host address mapping selects, and banks it does not select are not touched.
// Every expected count below is derived by hand from that mapping (channel first, then bank, then column).
#include <gtest/gtest.h>

#include "tests/test_util.h"

#include <map>

#include "engine/codegen/host_layout.h"
#include "engine/search/evaluate.h"
#include "engine/target/dram_pim/program.h"
#include "sim/scheduler.h"
#include "sim/simulator.h"
#include "tests/shipped_device.h"

namespace pim {
namespace {

using test::problem;

// Expanded commands of `op` in `phase`, per (channel, flat bank), over every channel of a program.
std::map<std::pair<int, int>, std::int64_t> commandsPerBank(const sim::DeviceConfig& d, const sim::Program& p,
                                                            sim::Op op, sim::Phase phase) {
  std::map<std::pair<int, int>, std::int64_t> n;
  for (int ch = 0; ch < p.numChannels(); ++ch)
    for (const sim::Block& b :
         p.programs[static_cast<std::size_t>(p.channelMap[static_cast<std::size_t>(ch)])].blocks)
      for (const sim::Command& c : b.cmds)
        if (c.op == op && c.phase == phase) {
          const std::uint64_t mask = sim::commandMask(d, c);
          for (int bank = 0; bank < 64; ++bank)
            if (mask >> bank & 1) n[{ch, bank}] += b.repeat * c.repeat;
        }
  return n;
}

std::int64_t total(const std::map<std::pair<int, int>, std::int64_t>& m) {
  std::int64_t t = 0;
  for (const auto& [k, v] : m) t += v;
  return t;
}

TEST(HostLayout, BurstsFollowTheAddressMapping) {
  // 2 KiB = 64 bursts over 16 channels: 4 in each, one in each of banks 0..3.
  for (int ch = 0; ch < 16; ++ch) EXPECT_EQ(hostBurstsInChannel(64, 16, ch), 4);
  EXPECT_EQ(hostBurstsInBank(4, 64, 3), 1);
  EXPECT_EQ(hostBurstsInBank(4, 64, 4), 0);
  // A 2-byte output is one burst: channel 0, bank 0; nothing anywhere else.
  EXPECT_EQ(hostBurstsInChannel(1, 80, 0), 1);
  EXPECT_EQ(hostBurstsInChannel(1, 80, 1), 0);
  EXPECT_EQ(hostBurstsInBank(1, 64, 0), 1);
  EXPECT_EQ(hostBurstsInBank(1, 64, 1), 0);
  // 100 bursts over 16 channels: channels 0..3 hold 7, the others 6.
  EXPECT_EQ(hostBurstsInChannel(100, 16, 3), 7);
  EXPECT_EQ(hostBurstsInChannel(100, 16, 4), 6);
}

// One channel's share that straddles a row: B banks x 32 columns + 5 bursts. Banks 0..4 hold 33 bursts (a
// whole row and one column of the next: two activations), the other banks 32 (one row, one activation).
TEST(HostLayout, AShareThatStraddlesARowOpensTheNextRowOnlyWhereItsBurstsAre) {
  const sim::DeviceConfig d = test::shippedDevice("hbm2-pim", false);
  const int banks = d.banksPerChannel(), cols = d.columns;
  ASSERT_EQ(cols, 32);
  const HostStream s(d, {std::int64_t(banks) * cols + 5}, 0);
  sim::ProgramBuilder b(sim::Phase::InputRearrangement);
  s.emit(b, sim::Op::HOST_RD, 0, s.bursts());
  const sim::Result r = sim::simulate(d, sim::Program::replicated(b.take(), 1));
  ASSERT_EQ(r.banks.size(), static_cast<std::size_t>(banks));
  for (const sim::BankStats& st : r.banks) {
    const bool extra = st.bank < 5;
    EXPECT_EQ(st.columnCommands, cols + (extra ? 1 : 0)) << "bank " << st.bank;
    EXPECT_EQ(st.activations, extra ? 2 : 1) << "bank " << st.bank;
  }
}

// Emitting a region in rounds gives the same bursts as emitting it at once, whatever the round boundaries.
TEST(HostLayout, RoundsCoverTheRegionExactlyOnce) {
  const sim::DeviceConfig d = test::shippedDevice("attacc", false);
  const HostStream s(d, {3, 130, 64}, 0);  // three tensors, each from a stripe of its own
  for (std::int64_t round : {1, 7, 64, 1000}) {
    sim::ProgramBuilder b(sim::Phase::InputRearrangement);
    for (std::int64_t first = 0; first < s.bursts(); first += round)
      s.emit(b, sim::Op::HOST_WR, first, std::min(round, s.bursts() - first));
    const auto n = commandsPerBank(d, sim::Program::replicated(b.take(), 1), sim::Op::HOST_WR,
                                   sim::Phase::InputRearrangement);
    EXPECT_EQ(total(n), 3 + 130 + 64) << "round " << round;
    // Tensor 0: banks 0..2 once; tensor 1: every bank twice and banks 0, 1 a third time; tensor 2: once each.
    EXPECT_EQ((n.count({0, 0}) ? n.at({0, 0}) : 0), 1 + 3 + 1);
    EXPECT_EQ((n.count({0, 2}) ? n.at({0, 2}) : 0), 1 + 2 + 1);
    EXPECT_EQ((n.count({0, 63}) ? n.at({0, 63}) : 0), 0 + 2 + 1);
  }
}

// RED b=1, n=1024 on hbm-pim (80 channels of 64 banks): the 2 KiB input is 64 bursts, one in bank 0 of each
// of channels 0..63; the 2-byte output is one burst in channel 0, bank 0. No other bank sees a host command.
TEST(HostLayout, AReductionMovesOnlyTheBurstsItsBytesNeed) {
  const auto p = problem("hbm-pim", "red", "b=1,n=1024");
  const Draft d = p->space().draft(p->space().idOf(std::vector<PartChoice>{{1, 1, 0}, {1, 16, 0}}));
  const sim::Program prog = draftProgram(*p, d);
  const sim::DeviceConfig dev = test::shippedDevice("hbm-pim");
  const auto reads = commandsPerBank(dev, prog, sim::Op::HOST_RD, sim::Phase::InputRearrangement);
  EXPECT_EQ(total(reads), 64);
  for (const auto& [where, n] : reads) {
    EXPECT_LT(where.first, 64);
    EXPECT_EQ(where.second, 0);
    EXPECT_EQ(n, 1);
  }
  const auto writes = commandsPerBank(dev, prog, sim::Op::HOST_WR, sim::Phase::OutputRearrangement);
  ASSERT_EQ(writes.size(), 1u);
  EXPECT_EQ(writes.begin()->first, (std::pair<int, int>{0, 0}));
  EXPECT_EQ(writes.begin()->second, 1);
  // The draft computes in channel 0 only: in every other channel only bank 0 (one input burst) ever opens a
  // row, so no idle bank pays for a row the host left open.
  const sim::Result r = sim::simulate(dev, prog);
  for (const sim::BankStats& st : r.banks) {
    if (st.channel == 0) continue;
    const bool touched = st.channel < 64 && st.bank == 0;
    EXPECT_EQ(st.activations, touched ? 1 : 0) << "channel " << st.channel << " bank " << st.bank;
    EXPECT_EQ(st.columnCommands, touched ? 1 : 0) << "channel " << st.channel << " bank " << st.bank;
  }
}

}  // namespace
}  // namespace pim
