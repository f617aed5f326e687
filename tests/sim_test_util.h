// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the simulator tests: result comparison and regular command streams.
#pragma once
#include <gtest/gtest.h>

#include "sim/simulator.h"

namespace pim::sim::test {

/// Issued commands of `op` in `phase`, summed over every channel of a program (a broadcast counts once, each
/// repeat counts).
inline std::int64_t issued(const Program& p, Op op, Phase phase) {
  std::int64_t n = 0;
  for (int ch = 0; ch < p.numChannels(); ++ch)
    for (const Block& b :
         p.programs[static_cast<std::size_t>(p.channelMap[static_cast<std::size_t>(ch)])].blocks)
      for (const Command& c : b.cmds)
        if (c.op == op && c.phase == phase) n += static_cast<std::int64_t>(b.repeat) * c.repeat;
  return n;
}

/// One channel's program fed request by request through `order` (barriers global steps), traced.
inline Result simulateFed(const DeviceConfig& d, const ChannelProgram& prog, const FrontendOrder& order) {
  Program p;
  p.programs.push_back(prog);
  p.channelMap = {0};
  SimOptions so;
  so.globalBarriers = true;
  so.frontend = &order;
  so.trace.enabled = true;
  return simulate(d, p, so);
}

/// Every number of two simulations agrees: totals, phases, command counts, per-bank statistics and energy.
inline void expectSameResult(const Result& a, const Result& b) {
  EXPECT_EQ(a.totalCycles, b.totalCycles);
  EXPECT_EQ(a.phaseCycles, b.phaseCycles);
  EXPECT_EQ(a.refreshes, b.refreshes);
  EXPECT_EQ(a.commandsIssued, b.commandsIssued);
  EXPECT_EQ(a.stoppedEarly, b.stoppedEarly);
  EXPECT_EQ(a.banks.size(), b.banks.size());
  if (a.banks.size() != b.banks.size()) return;
  for (size_t i = 0; i < a.banks.size(); ++i) {
    EXPECT_EQ(a.banks[i].activations, b.banks[i].activations) << i;
    EXPECT_EQ(a.banks[i].columnCommands, b.banks[i].columnCommands) << i;
    EXPECT_EQ(a.banks[i].pimOps, b.banks[i].pimOps) << i;
    EXPECT_EQ(a.banks[i].busyCycles, b.banks[i].busyCycles) << i;
    EXPECT_EQ(a.banks[i].precharges, b.banks[i].precharges) << i;
    EXPECT_EQ(a.banks[i].bytesRead, b.banks[i].bytesRead) << i;
    EXPECT_EQ(a.banks[i].bytesWritten, b.banks[i].bytesWritten) << i;
    EXPECT_EQ(a.banks[i].energy_pJ, b.banks[i].energy_pJ) << i;
  }
  EXPECT_EQ(a.energy.total_pJ(), b.energy.total_pJ());
  EXPECT_EQ(a.energy.refresh_pJ, b.energy.refresh_pJ);
  EXPECT_EQ(a.commandBusUtilisation, b.commandBusUtilisation);
}

/// One host burst per bank of the channel per iteration (bank groups interleaved), columns advancing by
/// colStep and carrying into the next row; the same program on `channels` channels.
inline Program interleavedHost(const DeviceConfig& c, int64_t iters, Op op, int colStep = 1, int rowStep = 0,
                               int channels = 2) {
  ProgramBuilder b(Phase::InputRearrangement);
  b.beginLoop(iters);
  for (int p = 0; p < c.pseudoChannels; ++p)
    for (int r = 0; r < c.ranks; ++r)
      for (int g = 0; g < c.bankGroups; ++g)
        for (int k = 0; k < c.banksPerBankGroup; ++k) {
          Command cmd;
          cmd.op = op;
          cmd.phase = Phase::InputRearrangement;
          cmd.pch = uint8_t(p), cmd.rank = uint8_t(r), cmd.bg = uint8_t(g), cmd.bank = uint8_t(k);
          cmd.row = 8192;
          cmd.col = uint32_t((p + g) % 3);
          cmd.colStep = colStep;
          cmd.rowStep = rowStep;
          b.add(cmd);
        }
  b.endLoop();
  return Program::replicated(b.take(), channels);
}

}  // namespace pim::sim::test
