// SPDX-License-Identifier: Apache-2.0
#include "sim/program.h"

namespace pim::sim {

const char* phaseName(Phase p) {
  switch (p) {
    case Phase::InputRearrangement:
      return "input_rearrangement";
    case Phase::Compute:
      return "compute";
    case Phase::OutputRearrangement:
      return "output_rearrangement";
  }
  return "?";
}

const char* opName(Op op) {
  static const char* names[] = {"ACT",     "PRE",     "PREA",    "RD",     "WR",        "ACTAB",
                                "MACAB",   "WRGB",    "MVSB",    "MVGB",   "SFM",       "PIM_LD",
                                "PIM_MAC", "PIM_ADD", "PIM_MUL", "PIM_WB", "PIM_RESET", "BARRIER",
                                "HOST_RD", "HOST_WR", "PIM_RELU"};
  return names[static_cast<int>(op)];
}

OpClass opClass(Op op) {
  switch (op) {
    case Op::ACT:
    case Op::ACTAB:
      return OpClass::RowAct;
    case Op::PRE:
    case Op::PREA:
      return OpClass::RowPre;
    case Op::RD:
    case Op::MACAB:
    case Op::PIM_LD:
    case Op::PIM_MAC:
    case Op::PIM_ADD:
    case Op::PIM_MUL:
    case Op::PIM_RELU:
    case Op::HOST_RD:
      return OpClass::ColRead;
    case Op::WR:
    case Op::PIM_WB:
    case Op::HOST_WR:
      return OpClass::ColWrite;
    case Op::WRGB:
    case Op::MVSB:
    case Op::MVGB:
    case Op::SFM:
    case Op::PIM_RESET:
      return OpClass::Buffer;
    case Op::BARRIER:
      return OpClass::Barrier;
  }
  return OpClass::Barrier;
}

namespace {
// splitmix64's finalizer: a bijection of 64-bit words whose every output bit depends on every input bit.
constexpr uint64_t splitmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Each step maps the state bijectively for a given word, so two programs whose hashed words differ in one
// place always hash differently; any other difference collides with probability ~2^-64. (The previous hash
// XORed repeat, rowStep and colStep into overlapping bits, so e.g. rowStep 1 and colStep 65536 collided.)
class Hasher {
 public:
  void add(uint64_t word) { m_h = splitmix64(m_h ^ word) + 0x9e3779b97f4a7c15ULL; }
  uint64_t value() const { return m_h; }

 private:
  uint64_t m_h = 0x6a09e667f3bcc908ULL;
};
}  // namespace

uint64_t ChannelProgram::hash() const {
  // Fields are packed into words only where their bit ranges are disjoint, so packing loses nothing; the
  // lengths are hashed too, so commands cannot move across a block boundary unnoticed.
  Hasher h;
  h.add(blocks.size());
  for (const Block& b : blocks) {
    h.add(static_cast<uint64_t>(b.repeat));
    h.add(b.cmds.size());
    for (const Command& c : b.cmds) {
      h.add(uint64_t(c.op) | uint64_t(c.phase) << 8 | uint64_t(c.flags) << 16 | uint64_t(c.pch) << 24 |
            uint64_t(c.rank) << 32 | uint64_t(c.bg) << 40 | uint64_t(c.bank) << 48);
      h.add(uint64_t(c.row) << 32 | c.col);
      h.add(c.bankMask);
      h.add(uint64_t(c.repeat) << 32 | uint32_t(c.rowStep));
      h.add(uint32_t(c.colStep));
    }
  }
  return h.value();
}

int64_t ChannelProgram::commandCount() const {
  int64_t n = 0;
  for (const Block& b : blocks) {
    int64_t per = 0;
    for (const Command& c : b.cmds) per += c.repeat;
    n += per * b.repeat;
  }
  return n;
}

int64_t ChannelProgram::requestCount() const {
  int64_t n = 0;
  for (const Block& b : blocks) {
    int64_t per = 0;
    for (const Command& c : b.cmds)
      if (opClass(c.op) != OpClass::Barrier) per += c.repeat;
    n += per * b.repeat;
  }
  return n;
}

Program Program::replicated(ChannelProgram p, int channels) {
  Program prog;
  prog.programs.push_back(std::move(p));
  prog.channelMap.assign(static_cast<size_t>(channels), 0);
  return prog;
}

Block& ProgramBuilder::cur() {
  if (m_prog.blocks.empty() || (!m_inLoop && m_prog.blocks.back().repeat != 1)) m_prog.blocks.emplace_back();
  return m_prog.blocks.back();
}

Command& ProgramBuilder::add(Command c) {
  c.phase = m_phase;
  Block& b = cur();
  b.cmds.push_back(c);
  return b.cmds.back();
}

Command& ProgramBuilder::act(int rank, int bg, int bank, uint32_t row, uint64_t mask) {
  Command c;
  c.op = Op::ACT;
  c.rank = uint8_t(rank), c.bg = uint8_t(bg), c.bank = uint8_t(bank), c.row = row, c.bankMask = mask;
  return add(c);
}

Command& ProgramBuilder::pre(int rank, int bg, int bank, uint64_t mask) {
  Command c;
  c.op = Op::PRE;
  c.rank = uint8_t(rank), c.bg = uint8_t(bg), c.bank = uint8_t(bank), c.bankMask = mask;
  return add(c);
}

Command& ProgramBuilder::rd(int rank, int bg, int bank, uint32_t row, uint32_t col, uint32_t repeat,
                            uint64_t mask) {
  Command c;
  c.op = Op::RD;
  c.rank = uint8_t(rank), c.bg = uint8_t(bg), c.bank = uint8_t(bank), c.row = row, c.col = col;
  c.repeat = repeat, c.bankMask = mask;
  return add(c);
}

Command& ProgramBuilder::wr(int rank, int bg, int bank, uint32_t row, uint32_t col, uint32_t repeat,
                            uint64_t mask) {
  Command& c = rd(rank, bg, bank, row, col, repeat, mask);
  c.op = Op::WR;
  return c;
}

Command& ProgramBuilder::simple(Op op, uint32_t repeat) {
  Command c;
  c.op = op;
  c.repeat = repeat;
  c.flags = kFlagAllBanks;
  return add(c);
}

void ProgramBuilder::barrier() {
  Command c;
  c.op = Op::BARRIER;
  add(c);
}

void ProgramBuilder::beginLoop(int64_t repeat) {
  m_prog.blocks.emplace_back();
  m_prog.blocks.back().repeat = repeat;
  m_inLoop = true;
}

void ProgramBuilder::endLoop() {
  m_inLoop = false;
  m_prog.blocks.emplace_back();  // following commands go to a fresh single block
}

ChannelProgram ProgramBuilder::take() {
  ChannelProgram p = std::move(m_prog);
  std::erase_if(p.blocks, [](const Block& b) { return b.cmds.empty(); });
  m_prog = {};
  return p;
}

}  // namespace pim::sim
