// SPDX-License-Identifier: Apache-2.0
#include "sim/simulator.h"

#include <algorithm>
#include <unordered_map>

#include "sim/bounds.h"
#include "sim/channel_cache.h"
#include "sim/stats.h"

namespace pim::sim {

Result simulate(const DeviceConfig& cfgIn, const Program& prog, const SimOptions& opts) {
  DeviceConfig cfg = cfgIn;
  cfg.finalize();
  Result res;
  res.tCK_ns = cfg.tCK_ns;

  // Branch and bound: a channel whose command counts alone exceed the bound need not be simulated.
  if (opts.stopAfterCycles > 0) {
    for (const ChannelProgram& cp : prog.programs) {
      const int64_t atLeast = lowerBoundCycles(cfg, cp);
      if (atLeast <= opts.stopAfterCycles) continue;
      res.stoppedEarly = true;
      res.totalCycles = atLeast;
      res.totalNs = cfg.cyclesToNs(res.totalCycles);
      return res;
    }
  }

  // Deduplicate by content: identical channels are simulated once, and with a cache once across calls. A
  // hash match is only a candidate; the programs are compared before one's run stands for the other's.
  ChannelRunCache* cache = opts.trace.enabled ? nullptr : opts.cache;
  if (cache) cache->bind(cfg);
  std::unordered_multimap<uint64_t, size_t> byHash;  // -> index into prog.programs
  std::vector<size_t> progToSim(prog.programs.size());
  std::vector<std::shared_ptr<const ChannelRun>> sims;
  sims.reserve(prog.programs.size());
  for (size_t i = 0; i < prog.programs.size(); ++i) {
    const ChannelProgram& cp = prog.programs[i];
    const uint64_t h = cp.hash();
    const auto [first, last] = byHash.equal_range(h);
    const auto same = std::find_if(first, last, [&](const auto& e) { return prog.programs[e.second] == cp; });
    if (same != last) {
      progToSim[i] = progToSim[same->second];
      continue;
    }
    std::shared_ptr<const ChannelRun> run = cache ? cache->find(h, cp, opts.stopAfterCycles) : nullptr;
    if (!run) {
      int firstChannel = 0;
      for (int ch = 0; ch < prog.numChannels(); ++ch)
        if (prog.channelMap[ch] == int(i)) {
          firstChannel = ch;
          break;
        }
      ChannelScheduler sched(cfg, opts.trace, firstChannel, opts.fastForward);
      sched.run(cp, opts.stopAfterCycles);
      run = std::make_shared<const ChannelRun>(sched.release());
      if (cache) cache->put(h, cp, run);
    }
    sims.push_back(run);
    if (opts.stopAfterCycles > 0 && run->endCycle > opts.stopAfterCycles) {
      // Provably longer than the caller's bound (a stopped run, or a cached complete one): nothing more to
      // time.
      res.stoppedEarly = true;
      res.totalCycles = run->endCycle;
      res.totalNs = cfg.cyclesToNs(res.totalCycles);
      res.distinctProgramsSimulated = static_cast<int>(sims.size());
      return res;
    }
    byHash.emplace(h, i);
    progToSim[i] = sims.size() - 1;
  }
  res.distinctProgramsSimulated = static_cast<int>(sims.size());
  for (const auto& s : sims) res.iterationsFastForwarded += s->iterationsSkipped;

  // Phase breakdown: end[p] = max(end[p-1], max over channels of phase p's completion).
  std::array<int64_t, kNumPhases> end{};
  int64_t prev = 0;
  for (int p = 0; p < kNumPhases; ++p) {
    int64_t e = prev;
    for (int ch = 0; ch < prog.numChannels(); ++ch)
      e = std::max(e, sims[progToSim[prog.channelMap[ch]]]->phaseEnd[p]);
    end[p] = e;
    res.phaseCycles[p] = e - prev;
    prev = e;
  }
  res.totalCycles = prev;
  res.totalNs = cfg.cyclesToNs(res.totalCycles);

  accumulateStats(cfg, prog, sims, progToSim, res);
  for (const auto& s : sims) res.trace.insert(res.trace.end(), s->trace.begin(), s->trace.end());
  return res;
}

}  // namespace pim::sim
