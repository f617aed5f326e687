// SPDX-License-Identifier: Apache-2.0
#include "sim/simulator.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "sim/bounds.h"
#include "sim/channel_cache.h"
#include "sim/stats.h"

namespace pim::sim {
namespace {

/// The channel runs behind a program: sims[progToSim[i]] is the run of prog.programs[i].
struct Runs {
  std::vector<std::shared_ptr<const ChannelRun>> sims;
  std::vector<size_t> progToSim;
};

/// A result that only says the program takes longer than SimOptions::stopAfterCycles (at least `cycles`).
void stopEarly(const DeviceConfig& cfg, int64_t cycles, int simulated, Result& res) {
  res.stoppedEarly = true;
  res.totalCycles = cycles;
  res.totalNs = cfg.cyclesToNs(res.totalCycles);
  res.distinctProgramsSimulated = simulated;
}

int firstChannelOf(const Program& prog, size_t program) {
  for (int ch = 0; ch < prog.numChannels(); ++ch)
    if (prog.channelMap[ch] == int(program)) return ch;
  return -1;
}

// Deduplicate by content: identical channels are simulated once, and with a cache once across calls. A
// hash match is only a candidate; the programs are compared before one's run stands for the other's. false
// when a run proved the program longer than opts.stopAfterCycles (`res` then says so).
bool runIndependently(const DeviceConfig& cfg, const Program& prog, const SimOptions& opts, Runs& out,
                      Result& res) {
  ChannelRunCache* cache = opts.trace.enabled ? nullptr : opts.cache;
  if (cache) cache->bind(cfg);
  std::unordered_multimap<uint64_t, size_t> byHash;  // -> index into prog.programs
  out.progToSim.assign(prog.programs.size(), 0);
  out.sims.reserve(prog.programs.size());
  for (size_t i = 0; i < prog.programs.size(); ++i) {
    const ChannelProgram& cp = prog.programs[i];
    const uint64_t h = cp.hash();
    const auto [first, last] = byHash.equal_range(h);
    const auto same = std::find_if(first, last, [&](const auto& e) { return prog.programs[e.second] == cp; });
    if (same != last) {
      out.progToSim[i] = out.progToSim[same->second];
      continue;
    }
    std::shared_ptr<const ChannelRun> run = cache ? cache->find(h, cp, opts.stopAfterCycles) : nullptr;
    if (!run) {
      ChannelScheduler sched(cfg, opts.trace, std::max(0, firstChannelOf(prog, i)), opts.fastForward);
      sched.run(cp, opts.stopAfterCycles);
      run = std::make_shared<const ChannelRun>(sched.release());
      if (cache) cache->put(h, cp, run);
    }
    out.sims.push_back(run);
    if (opts.stopAfterCycles > 0 && run->endCycle > opts.stopAfterCycles) {
      // Provably longer than the caller's bound (a stopped run, or a cached complete one): nothing more to
      // time.
      stopEarly(cfg, run->endCycle, static_cast<int>(out.sims.size()), res);
      return false;
    }
    byHash.emplace(h, i);
    out.progToSim[i] = out.sims.size() - 1;
  }
  return true;
}

/// `cp` cut after each barrier: part k ends with the channel's k-th barrier. A repeated block that holds a
/// barrier is unrolled, each iteration a block of its own with its rows and columns advanced as the scheduler
/// advances them (a cut may fall inside an iteration).
std::vector<ChannelProgram> partsOf(const ChannelProgram& cp) {
  std::vector<ChannelProgram> parts(1);
  for (const Block& b : cp.blocks) {
    if (std::none_of(b.cmds.begin(), b.cmds.end(), [](const Command& c) { return c.op == Op::BARRIER; })) {
      parts.back().blocks.push_back(b);
      continue;
    }
    for (int64_t it = 0; it < b.repeat; ++it) {
      parts.back().blocks.emplace_back();
      for (Command c : b.cmds) {
        c.row = static_cast<uint32_t>(int64_t(c.row) + it * c.rowStep);
        c.col = static_cast<uint32_t>(int64_t(c.col) + it * c.colStep);
        c.rowStep = c.colStep = 0;
        if (parts.back().blocks.empty()) parts.back().blocks.emplace_back();
        parts.back().blocks.back().cmds.push_back(c);
        if (c.op == Op::BARRIER) parts.emplace_back();
      }
    }
  }
  return parts;
}

// SimOptions::globalBarriers: the channels run part by part in step, and after each part every channel's
// column commands wait for the latest drain point of all (the trace's next request reaches no channel
// before the last channel took the barrier). Only programs some channel runs take part.
// With a frontend `order`, `prog` has one program per class of channels (sharedRuns()) and the parts run fed
// (FedChannels, which throws NotShared when a class's channels would not run alike).
bool runInLockstep(const DeviceConfig& cfg, const Program& prog, const SimOptions& opts,
                   const FrontendOrder* order, Runs& out, Result& res) {
  std::vector<size_t> used;
  std::vector<std::vector<ChannelProgram>> parts;
  std::vector<std::unique_ptr<ChannelScheduler>> scheds;
  std::vector<int64_t> requests;
  size_t steps = 0;
  for (size_t i = 0; i < prog.programs.size(); ++i) {
    const int ch = firstChannelOf(prog, i);
    if (ch < 0) continue;
    used.push_back(i);
    parts.push_back(partsOf(prog.programs[i]));
    scheds.push_back(std::make_unique<ChannelScheduler>(cfg, opts.trace, ch, opts.fastForward));
    requests.push_back(prog.programs[i].requestCount());
    steps = std::max(steps, parts.back().size());
  }
  std::optional<FedChannels> fed;
  if (order) fed.emplace(*order, prog, requests);
  int64_t drained = 0;
  for (size_t k = 0; k < steps; ++k) {
    if (fed && !fed->runPart(k, drained, scheds, parts, opts.stopAfterCycles)) {
      int64_t end = 0;
      for (const auto& s : scheds) end = std::max(end, s->endCycle);
      stopEarly(cfg, end, static_cast<int>(scheds.size()), res);
      return false;
    }
    for (size_t j = 0; j < scheds.size(); ++j) {
      if (!fed && k < parts[j].size() && !scheds[j]->runPart(parts[j][k], opts.stopAfterCycles)) {
        stopEarly(cfg, scheds[j]->endCycle, static_cast<int>(scheds.size()), res);
        return false;
      }
      drained = std::max(drained, scheds[j]->columnFloor());
    }
    for (auto& s : scheds) s->holdColumnsUntil(drained);
  }
  if (fed) res.requestsHeldBack = fed->heldBack();
  out.progToSim.assign(prog.programs.size(), 0);
  for (size_t j = 0; j < scheds.size(); ++j) {
    scheds[j]->finish();
    out.progToSim[used[j]] = j;
    out.sims.push_back(std::make_shared<const ChannelRun>(scheds[j]->release()));
  }
  return true;
}

}  // namespace

Result simulate(const DeviceConfig& cfgIn, const Program& progIn, const SimOptions& opts) {
  if (opts.frontend && !opts.globalBarriers)
    throw std::logic_error("SimOptions::frontend needs globalBarriers (its barriers are global steps)");
  Program classes = opts.frontend ? sharedRuns(progIn, true) : Program{};
  const Program& prog = opts.frontend ? classes : progIn;
  DeviceConfig cfg = cfgIn;
  cfg.finalize();
  Result res;
  res.tCK_ns = cfg.tCK_ns;

  // Branch and bound: a channel whose command counts alone exceed the bound need not be simulated.
  if (opts.stopAfterCycles > 0) {
    for (const ChannelProgram& cp : prog.programs) {
      const int64_t atLeast = lowerBoundCycles(cfg, cp);
      if (atLeast <= opts.stopAfterCycles) continue;
      stopEarly(cfg, atLeast, 0, res);
      return res;
    }
  }

  Runs runs;
  bool ran = false;
  if (!opts.globalBarriers) {
    ran = runIndependently(cfg, prog, opts, runs, res);
  } else {
    try {
      ran = runInLockstep(cfg, prog, opts, opts.frontend, runs, res);
    } catch (const NotShared&) {  // every channel on its own
      classes = sharedRuns(progIn, false);
      runs = Runs{};
      ran = runInLockstep(cfg, prog, opts, opts.frontend, runs, res);
    }
  }
  if (!ran) return res;
  const std::vector<std::shared_ptr<const ChannelRun>>& sims = runs.sims;
  const std::vector<size_t>& progToSim = runs.progToSim;
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
