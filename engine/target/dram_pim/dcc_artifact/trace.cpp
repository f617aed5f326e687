// SPDX-License-Identifier: Apache-2.0
#include "engine/target/dram_pim/dcc_artifact/trace.h"

namespace pim::dcc {
namespace {

struct Decoded {
  int channel, pch, rank, bg, bank;
  std::uint32_t row, col;
};

Decoded decode(std::uint64_t a) {
  Decoded d{};
  d.col = static_cast<std::uint32_t>((a >> 5) & 31);
  d.row = static_cast<std::uint32_t>((a >> 10) & 16383);
  d.bank = static_cast<int>((a >> 24) & 3);
  d.bg = static_cast<int>((a >> 26) & 3);
  d.rank = static_cast<int>((a >> 28) & 1);
  d.pch = static_cast<int>((a >> 29) & 1);
  d.channel = static_cast<int>((a >> 30) & 15);  // the stack has 4 channel bits: higher ones wrap
  return d;
}

/// What the artifact's command is in PIMScope's simulator: host bursts address one bank; the HBM-PIM
/// arithmetic and AttAcc's MAC_AB act on every bank of the channel at the addressed row (the HBM3-PIM model
/// treats them as channel-wide, dcc-artifact.md); buffer moves need no row.
sim::Op simOp(Cmd c) {
  switch (c) {
    case Cmd::LD:
      return sim::Op::HOST_RD;
    case Cmd::ST:
      return sim::Op::HOST_WR;
    case Cmd::MAC_OP1:
      return sim::Op::PIM_MAC;
    case Cmd::LD_OP1:
      return sim::Op::PIM_LD;
    case Cmd::RELU:
      return sim::Op::PIM_RELU;
    case Cmd::ADD_OP1:
      return sim::Op::PIM_ADD;
    case Cmd::WB_RES:
    case Cmd::WB_ACC:
      return sim::Op::PIM_WB;
    case Cmd::ACC_RESET:
      return sim::Op::PIM_RESET;
    case Cmd::WR_GB:
      return sim::Op::WRGB;
    case Cmd::MAC_AB:
      return sim::Op::MACAB;
    case Cmd::MV_SB:
      return sim::Op::MVSB;
    case Cmd::MV_GB:
      return sim::Op::MVGB;
    case Cmd::SFM:
      return sim::Op::SFM;
    case Cmd::BARRIER:
      return sim::Op::BARRIER;
  }
  return sim::Op::BARRIER;
}

}  // namespace

const char* cmdName(Cmd c) {
  static constexpr const char* kNames[kCmdCount] = {"LD",     "ST",     "MAC_OP1", "LD_OP1",    "ADD_OP1",
                                                    "RELU",   "WB_RES", "WB_ACC",  "ACC_RESET", "WR_GB",
                                                    "MAC_AB", "MV_SB",  "MV_GB",   "SFM",       "BARRIER"};
  return kNames[static_cast<int>(c)];
}

TraceSink::TraceSink() {
  m_order.sent.resize(kStackChannels);
  m_order.bufferEntries = kRequestBuffer;
}

void TraceSink::add(Cmd c, std::uint64_t address) {
  if (c == Cmd::BARRIER) return barrier();
  const Decoded d = decode(address);
  ++m_counts[d.channel][static_cast<int>(c)];
  sim::Command cmd;
  cmd.op = simOp(c);
  cmd.phase = m_phase;
  cmd.row = d.row;
  cmd.col = d.col;
  // Every request keeps the bank of its address: a host burst and a buffer move are timed by it, and the
  // controller's scheduler compares requests by it (a broadcast acts on every bank whatever its address).
  cmd.pch = static_cast<std::uint8_t>(d.pch);
  cmd.rank = static_cast<std::uint8_t>(d.rank);
  cmd.bg = static_cast<std::uint8_t>(d.bg);
  cmd.bank = static_cast<std::uint8_t>(d.bank);
  using Buffer = sim::FrontendOrder::Buffer;
  const Buffer buffer = c == Cmd::LD ? Buffer::Read : c == Cmd::ST ? Buffer::Write : Buffer::Pim;
  m_order.sent[d.channel].push_back(m_order.requests.size());
  m_order.requests.push_back({static_cast<std::uint8_t>(d.channel), buffer});
  append(d.channel, cmd);
}

void TraceSink::append(int ch, const sim::Command& cmd) {
  sim::ProgramBuilder& b = m_channels[ch];
  // Consecutive columns of one command kind, bank and row are one repeated command (the simulator issues
  // the repeats one by one, as separate commands).
  std::vector<sim::Command>& cmds = b.lastBlock().cmds;
  if (!cmds.empty()) {
    sim::Command& prev = cmds.back();
    if (prev.op == cmd.op && prev.phase == cmd.phase && prev.pch == cmd.pch && prev.rank == cmd.rank &&
        prev.bg == cmd.bg && prev.bank == cmd.bank && prev.row == cmd.row &&
        prev.col + prev.repeat == cmd.col) {
      ++prev.repeat;
      return;
    }
  }
  b.setPhase(cmd.phase);
  b.add(cmd);
}

void TraceSink::barrier() {
  m_order.barriers.push_back(m_order.requests.size());
  for (int ch = 0; ch < kStackChannels; ++ch) {
    ++m_counts[ch][static_cast<int>(Cmd::BARRIER)];
    m_channels[ch].setPhase(m_phase);
    m_channels[ch].barrier();
  }
}

std::int64_t TraceSink::count(Cmd c) const {
  std::int64_t n = 0;
  for (const auto& ch : m_counts) n += ch[static_cast<int>(c)];
  return n;
}

sim::Program TraceSink::take() {
  sim::Program p;
  for (int ch = 0; ch < kStackChannels; ++ch) {
    sim::ChannelProgram cp = m_channels[ch].take();
    std::size_t i = 0;
    while (i < p.programs.size() && !(p.programs[i] == cp)) ++i;
    if (i == p.programs.size()) p.programs.push_back(std::move(cp));
    p.channelMap.push_back(static_cast<int>(i));
  }
  return p;
}

}  // namespace pim::dcc
