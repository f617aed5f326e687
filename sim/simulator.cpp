// SPDX-License-Identifier: Apache-2.0
#include "sim/simulator.h"

#include <algorithm>
#include <unordered_map>

#include "sim/stats.h"

namespace pim::sim {

Result simulate(const DeviceConfig& cfgIn, const Program& prog, const SimOptions& opts) {
  DeviceConfig cfg = cfgIn;
  cfg.finalize();
  Result res;
  res.tCK_ns = cfg.tCK_ns;

  // Deduplicate by content hash: identical channels are simulated once.
  std::unordered_map<uint64_t, size_t> byHash;
  std::vector<size_t> progToSim(prog.programs.size());
  std::vector<ChannelScheduler> sims;
  sims.reserve(prog.programs.size());
  for (size_t i = 0; i < prog.programs.size(); ++i) {
    const uint64_t h = prog.programs[i].hash();
    auto it = byHash.find(h);
    if (it != byHash.end()) {
      progToSim[i] = it->second;
      continue;
    }
    int firstChannel = 0;
    for (int ch = 0; ch < prog.numChannels(); ++ch)
      if (prog.channelMap[ch] == int(i)) {
        firstChannel = ch;
        break;
      }
    sims.emplace_back(cfg, opts.trace, firstChannel, opts.fastForward);
    sims.back().run(prog.programs[i]);
    byHash[h] = sims.size() - 1;
    progToSim[i] = sims.size() - 1;
  }
  res.distinctProgramsSimulated = static_cast<int>(sims.size());
  for (const ChannelScheduler& s : sims) res.iterationsFastForwarded += s.iterationsSkipped;

  // Phase breakdown: end[p] = max(end[p-1], max over channels of phase p's completion).
  std::array<int64_t, kNumPhases> end{};
  int64_t prev = 0;
  for (int p = 0; p < kNumPhases; ++p) {
    int64_t e = prev;
    for (int ch = 0; ch < prog.numChannels(); ++ch)
      e = std::max(e, sims[progToSim[prog.channelMap[ch]]].phaseEnd[p]);
    end[p] = e;
    res.phaseCycles[p] = e - prev;
    prev = e;
  }
  res.totalCycles = prev;
  res.totalNs = cfg.cyclesToNs(res.totalCycles);

  accumulateStats(cfg, prog, sims, progToSim, res);
  for (ChannelScheduler& s : sims) {
    auto& t = s.trace();
    res.trace.insert(res.trace.end(), t.begin(), t.end());
  }
  return res;
}

}  // namespace pim::sim
