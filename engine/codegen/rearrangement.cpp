// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/rearrangement.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "engine/codegen/emit.h"
#include "engine/codegen/host_layout.h"
#include "engine/common/int_math.h"
#include "sim/simulator.h"

namespace pim {
namespace {

std::int64_t tensorBytes(const Problem& p, int t) {
  std::int64_t n = static_cast<std::int64_t>(dtypeBytes(p.kernel().tensors[t].dtype));
  for (auto e : tensorExtents(p.kernel(), t, p.shape())) n *= e;
  return n;
}

// The tensors of `role` the host moves in what `in` lowers (bankRegions keeps them one contiguous region).
bool moved(const LoweringInput& in, int t, TensorRole role) {
  return in.problem.kernel().tensors[t].role == role && movedByHost(in, t);
}

std::int64_t regionBursts(const LoweringInput& in, const BankRegions& r, TensorRole role) {
  std::int64_t n = 0;
  for (std::size_t t = 0; t < r.tensorRow.size(); ++t) {
    if (moved(in, static_cast<int>(t), role)) n += r.tensorBurstsPerBank[t];
  }
  return n;
}

std::uint32_t firstRow(const LoweringInput& in, const BankRegions& r, TensorRole role) {
  for (std::size_t t = 0; t < r.tensorRow.size(); ++t) {
    if (moved(in, static_cast<int>(t), role)) return r.tensorRow[t];
  }
  return 0;
}

// One side of a copy, moved a round at a time: `total` units (host side: bursts of the channel's host region;
// PIM side: bursts per live bank), `perRound` units per round.
struct Side {
  std::int64_t total = 0, perRound = 1;
  std::function<void(std::int64_t first, std::int64_t n)> emit;
};

Side hostSide(const HostStream& s, sim::Op op, std::int64_t roundBursts, sim::ProgramBuilder& out) {
  return {s.bursts(), roundBursts,
          [&s, op, &out](std::int64_t first, std::int64_t n) { s.emit(out, op, first, n); }};
}

Side pimSide(const sim::DeviceConfig& d, sim::Op op, const std::vector<int>& banks, std::uint32_t row,
             std::int64_t perBank, std::int64_t roundBursts, sim::ProgramBuilder& out) {
  if (banks.empty()) return {};
  return {perBank, ceilDiv(roundBursts, static_cast<std::int64_t>(banks.size())),
          [&d, op, &banks, row, &out](std::int64_t first, std::int64_t n) {
            emit::interleavedStream(out, d, op, banks, row, n, first);
          }};
}

// Bursts per channel of one staged round: the host's on-chip buffer divided over the channels.
std::int64_t roundBursts(const LoweringInput& in) {
  const sim::DeviceConfig& d = in.device;
  const std::int64_t roundBytes =
      std::max<std::int64_t>(d.bytesPerColumn, in.problem.backend().system.hostOnChipBytes /
                                                   std::max(1, in.problem.backend().totalGroups()));
  return std::max<std::int64_t>(1, roundBytes / d.bytesPerColumn);
}

// Rounds of B bytes per channel: a round of the first side, then a round of the second, until both are done.
void emitRounds(const Side& first, const Side& second) {
  std::int64_t done1 = 0, done2 = 0;
  auto step = [](const Side& s, std::int64_t& done) {
    if (done >= s.total) return;
    const std::int64_t n = std::min(s.total - done, s.perRound);
    s.emit(done, n);
    done += n;
  };
  while (done1 < first.total || done2 < second.total) {
    step(first, done1);
    step(second, done2);
  }
}

}  // namespace

std::vector<int> liveBanks(const LoweringInput& in, int group) {
  std::vector<int> banks;
  const int bpc = in.problem.backend().core.banksPerCore;
  for (int c = 0; c < in.mapping.coresPerGroup; ++c) {
    if (in.mapping.isIdle(group, c)) continue;
    for (int j = 0; j < bpc; ++j) banks.push_back(c * bpc + j);
  }
  return banks;
}

namespace {

// Cores whose output tiles the host reads: every live core, or with a group accumulator one core per distinct
// output tile (the unit merges the partial sums of the others).
std::vector<int> readCores(const LoweringInput& in, int group) {
  std::vector<int> cores;
  const bool merged = in.problem.backend().hasUnit("accumulator");
  for (int c = 0; c < in.mapping.coresPerGroup; ++c) {
    if (in.mapping.isIdle(group, c)) continue;
    const auto box = in.mapping.outputBox(group, c);  // the covering range of every output axis
    // With an accumulator, one core per distinct box (a scan of those kept: a group has tens of cores).
    const bool seen = merged && std::any_of(cores.begin(), cores.end(), [&](int kept) {
                        const auto other = in.mapping.outputBox(group, kept);
                        return std::equal(box.begin(), box.end(), other.begin(), other.end());
                      });
    if (!seen) cores.push_back(c);
  }
  return cores;
}

// The output tensors a call moves, in tensor order (the order of their regions and host shares).
std::vector<int> movedOutputs(const LoweringInput& in) {
  std::vector<int> out;
  for (std::size_t t = 0; t < in.problem.kernel().tensors.size(); ++t)
    if (moved(in, static_cast<int>(t), TensorRole::Output)) out.push_back(static_cast<int>(t));
  return out;
}

}  // namespace

std::vector<OutputRead> outputReads(const LoweringInput& in, int group, std::span<const StatementWork> work) {
  const Problem& p = in.problem;
  const int bpc = p.backend().core.banksPerCore;
  const std::vector<int> cores = readCores(in, group);
  std::vector<OutputRead> reads;
  for (int t : movedOutputs(in)) {
    // Lane partial sums are left in one bank of each core: only that bank holds the tensor's results.
    int onlyBank = -1;
    for (const StatementWork& w : work) {
      if (p.kernel().statements[w.statement].target.tensor != t) continue;
      if (const auto lp = in.generator.lanePartials(p, w, in.device.bytesPerColumn))
        onlyBank = lp->bankOfCore;
    }
    std::vector<int> banks;
    for (int c : cores)
      for (int j = 0; j < bpc; ++j)
        if (onlyBank < 0 || j == onlyBank) banks.push_back(c * bpc + j);
    if (!reads.empty() && reads.back().banks == banks) {
      reads.back().tensors.push_back(t);
    } else {
      reads.push_back({std::move(banks), {t}});
    }
  }
  return reads;
}

std::vector<std::int64_t> hostShare(const LoweringInput& in, TensorRole role, int channel) {
  const Problem& p = in.problem;
  std::vector<std::int64_t> share;
  for (std::size_t t = 0; t < p.kernel().tensors.size(); ++t) {
    if (!moved(in, static_cast<int>(t), role)) continue;
    const std::int64_t bursts = ceilDiv(tensorBytes(p, static_cast<int>(t)), in.device.bytesPerColumn);
    share.push_back(hostBurstsInChannel(bursts, p.backend().totalGroups(), channel));
  }
  return share;
}

void emitStagedInput(const LoweringInput& in, const GroupView& g, sim::ProgramBuilder& out) {
  const BankRegions& r = g.regions;
  out.setPhase(sim::Phase::InputRearrangement);
  const std::int64_t round = roundBursts(in);
  // Host reads of this channel's share of every input, then PIM writes: every live bank receives its core's
  // padded input tiles (padding must hold neutral values).
  const HostStream host(in.device, g.hostInput, r.hostRow);
  emitRounds(hostSide(host, sim::Op::HOST_RD, round, out),
             pimSide(in.device, sim::Op::HOST_WR, g.liveBanks, firstRow(in, r, TensorRole::Input),
                     regionBursts(in, r, TensorRole::Input), round, out));
  out.barrier();
}

void emitStagedOutput(const LoweringInput& in, const GroupView& g, sim::ProgramBuilder& out) {
  const BankRegions& r = g.regions;
  out.setPhase(sim::Phase::OutputRearrangement);
  const std::int64_t round = roundBursts(in);
  const HostStream host(in.device, g.hostOutput, r.hostRow);
  // One copy per run of tensors read from the same banks; an idle group only writes its host share.
  const std::vector<int> moved = movedOutputs(in);
  std::vector<OutputRead> reads = g.outputReads;
  if (reads.empty()) reads.push_back({{}, moved});
  std::int64_t hostAt = 0;
  for (const OutputRead& read : reads) {
    std::int64_t perBank = 0, hostBursts = 0;
    for (int t : read.tensors) {
      perBank += r.tensorBurstsPerBank[static_cast<std::size_t>(t)];
      const auto i = std::find(moved.begin(), moved.end(), t) - moved.begin();
      if (static_cast<std::size_t>(i) < g.hostOutput.size())
        hostBursts += g.hostOutput[static_cast<std::size_t>(i)];
    }
    const Side hostPart{hostBursts, round, [&host, &out, at = hostAt](std::int64_t first, std::int64_t n) {
                          host.emit(out, sim::Op::HOST_WR, at + first, n);
                        }};
    const std::uint32_t row =
        read.tensors.empty() ? 0 : r.tensorRow[static_cast<std::size_t>(read.tensors.front())];
    emitRounds(pimSide(in.device, sim::Op::HOST_RD, read.banks, row, perBank, round, out), hostPart);
    hostAt += hostBursts;
  }
  out.barrier();
}

SerialRearrangement naiveRearrangement(const LoweringInput& in) {
  const Backend& b = in.problem.backend();
  const sim::DeviceConfig& d = in.device;
  const int channels = b.totalGroups();
  SerialRearrangement s;
  s.bankDeltas.resize(static_cast<std::size_t>(channels) * d.banksPerChannel());
  for (std::size_t i = 0; i < s.bankDeltas.size(); ++i) {
    s.bankDeltas[i].channel = static_cast<int>(i) / d.banksPerChannel();
    s.bankDeltas[i].bank = static_cast<int>(i) % d.banksPerChannel();
  }
  sim::DeviceConfig fresh = d;
  fresh.refresh = false;  // segments are short; refresh is charged once below at its duty cycle

  // Durations of a spread host-layout access (its share on each channel, all channels in parallel) and of a
  // copy into or out of one channel's banks (interleaved over them), simulated once per size.
  std::map<std::tuple<int, std::int64_t, std::size_t>, std::int64_t> memo;
  auto spreadSegment = [&](sim::Op op, std::int64_t bursts) -> std::int64_t {
    if (bursts <= 0) return 0;
    const auto key = std::make_tuple(static_cast<int>(op), bursts, std::size_t{0});
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    // All channels in parallel: the copy lasts as long as the busiest channel's share (channel 0's).
    sim::ProgramBuilder pb(sim::Phase::InputRearrangement);
    const HostStream host(d, {hostBurstsInChannel(bursts, channels, 0)},
                          static_cast<std::uint32_t>(d.rows / 2));
    host.emit(pb, op, 0, host.bursts());
    return memo[key] = sim::simulate(fresh, sim::Program::replicated(pb.take(), 1)).totalCycles;
  };
  auto channelSegment = [&](sim::Op op, const std::vector<int>& banks, std::int64_t perBank) -> std::int64_t {
    if (perBank <= 0 || banks.empty()) return 0;
    const auto key = std::make_tuple(static_cast<int>(op), perBank, banks.size());
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    sim::ProgramBuilder pb(sim::Phase::InputRearrangement);
    emit::interleavedStream(pb, d, op, banks, 0, perBank);
    return memo[key] = sim::simulate(fresh, sim::Program::replicated(pb.take(), 1)).totalCycles;
  };

  const double rdPj = d.energy.rd.pJ, wrPj = d.energy.wr.pJ, actPj = d.energy.act.pJ;
  auto account = [&](int group, int bank, std::int64_t bursts, bool write) {
    auto& st = s.bankDeltas[static_cast<std::size_t>(group) * d.banksPerChannel() + bank];
    (write ? st.bytesWritten : st.bytesRead) += bursts * d.bytesPerColumn;
    st.columnCommands += bursts;
    st.activations += ceilDiv(bursts, d.columns);
    const double e = bursts * (write ? wrPj : rdPj) + ceilDiv(bursts, d.columns) * actPj;
    st.energy_pJ += e;
    s.energyPj += e;
  };
  // One PIM channel at a time (DCC 4.3 I): read its data from the host layout (all channels in parallel),
  // then write it into that channel's banks; the next channel's copy starts when this one is done.
  std::map<std::int64_t, std::int64_t> spreadReads, spreadWrites;  // copies by size
  for (int g = 0; g < in.mapping.groupsUsed; ++g) {
    const GroupView view = groupView(in, g);
    const std::int64_t inPerBank = regionBursts(in, view.regions, TensorRole::Input);
    const std::vector<int>& live = view.liveBanks;
    const std::int64_t inBursts = inPerBank * static_cast<std::int64_t>(live.size());
    if (inBursts > 0) {
      s.inputCycles +=
          spreadSegment(sim::Op::HOST_RD, inBursts) + channelSegment(sim::Op::HOST_WR, live, inPerBank);
      ++s.segments;
      ++spreadReads[inBursts];
    }
    for (int bank : live) account(g, bank, inPerBank, true);
    for (const OutputRead& read : view.outputReads) {
      std::int64_t outPerBank = 0;
      for (int t : read.tensors) outPerBank += view.regions.tensorBurstsPerBank[static_cast<std::size_t>(t)];
      const std::int64_t outBursts = outPerBank * static_cast<std::int64_t>(read.banks.size());
      if (outBursts > 0) {
        s.outputCycles += channelSegment(sim::Op::HOST_RD, read.banks, outPerBank) +
                          spreadSegment(sim::Op::HOST_WR, outBursts);
        ++s.segments;
        ++spreadWrites[outBursts];
      }
      for (int bank : read.banks) account(g, bank, outPerBank, false);
    }
  }
  // The host-layout side of every copy: the bursts its bytes map to, channel by channel and bank by bank.
  auto spread = [&](const std::map<std::int64_t, std::int64_t>& copies, bool write) {
    for (const auto& [bursts, copiesOfSize] : copies)
      for (int g = 0; g < channels; ++g) {
        const std::int64_t inChannel = hostBurstsInChannel(bursts, channels, g);
        for (int bank = 0; bank < d.banksPerChannel() && inChannel > 0; ++bank)
          account(g, bank, copiesOfSize * hostBurstsInBank(inChannel, d.banksPerChannel(), bank), write);
      }
  };
  spread(spreadReads, false);
  spread(spreadWrites, true);
  if (d.refresh && d.tREFI > 0) {
    // Refresh steals tRFC of every tREFI from a serial copy.
    s.inputCycles += s.inputCycles * d.tRFC / d.tREFI;
    s.outputCycles += s.outputCycles * d.tRFC / d.tREFI;
  }
  return s;
}

}  // namespace pim
