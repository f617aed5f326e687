// SPDX-License-Identifier: Apache-2.0
#include "engine/target/dram_pim/bank_statistics.h"

#include <algorithm>

namespace pim {

UnitGeometry bankGeometry(const Backend& b) {
  UnitGeometry g;
  g.outerName = "pseudo-channel";
  g.innerName = "bank";
  const int perGroup = b.group.pseudoChannelsPerGroup;
  g.outerCount = b.totalGroups() * perGroup;
  g.innerCount = b.dram.banksPerPseudoChannel();
  g.bands = {{"PIM group", perGroup}, {"device", perGroup * b.group.groupsPerDevice}};
  g.bandKey = "channel";  // the simulator's channel is a PIM group (sim::BankStats)
  g.unitKey = "bank";
  return g;
}

namespace {

/// One declared statistic and where the simulator keeps it.
struct BankStat {
  StatDecl decl;
  double (*read)(const sim::BankStats&);
};

const std::vector<BankStat>& bankStats() {
  using S = sim::BankStats;
  static const std::vector<BankStat> stats = {
      {{"bytes", "bytes", "bytes", "bytes read and written in the bank"},
       [](const S& s) { return static_cast<double>(s.bytesRead + s.bytesWritten); }},
      {{"bytes_read", "bytes read", "bytes", "bytes read from the bank (host reads and PIM operands)"},
       [](const S& s) { return static_cast<double>(s.bytesRead); }},
      {{"bytes_written", "bytes written", "bytes", "bytes written into the bank"},
       [](const S& s) { return static_cast<double>(s.bytesWritten); }},
      {{"busy_cycles", "busy cycles", "cycles", "cycles with a row open (ACT to PRE)"},
       [](const S& s) { return static_cast<double>(s.busyCycles); }},
      {{"activations", "activations", "count", "row activations"},
       [](const S& s) { return static_cast<double>(s.activations); }},
      {{"column_commands", "column commands", "count", "column reads and writes, host or PIM"},
       [](const S& s) { return static_cast<double>(s.columnCommands); }},
      {{"pim_ops", "PIM operations", "count", "PIM ALU operations executed next to the bank"},
       [](const S& s) { return static_cast<double>(s.pimOps); }},
      {{"energy_pj", "energy", "pJ", "energy of the bank's commands", false},
       [](const S& s) { return s.energy_pJ; }},
  };
  return stats;
}

}  // namespace

const std::vector<StatDecl>& bankStatisticDecls() {
  static const std::vector<StatDecl> decls = [] {
    std::vector<StatDecl> out;
    for (const auto& s : bankStats()) out.push_back(s.decl);
    return out;
  }();
  return decls;
}

UnitStatistics bankStatistics(const std::vector<sim::BankStats>& banks, const UnitGeometry& geometry) {
  const auto& stats = bankStats();
  UnitStatistics u;
  u.statCount = stats.size();
  const int perBand = geometry.unitsPerBand();
  // The units up to the last simulated one: a vendor program may simulate only the first channels.
  long simulated = 0;
  for (const sim::BankStats& b : banks)
    simulated = std::max(simulated, std::min<long>(geometry.units(), long{b.channel} * perBand + b.bank + 1));
  u.values.assign(static_cast<std::size_t>(simulated) * u.statCount, 0.0);
  for (const sim::BankStats& b : banks) {
    const long unit = static_cast<long>(b.channel) * perBand + b.bank;
    if (b.bank >= perBand || unit < 0 || unit >= simulated) continue;
    for (std::size_t s = 0; s < stats.size(); ++s)
      u.values[static_cast<std::size_t>(unit) * u.statCount + s] = stats[s].read(b);
  }
  return u;
}

}  // namespace pim
