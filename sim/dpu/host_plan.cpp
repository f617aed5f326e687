// SPDX-License-Identifier: Apache-2.0
#include "sim/dpu/host_plan.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "sim/dpu/dpu_slice.h"

namespace pim::sim::dpu {
namespace {

std::int64_t roundUp8(std::int64_t b) { return (b + 7) / 8 * 8; }

class PlanSimulator {
 public:
  PlanSimulator(const DpuConfig& cfg, const HostRates& rates, const HostPlan& plan, KernelTiming timing)
      : m_cfg(cfg), m_rates(rates), m_plan(plan), m_timing(timing) {
    if (plan.dpus <= 0 || plan.dpusPerRank <= 0) throw std::invalid_argument("host plan: no DPU to address");
    m_run.perDpu.assign(static_cast<std::size_t>(plan.dpus), {});
  }

  PlanRun run() {
    for (std::size_t i = 0; i < m_plan.steps.size(); ++i) {
      const HostStep& s = m_plan.steps[i];
      const std::size_t given = s.kind == HostStep::Kind::Launch ? s.kernelOf.size() : s.bytesPerDpu.size();
      if (given > m_run.perDpu.size())
        throw std::invalid_argument("host plan step " + std::to_string(i + 1) + ": " + std::to_string(given) +
                                    " DPUs, the plan has " + std::to_string(m_run.perDpu.size()));
      switch (s.kind) {
        case HostStep::Kind::Parallel:
        case HostStep::Kind::Broadcast:
          add(transferPhase(s), rankTransfer(s));
          break;
        case HostStep::Kind::Serial:
          add(transferPhase(s), serialTransfer(s));
          break;
        case HostStep::Kind::Launch:
          try {
            add(UpmemPhase::DpuKernel, launch(s));
          } catch (const std::invalid_argument& e) {
            throw std::invalid_argument("host plan step " + std::to_string(i + 1) + ": " + e.what());
          }
          break;
        case HostStep::Kind::HostWork:
          add(s.hostPhase, cyclesOfNs(s.hostNs));
          break;
      }
    }
    return m_run;
  }

 private:
  double cyclesOfNs(double ns) const { return ns * m_cfg.clockMHz / 1000; }
  static UpmemPhase transferPhase(const HostStep& s) {
    if (s.exchange) return UpmemPhase::InterDpu;
    return s.toDpu ? UpmemPhase::CpuToDpu : UpmemPhase::DpuToCpu;
  }
  void add(UpmemPhase p, double cycles) { m_run.cycles[static_cast<std::size_t>(p)] += cycles; }

  // Parallel: each rank moves its largest share (8-B aligned) to every DPU it addresses; broadcast: the one
  // buffer to each. Ranks run concurrently at their rate, together no faster than the aggregate ceiling. The
  // rank rates are PrIM's for all 64 DPUs of a rank; a rank addressing fewer moves no faster than those DPUs
  // take data one by one (the one-DPU rates), so one DPU of a parallel transfer is as fast as a serial one.
  double rankTransfer(const HostStep& s) {
    const bool broadcast = s.kind == HostStep::Kind::Broadcast;
    const double rankGBps = broadcast ? m_rates.broadcastRankGBps
                            : s.toDpu ? m_rates.toRankGBps
                                      : m_rates.fromRankGBps;
    const double allGBps = broadcast ? m_rates.broadcastAllGBps
                           : s.toDpu ? m_rates.toAllGBps
                                     : m_rates.fromAllGBps;
    if (s.bytesPerDpu.empty()) return 0;
    const std::int64_t perRank = m_plan.dpusPerRank;
    const auto n = static_cast<std::int64_t>(s.bytesPerDpu.size());
    const std::int64_t everyDpu =
        broadcast ? roundUp8(*std::max_element(s.bytesPerDpu.begin(), s.bytesPerDpu.end())) : 0;
    double slowestRankNs = 0, bytes = 0;
    for (std::int64_t r0 = 0; r0 < n; r0 += perRank) {
      const auto first = s.bytesPerDpu.begin() + r0, last = s.bytesPerDpu.begin() + std::min(n, r0 + perRank);
      const std::int64_t length = broadcast ? everyDpu : roundUp8(*std::max_element(first, last));
      std::int64_t rankBytes = 0;
      for (auto it = first; it != last; ++it) {
        if (*it <= 0) continue;
        rankBytes += length;
        DpuTotals& d = m_run.perDpu[static_cast<std::size_t>(it - s.bytesPerDpu.begin())];
        (s.toDpu ? d.hostBytesIn : d.hostBytesOut) += length;
      }
      const double addressed = static_cast<double>(rankBytes / std::max<std::int64_t>(1, length));
      const double oneDpuGBps = s.toDpu ? m_rates.serialToDpuGBps : m_rates.serialFromDpuGBps;
      slowestRankNs = std::max(slowestRankNs,
                               static_cast<double>(rankBytes) / std::min(rankGBps, addressed * oneDpuGBps));
      bytes += static_cast<double>(rankBytes);
    }
    if (bytes == 0) return 0;
    const double setupNs = (s.toDpu ? m_rates.toDpuSetupMs : m_rates.fromDpuSetupMs) * 1e6;
    return cyclesOfNs(setupNs + std::max(slowestRankNs, bytes / allGBps));
  }

  // One DPU at a time: a call each.
  double serialTransfer(const HostStep& s) {
    const double setupNs = (s.toDpu ? m_rates.toDpuSetupMs : m_rates.fromDpuSetupMs) * 1e6;
    const double gbps = s.toDpu ? m_rates.serialToDpuGBps : m_rates.serialFromDpuGBps;
    double ns = 0;
    for (std::size_t i = 0; i < s.bytesPerDpu.size(); ++i) {
      if (s.bytesPerDpu[i] <= 0) continue;
      const std::int64_t b = roundUp8(s.bytesPerDpu[i]);
      ns += setupNs + static_cast<double>(b) / gbps;
      (s.toDpu ? m_run.perDpu[i].hostBytesIn : m_run.perDpu[i].hostBytesOut) += b;
    }
    return cyclesOfNs(ns);
  }

  // The launch overhead, then the slowest DPU; each distinct kernel is simulated once, whatever the number
  // of DPUs that run it.
  double launch(const HostStep& s) {
    std::vector<const DpuRun*> runOf(s.kernels.size(), nullptr);
    std::vector<DpuRun> runs;
    runs.reserve(s.kernels.size());
    double slowest = 0;
    std::vector<bool> ranks;
    for (std::size_t i = 0; i < s.kernelOf.size(); ++i) {
      const std::int32_t which = s.kernelOf[i];
      if (which < 0) continue;
      const auto w = static_cast<std::size_t>(which);
      if (w >= s.kernels.size())
        throw std::invalid_argument("DPU " + std::to_string(i) + " runs kernel " + std::to_string(which) +
                                    " of " + std::to_string(s.kernels.size()));
      const DpuKernel& k = s.kernels[w];
      if (k.tasklets.empty()) continue;
      const std::size_t rank = i / static_cast<std::size_t>(m_plan.dpusPerRank);
      if (ranks.size() <= rank) ranks.resize(rank + 1, false);
      ranks[rank] = true;
      if (!runOf[w]) {
        if (m_timing == KernelTiming::Full) {
          runs.push_back(simulateDpu(m_cfg, k));
        } else {
          SlicedRun sliced = simulateDpuSliced(m_cfg, k);
          m_run.extrapolated = m_run.extrapolated || sliced.sliced;
          runs.push_back(std::move(sliced.run));
        }
        runOf[w] = &runs.back();
      }
      const DpuRun& run = *runOf[w];
      DpuTotals& d = m_run.perDpu[i];
      d.kernelCycles += run.cycles;
      d.instructions += run.instructions;
      d.dmaRequests += run.dmaRequests;
      d.dmaBytes += run.dmaBytes;
      slowest = std::max(slowest, run.cycles);
    }
    ++m_run.launches;
    m_run.distinctKernels += static_cast<int>(runs.size());
    const auto ranksUsed = static_cast<double>(std::count(ranks.begin(), ranks.end(), true));
    return cyclesOfNs((m_rates.launchMs + m_rates.launchPerRankMs * ranksUsed) * 1e6) + slowest;
  }

  const DpuConfig& m_cfg;
  const HostRates& m_rates;
  const HostPlan& m_plan;
  KernelTiming m_timing;
  PlanRun m_run;
};

}  // namespace

double PlanRun::totalCycles() const { return std::accumulate(cycles.begin(), cycles.end(), 0.0); }

PlanRun simulatePlan(const DpuConfig& cfg, const HostRates& rates, const HostPlan& plan,
                     KernelTiming timing) {
  return PlanSimulator(cfg, rates, plan, timing).run();
}

}  // namespace pim::sim::dpu
