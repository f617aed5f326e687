// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/rearrangement.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "engine/codegen/emit.h"
#include "sim/simulator.h"

namespace pim {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::int64_t tensorBytes(const Problem& p, int t) {
  std::int64_t n = static_cast<std::int64_t>(dtypeBytes(p.kernel().tensors[t].dtype));
  for (auto e : tensorExtents(p.kernel(), t, p.shape())) n *= e;
  return n;
}

std::int64_t hostBytes(const Problem& p, TensorRole role) {
  std::int64_t n = 0;
  for (std::size_t t = 0; t < p.kernel().tensors.size(); ++t) {
    if (p.kernel().tensors[t].role == role) n += tensorBytes(p, static_cast<int>(t));
  }
  return n;
}

std::int64_t regionBursts(const Kernel& k, const BankRegions& r, TensorRole role) {
  std::int64_t n = 0;
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    if (k.tensors[t].role == role) n += r.tensorBurstsPerBank[t];
  }
  return n;
}

std::uint32_t firstRow(const Kernel& k, const BankRegions& r, TensorRole role) {
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    if (k.tensors[t].role == role) return r.tensorRow[t];
  }
  return 0;
}

std::vector<int> allBanks(const sim::DeviceConfig& d) {
  std::vector<int> v(static_cast<std::size_t>(d.banksPerChannel()));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

// Rounds of B bytes per channel: `firstBursts` of the first kind, then `secondBursts` of the second kind.
struct Stream {
  sim::Op op;
  std::vector<int> banks;
  std::uint32_t row;
  std::int64_t perBank;  // total per bank
};

void emitRounds(const LoweringInput& in, Stream first, Stream second, sim::ProgramBuilder& out) {
  const sim::DeviceConfig& d = in.device;
  const std::int64_t roundBytes =
      std::max<std::int64_t>(d.bytesPerColumn, in.problem.backend().system.hostOnChipBytes /
                                                   std::max(1, in.problem.backend().totalGroups()));
  const std::int64_t roundBursts = std::max<std::int64_t>(1, roundBytes / d.bytesPerColumn);
  std::int64_t done1 = 0, done2 = 0;
  if (first.banks.empty()) first.perBank = 0;
  if (second.banks.empty()) second.perBank = 0;
  auto step = [&](const Stream& s, std::int64_t& done) {
    if (done >= s.perBank) return;
    const std::int64_t perBank = std::min(s.perBank - done, ceilDiv(roundBursts, s.banks.size()));
    emit::interleavedStream(out, d, s.op, s.banks, s.row, perBank, done);
    done += perBank;
  };
  while (done1 < first.perBank || done2 < second.perBank) {
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

std::vector<int> outputBanks(const LoweringInput& in, int group) {
  if (!in.problem.backend().hasUnit("accumulator")) return liveBanks(in, group);
  std::set<std::vector<std::int64_t>> seen;
  std::vector<int> banks;
  const int bpc = in.problem.backend().core.banksPerCore;
  for (int c = 0; c < in.mapping.coresPerGroup; ++c) {
    if (in.mapping.isIdle(group, c)) continue;
    const auto box = in.mapping.outputBox(group, c);  // the covering range of every output axis
    if (!seen.insert(std::vector<std::int64_t>(box.begin(), box.end())).second) continue;
    for (int j = 0; j < bpc; ++j) banks.push_back(c * bpc + j);
  }
  return banks;
}

void emitStagedInput(const LoweringInput& in, const GroupView& g, sim::ProgramBuilder& out) {
  const Kernel& k = in.problem.kernel();
  const BankRegions& r = g.regions;
  const sim::DeviceConfig& d = in.device;
  const int channels = in.problem.backend().totalGroups();
  out.setPhase(sim::Phase::InputRearrangement);
  // Host reads: this channel's share of every input, bank-interleaved in the host region.
  Stream reads{sim::Op::HOST_RD, allBanks(d), r.hostRow,
               ceilDiv(ceilDiv(hostBytes(in.problem, TensorRole::Input), channels * d.bytesPerColumn),
                       d.banksPerChannel())};
  // PIM writes: every live bank receives its core's padded input tiles (padding must hold neutral values).
  Stream writes{sim::Op::HOST_WR, g.liveBanks, firstRow(k, r, TensorRole::Input),
                regionBursts(k, r, TensorRole::Input)};
  emitRounds(in, reads, writes, out);
  out.barrier();
}

void emitStagedOutput(const LoweringInput& in, const GroupView& g, sim::ProgramBuilder& out) {
  const Kernel& k = in.problem.kernel();
  const BankRegions& r = g.regions;
  const sim::DeviceConfig& d = in.device;
  const int channels = in.problem.backend().totalGroups();
  out.setPhase(sim::Phase::OutputRearrangement);
  Stream reads{sim::Op::HOST_RD, g.outputBanks, firstRow(k, r, TensorRole::Output),
               regionBursts(k, r, TensorRole::Output)};
  Stream writes{sim::Op::HOST_WR, allBanks(d), r.hostRow,
                ceilDiv(ceilDiv(hostBytes(in.problem, TensorRole::Output), channels * d.bytesPerColumn),
                        d.banksPerChannel())};
  emitRounds(in, reads, writes, out);
  out.barrier();
}

SerialRearrangement naiveRearrangement(const LoweringInput& in) {
  const Kernel& k = in.problem.kernel();
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
    sim::ProgramBuilder pb(sim::Phase::InputRearrangement);
    const auto banks = allBanks(d);
    emit::interleavedStream(pb, d, op, banks, static_cast<std::uint32_t>(d.rows / 2),
                            ceilDiv(ceilDiv(bursts, channels), banks.size()));
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
  std::int64_t spreadReads = 0, spreadWrites = 0;
  for (int g = 0; g < in.mapping.groupsUsed; ++g) {
    const GroupView view = groupView(in, g);
    const std::int64_t inPerBank = regionBursts(k, view.regions, TensorRole::Input);
    const std::int64_t outPerBank = regionBursts(k, view.regions, TensorRole::Output);
    const std::vector<int>& live = view.liveBanks;
    const std::vector<int>& out = view.outputBanks;
    const std::int64_t inBursts = inPerBank * static_cast<std::int64_t>(live.size());
    const std::int64_t outBursts = outPerBank * static_cast<std::int64_t>(out.size());
    if (inBursts > 0) {
      s.inputCycles +=
          spreadSegment(sim::Op::HOST_RD, inBursts) + channelSegment(sim::Op::HOST_WR, live, inPerBank);
      ++s.segments;
    }
    if (outBursts > 0) {
      s.outputCycles +=
          channelSegment(sim::Op::HOST_RD, out, outPerBank) + spreadSegment(sim::Op::HOST_WR, outBursts);
      ++s.segments;
    }
    for (int bank : live) account(g, bank, inPerBank, true);
    for (int bank : out) account(g, bank, outPerBank, false);
    spreadReads += inBursts;
    spreadWrites += outBursts;
  }
  // The host-layout side of every copy is spread evenly over every bank of the system.
  const std::int64_t totalBanks = static_cast<std::int64_t>(s.bankDeltas.size());
  for (int g = 0; g < channels; ++g) {
    for (int bank = 0; bank < d.banksPerChannel(); ++bank) {
      account(g, bank, ceilDiv(spreadReads, totalBanks), false);
      account(g, bank, ceilDiv(spreadWrites, totalBanks), true);
    }
  }
  if (d.refresh && d.tREFI > 0) {
    // Refresh steals tRFC of every tREFI from a serial copy.
    s.inputCycles += s.inputCycles * d.tRFC / d.tREFI;
    s.outputCycles += s.outputCycles * d.tRFC / d.tREFI;
  }
  return s;
}

}  // namespace pim
