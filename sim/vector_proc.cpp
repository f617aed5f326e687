// SPDX-License-Identifier: Apache-2.0
#include "sim/vector_proc.h"

#include <algorithm>
#include <map>
#include <optional>

namespace pim::sim {
namespace {

int either(int pim, int dram) { return pim >= 0 ? pim : dram; }

// One channel's stream: the issue cycle of the last command, its kind and the open row of every bank.
class Stream {
 public:
  explicit Stream(const DeviceConfig& cfg) : m_cfg(cfg) {}

  std::int64_t now() const { return m_now; }
  void advance(std::int64_t cycles) { m_now += cycles; }

  /// Issues `c` at row `row` (its row at this iteration of its block), `times` times at consecutive columns.
  void issue(const Command& c, std::uint32_t row, std::int64_t times) {
    const OpClass k = opClass(c.op);
    if (k == OpClass::Barrier) return;  // one stream: everything is in order already
    if ((k == OpClass::ColRead || k == OpClass::ColWrite) && !rowOpen(c, row)) openRow(c, row);
    for (std::int64_t i = 0; i < times; ++i) step(c.op);
    if (k == OpClass::RowAct) setRow(c, row);
    if (k == OpClass::RowPre) closeRow(c);
  }

 private:
  // The bank a command is timed by: its own, or the lowest of its mask.
  std::uint64_t bankKey(const Command& c) const {
    int flat = ((c.pch * m_cfg.ranks + c.rank) * m_cfg.bankGroups + c.bg) * m_cfg.banksPerBankGroup + c.bank;
    if (c.bankMask) flat = __builtin_ctzll(c.bankMask);
    return static_cast<std::uint64_t>(flat);
  }
  static bool allBanks(const Command& c) {
    return (c.flags & kFlagAllBanks) || c.op == Op::ACTAB || c.op == Op::PREA;
  }
  bool rowOpen(const Command& c, std::uint32_t row) const {
    if (c.op == Op::MACAB) return m_allOpen == row;  // all-bank MAC: the row opened everywhere
    const auto it = m_rows.find(bankKey(c));
    return it != m_rows.end() ? it->second == row : m_allOpen == row;
  }
  // The controller opens the row a column command needs: a precharge when another row is open, then an
  // activate, each after what the stream did last.
  void openRow(const Command& c, std::uint32_t row) {
    const auto it = m_rows.find(bankKey(c));
    if ((it != m_rows.end() && it->second) || (it == m_rows.end() && m_allOpen)) step(Op::PRE);
    step(Op::ACT);
    m_rows[bankKey(c)] = row;
  }
  void setRow(const Command& c, std::uint32_t row) {
    if (allBanks(c)) {
      m_rows.clear();
      m_allOpen = row;
    } else {
      m_rows[bankKey(c)] = row;
    }
  }
  void closeRow(const Command& c) {
    if (allBanks(c)) {
      m_rows.clear();
      m_allOpen.reset();
    } else {
      m_rows[bankKey(c)] = std::nullopt;
    }
  }
  void step(Op op) {
    const OpClass k = opClass(op);
    if (m_last) m_now += spacing(*m_last, m_lastOp, k, op);
    m_last = k;
    m_lastOp = op;
  }
  // The DRAM timing between two consecutive commands of the stream.
  int spacing(OpClass a, Op aOp, OpClass b, Op bOp) const {
    const DeviceConfig& d = m_cfg;
    using C = OpClass;
    if (a == C::RowAct && b == C::ColRead)
      return aOp == Op::ACTAB && bOp == Op::MACAB ? either(d.pimActToMac, d.tRCDRD) : d.tRCDRD;
    if (a == C::RowAct && b == C::ColWrite) return d.tRCDWR;
    if (a == C::RowAct && b == C::RowPre) return aOp == Op::ACTAB ? either(d.pimActToPre, d.tRAS) : d.tRAS;
    if (a == C::RowAct && b == C::RowAct) return aOp == Op::ACTAB ? either(d.pimActToAct, d.tRC) : d.tRRDL;
    if (a == C::RowPre && b == C::RowAct) return aOp == Op::PREA ? either(d.pimPreToAct, d.tRP) : d.tRP;
    if (a == C::ColRead && b == C::ColRead)
      return aOp == Op::MACAB && bOp == Op::MACAB ? either(d.pimMacToMac, d.tCCDL) : d.tCCDL;
    if (a == C::ColWrite && b == C::ColWrite) return d.tCCDL;
    if (a == C::ColRead && b == C::ColWrite) return d.rdToWr;
    if (a == C::ColWrite && b == C::ColRead) return d.wrToRdL;
    if (a == C::ColRead && b == C::RowPre)
      return aOp == Op::MACAB ? either(d.pimMacToPre, d.rdToPre) : d.rdToPre;
    if (a == C::ColWrite && b == C::RowPre) return d.wrToPre;
    if (a == C::Buffer || b == C::Buffer) return d.tCCDL;
    return 1;  // a row command after a column one of another bank, two precharges: one command slot
  }

  const DeviceConfig& m_cfg;
  std::int64_t m_now = 0;
  std::optional<OpClass> m_last;
  Op m_lastOp = Op::BARRIER;
  std::map<std::uint64_t, std::optional<std::uint32_t>> m_rows;  // per bank: the open row, if any
  std::optional<std::uint32_t> m_allOpen;                        // the row an all-bank ACT opened
};

// A block's iterations, walked until two in a row cost the same (a periodic loop); the rest but the last at
// that cost, then the last walked, so the stream leaves with the rows the block's end leaves open.
void walkBlock(Stream& s, const Block& b, Phase phase) {
  auto iteration = [&](std::int64_t i) {
    for (const Command& c : b.cmds) {
      if (c.phase != phase) continue;
      const auto row = static_cast<std::uint32_t>(static_cast<std::int64_t>(c.row) + c.rowStep * i);
      s.issue(c, row, std::max<std::uint32_t>(1, c.repeat));
    }
  };
  std::int64_t prev = -1;
  for (std::int64_t i = 0; i < b.repeat; ++i) {
    const std::int64_t before = s.now();
    iteration(i);
    const std::int64_t took = s.now() - before;
    if (i >= 2 && took == prev && b.repeat - 1 - i >= 2) {
      s.advance((b.repeat - 2 - i) * took);
      iteration(b.repeat - 1);
      return;
    }
    prev = took;
  }
}

}  // namespace

std::int64_t vectorProcCycles(const DeviceConfig& cfg, const Program& prog, Phase phase) {
  std::vector<std::int64_t> perProgram;
  for (const ChannelProgram& cp : prog.programs) {
    Stream s(cfg);
    for (const Block& b : cp.blocks) walkBlock(s, b, phase);
    perProgram.push_back(s.now());
  }
  std::int64_t slowest = 0;
  for (int p : prog.channelMap) slowest = std::max(slowest, perProgram[static_cast<std::size_t>(p)]);
  return slowest;
}

}  // namespace pim::sim
