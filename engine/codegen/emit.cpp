// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/emit.h"

namespace pim::emit {

sim::Command bankCommand(const sim::DeviceConfig& d, sim::Op op, int flat) {
  sim::Command c;
  c.op = op;
  const int perPch = d.banksPerPseudoChannel(), perRank = d.banksPerRank();
  c.pch = static_cast<std::uint8_t>(flat / perPch);
  c.rank = static_cast<std::uint8_t>((flat % perPch) / perRank);
  c.bg = static_cast<std::uint8_t>((flat % perRank) / d.banksPerBankGroup);
  c.bank = static_cast<std::uint8_t>(flat % d.banksPerBankGroup);
  return c;
}

void broadcastStream(sim::ProgramBuilder& b, sim::Op op, std::uint32_t row, std::int64_t n,
                     std::uint64_t mask, std::uint8_t flags) {
  if (n <= 0) return;
  sim::Command c;
  c.op = op;
  c.row = row;
  c.bankMask = mask;
  c.flags = flags;
  c.colStep = 1;
  b.beginLoop(n);
  b.add(c);
  b.endLoop();
}

void interleavedStream(sim::ProgramBuilder& b, const sim::DeviceConfig& d, sim::Op op,
                       const std::vector<int>& banks, std::uint32_t row, std::int64_t perBank,
                       std::int64_t offset, std::uint8_t flags) {
  if (perBank <= 0 || banks.empty()) return;
  b.beginLoop(perBank);
  for (int flat : banks) {
    sim::Command c = bankCommand(d, op, flat);
    c.row = row + static_cast<std::uint32_t>(offset / d.columns);
    c.col = static_cast<std::uint32_t>(offset % d.columns);
    c.colStep = 1;
    c.flags = flags;
    b.add(c);
  }
  b.endLoop();
}

void bufferCommands(sim::ProgramBuilder& b, const sim::DeviceConfig& d, sim::Op op, std::int64_t n) {
  if (n <= 0) return;
  // One command per bank group in turn (buffer moves are paced like column commands of one rank).
  const std::int64_t full = n / d.bankGroups, rest = n % d.bankGroups;
  auto one = [&](int bg) {
    sim::Command c;
    c.op = op;
    c.bg = static_cast<std::uint8_t>(bg);
    b.add(c);
  };
  if (full > 0) {
    b.beginLoop(full);
    for (int g = 0; g < d.bankGroups; ++g) one(g);
    b.endLoop();
  }
  for (int g = 0; g < rest; ++g) one(g);
}

std::uint64_t maskOf(const std::vector<int>& banks) {
  std::uint64_t m = 0;
  for (int f : banks) m |= std::uint64_t{1} << f;
  return m;
}

}  // namespace pim::emit
