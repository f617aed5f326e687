// SPDX-License-Identifier: Apache-2.0
#include "sim/bounds.h"

#include <algorithm>
#include <array>
#include <bit>
#include <vector>

#include "sim/scheduler.h"

namespace pim::sim {

int64_t lowerBoundCycles(const DeviceConfig& cfg, const ChannelProgram& prog) {
  const int perPch = cfg.banksPerPseudoChannel();
  const uint64_t pchMask = perPch >= 64 ? ~0ULL : ((1ULL << perPch) - 1);
  struct PhaseCount {
    std::vector<int64_t> bursts;  // per pseudo-channel
    int64_t allBank = 0;
  };
  std::array<PhaseCount, kNumPhases> phases;
  for (auto& p : phases) p.bursts.assign(static_cast<size_t>(cfg.pseudoChannels), 0);
  for (const Block& blk : prog.blocks) {
    for (const Command& c : blk.cmds) {
      const OpClass k = opClass(c.op);
      if (k != OpClass::ColRead && k != OpClass::ColWrite && k != OpClass::Buffer) continue;
      const int64_t n = int64_t(c.repeat) * blk.repeat;
      PhaseCount& p = phases[static_cast<size_t>(c.phase)];
      if (k == OpClass::Buffer) {  // issued on its own pseudo-channel's bus
        p.bursts[c.pch] += n;
        continue;
      }
      const uint64_t mask = commandMask(cfg, c);
      for (int ch = 0; ch < cfg.pseudoChannels; ++ch)
        if (mask & (pchMask << (ch * perPch))) p.bursts[static_cast<size_t>(ch)] += n;
      if (isAllBankOp(c.op)) p.allBank += n;
    }
  }
  int64_t total = 0;
  for (const PhaseCount& p : phases) {
    const int64_t busiest = *std::max_element(p.bursts.begin(), p.bursts.end());
    int64_t t = busiest * cfg.burstCycles();
    if (p.allBank > 0) t = std::max(t, (p.allBank - 1) * std::max(0, cfg.pimMacToMac) + 1);
    total += t;
  }
  return total;
}

}  // namespace pim::sim
