// SPDX-License-Identifier: Apache-2.0
// Channel program identity: the content hash feeds every field, equal hashes are confirmed by comparing the
// programs, and the channel-run cache never hands one program's timing to another.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/channel_cache.h"
#include "sim/simulator.h"
#include "sim_test_util.h"
#include "tests/shipped_device.h"

using namespace pim::sim;

namespace {

// Two blocks (a repeated one and a single one) with commands whose fields are all non-default.
ChannelProgram sample() {
  Command c;
  c.op = Op::RD;
  c.phase = Phase::Compute;
  c.flags = kFlagPim;
  c.pch = 1, c.rank = 0, c.bg = 2, c.bank = 3;
  c.row = 100, c.col = 7;
  c.bankMask = 0x0f0f;
  c.repeat = 4, c.rowStep = 1, c.colStep = 8;
  Command w = c;
  w.op = Op::WR;
  w.phase = Phase::OutputRearrangement;
  w.row = 200;
  ChannelProgram p;
  p.blocks.push_back(Block{{c, w}, 16});
  p.blocks.push_back(Block{{w}, 1});
  return p;
}

ChannelRun runOf(const DeviceConfig& cfgIn, const ChannelProgram& p) {
  DeviceConfig cfg = cfgIn;
  cfg.finalize();
  ChannelScheduler s(cfg, TraceWindow{}, 0);
  s.run(p);
  return s.release();
}

}  // namespace

TEST(ChannelProgramHash, ChangesWhenAnySingleFieldChanges) {
  using Edit = std::function<void(ChannelProgram&)>;
  auto cmd = [](ChannelProgram& p) -> Command& { return p.blocks[0].cmds[0]; };
  const std::vector<std::pair<std::string, Edit>> edits = {
      {"op", [&](ChannelProgram& p) { cmd(p).op = Op::PIM_MAC; }},
      {"phase", [&](ChannelProgram& p) { cmd(p).phase = Phase::InputRearrangement; }},
      {"flags", [&](ChannelProgram& p) { cmd(p).flags = kFlagPim | kFlagAllBanks; }},
      {"pch", [&](ChannelProgram& p) { cmd(p).pch = 0; }},
      {"rank", [&](ChannelProgram& p) { cmd(p).rank = 1; }},
      {"bg", [&](ChannelProgram& p) { cmd(p).bg = 3; }},
      {"bank", [&](ChannelProgram& p) { cmd(p).bank = 0; }},
      {"row", [&](ChannelProgram& p) { cmd(p).row = 101; }},
      {"col", [&](ChannelProgram& p) { cmd(p).col = 6; }},
      {"bankMask", [&](ChannelProgram& p) { cmd(p).bankMask = 0x0f0f0000'00000000ULL; }},
      {"repeat", [&](ChannelProgram& p) { cmd(p).repeat = 5; }},
      {"rowStep", [&](ChannelProgram& p) { cmd(p).rowStep = -1; }},
      {"colStep", [&](ChannelProgram& p) { cmd(p).colStep = 8 + 65536; }},
      {"block repeat", [&](ChannelProgram& p) { p.blocks[0].repeat = 17; }},
      {"second block's command", [&](ChannelProgram& p) { p.blocks[1].cmds[0].col = 8; }},
      {"a command moved across blocks",
       [&](ChannelProgram& p) {
         p.blocks[1].cmds.insert(p.blocks[1].cmds.begin(), p.blocks[0].cmds.back());
         p.blocks[0].cmds.pop_back();
       }},
      {"a block fewer", [&](ChannelProgram& p) { p.blocks.pop_back(); }},
      {"a command more", [&](ChannelProgram& p) { p.blocks[1].cmds.push_back(p.blocks[1].cmds[0]); }},
  };
  const ChannelProgram base = sample();
  EXPECT_EQ(sample().hash(), base.hash());
  EXPECT_EQ(sample(), base);
  for (const auto& [what, edit] : edits) {
    ChannelProgram p = sample();
    edit(p);
    EXPECT_NE(p.hash(), base.hash()) << what;
    EXPECT_FALSE(p == base) << what;
  }
}

// The previous hash XORed repeat, rowStep and colStep into one word with overlapping bits, so these pairs
// had equal hashes, and the simulator reused one's timing for the other.
TEST(ChannelProgramHash, OverlappingFieldsDoNotCancelOut) {
  auto with = [](int32_t rowStep, int32_t colStep) {
    ChannelProgram p = sample();
    p.blocks[0].cmds[0].rowStep = rowStep;
    p.blocks[0].cmds[0].colStep = colStep;
    return p;
  };
  EXPECT_NE(with(1, 0).hash(), with(0, 65536).hash());
  EXPECT_NE(with(0, -1).hash(), with(0xffff, 0xffff).hash());
}

TEST(ChannelRunCache, HashCollisionDoesNotReuseAnotherProgramsTiming) {
  const DeviceConfig cfg = pim::test::shippedDevice("attacc");
  const ChannelProgram shortOne = test::interleavedHost(cfg, 20, Op::HOST_WR).programs[0];
  const ChannelProgram longOne = test::interleavedHost(cfg, 900, Op::HOST_WR).programs[0];
  const auto shortRun = std::make_shared<const ChannelRun>(runOf(cfg, shortOne));
  const auto longRun = std::make_shared<const ChannelRun>(runOf(cfg, longOne));
  ASSERT_LT(shortRun->endCycle, longRun->endCycle);

  ChannelRunCache cache;
  DeviceConfig bound = cfg;
  bound.finalize();
  cache.bind(bound);
  const std::uint64_t h = 42;  // both programs "hash" alike: a collision
  cache.put(h, shortOne, shortRun);
  EXPECT_EQ(cache.find(h, longOne, 0), nullptr);
  EXPECT_EQ(cache.collisions(), 1u);
  EXPECT_EQ(cache.find(h, shortOne, 0), shortRun);
  // The colliding program's run replaces the older entry; the older program is not answered with it.
  cache.put(h, longOne, longRun);
  EXPECT_EQ(cache.find(h, longOne, 0), longRun);
  EXPECT_EQ(cache.find(h, shortOne, 0), nullptr);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.hits(), 2u);
}

TEST(ChannelRunCache, KeepsItsProgramsAndRunsWithinItsByteBudget) {
  const DeviceConfig cfg = pim::test::shippedDevice("attacc");
  DeviceConfig bound = cfg;
  bound.finalize();
  std::vector<ChannelProgram> programs;
  for (int i = 1; i <= 12; ++i) programs.push_back(test::interleavedHost(cfg, i, Op::HOST_RD).programs[0]);
  const auto run = std::make_shared<const ChannelRun>(runOf(cfg, programs[0]));

  ChannelRunCache unbounded;
  unbounded.bind(bound);
  unbounded.put(programs[0].hash(), programs[0], run);
  const std::size_t perEntry = unbounded.bytes();
  ASSERT_GT(perEntry, run->banks.size() * sizeof(BankState));

  ChannelRunCache cache(4096, 5 * perEntry);
  cache.bind(bound);
  for (const ChannelProgram& p : programs) {
    cache.put(p.hash(), p, run);
    EXPECT_LE(cache.bytes(), 5 * perEntry);
  }
  EXPECT_GE(cache.size(), 3u);
  EXPECT_LT(cache.size(), programs.size());
  // The most recent entries stay; the oldest went first.
  EXPECT_NE(cache.find(programs.back().hash(), programs.back(), 0), nullptr);
  EXPECT_EQ(cache.find(programs.front().hash(), programs.front(), 0), nullptr);

  // An entry above a quarter of the budget is not kept at all (it would push out the others).
  ChannelRunCache tiny(4096, 2 * perEntry);
  tiny.bind(bound);
  tiny.put(programs[0].hash(), programs[0], run);
  EXPECT_EQ(tiny.size(), 0u);
  EXPECT_EQ(tiny.bytes(), 0u);
}

// Channels running different programs are simulated separately even within one call, and channels running
// equal programs share one run.
TEST(SimDedupe, EqualProgramsShareARunAndOthersDoNot) {
  const DeviceConfig cfg = pim::test::shippedDevice("attacc");
  Program p = test::interleavedHost(cfg, 300, Op::HOST_WR, 1, 0, 4);
  p.programs.push_back(p.programs[0]);  // an equal copy under another index
  p.programs.push_back(test::interleavedHost(cfg, 100, Op::HOST_RD).programs[0]);
  p.channelMap = {0, 1, 2, 2};
  const Result r = simulate(cfg, p);
  EXPECT_EQ(r.distinctProgramsSimulated, 2);
  Program alone = test::interleavedHost(cfg, 300, Op::HOST_WR, 1, 0, 4);
  EXPECT_EQ(r.totalCycles, simulate(cfg, alone).totalCycles);
}

// Under the previous hash these two programs collided (repeat 3 and rowStep 2^17 XORed into overlapping
// bits), so simulate() timed the second with the first one's run, within one call and through the cache.
TEST(SimDedupe, ProgramsThatCollidedUnderTheOldHashAreTimedSeparately) {
  const DeviceConfig cfg = pim::test::shippedDevice("attacc");
  Program a = test::interleavedHost(cfg, 1, Op::HOST_WR, 0, 0, 1);
  for (Command& c : a.programs[0].blocks[0].cmds) c.repeat = 3;
  const Program b =
      test::interleavedHost(cfg, 1, Op::HOST_WR, 0, 1 << 17, 1);  // one iteration: no step taken
  const Result aloneA = simulate(cfg, a), aloneB = simulate(cfg, b);
  ASSERT_NE(aloneA.commandsIssued, aloneB.commandsIssued);

  Program both = a;
  both.programs.push_back(b.programs[0]);
  both.channelMap = {0, 1};
  const Result r = simulate(cfg, both);
  EXPECT_EQ(r.distinctProgramsSimulated, 2);
  EXPECT_EQ(r.commandsIssued, aloneA.commandsIssued + aloneB.commandsIssued);

  ChannelRunCache cache;
  SimOptions cached;
  cached.cache = &cache;
  test::expectSameResult(simulate(cfg, a, cached), aloneA);
  test::expectSameResult(simulate(cfg, b, cached), aloneB);
}
