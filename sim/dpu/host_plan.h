// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the host does around UPMEM DPU launches, and its timing (upmem.md, "Host<->DPU transfers", "Launch
// overhead"): transfers (parallel, one length per rank padded to its largest DPU share; broadcast, the same
// buffer to every DPU of the set; serial, one DPU at a time), launches (one kernel per DPU, DPUs with equal
// work sharing one, which is simulated once; a launch ends with its slowest DPU), and host work (merging
// partial results, inter-DPU exchanges through the host). Times are in DPU cycles.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/dpu/dpu_config.h"
#include "sim/dpu/dpu_program.h"

namespace pim::sim::dpu {

/// Host-side rates, each with its source in upmem.md. Ranks transfer concurrently, each at its rank rate,
/// bounded together by the aggregate ceiling (how ranks overlap is not published; CoMoNM's fastest measured
/// aggregate rates bound it).
struct HostRates {
  double toRankGBps = 6.68;          // parallel CPU->DPU, one rank (PrIM 3.4 [unverified])
  double fromRankGBps = 4.74;        // parallel DPU->CPU, one rank (PrIM 3.4 [unverified])
  double broadcastRankGBps = 16.88;  // broadcast to a rank, counting each DPU's copy (PrIM 3.4 [unverified])
  double toAllGBps = 46.2;           // aggregate ceilings (CoMoNM code, ScatterGatherCm.cpp)
  double fromAllGBps = 16.6;
  double broadcastAllGBps = 86.8;
  double toDpuSetupMs = 0.0162;     // per transfer call: one-DPU intercepts (CoMoNM code, host->DPU)
  double fromDpuSetupMs = 0.0201;   // (DPU->host)
  double serialToDpuGBps = 1.16;    // one DPU, host->DPU, blocks over 992 B (CoMoNM code) [derived]
  double serialFromDpuGBps = 0.24;  // one DPU, DPU->host (CoMoNM code) [derived]
  double launchMs = 0.066011;       // per dpu_launch (CoMoNM code, configuration.py, base_time)
  double launchPerRankMs = 0;       // growth with ranks: not published; assumed none
};

/// The five UPMEM phases a plan's time is reported in.
enum class UpmemPhase : std::uint8_t { CpuToDpu, DpuKernel, DpuToCpu, InterDpu, Host };
inline constexpr int kUpmemPhases = 5;

struct HostStep {
  enum class Kind : std::uint8_t { Parallel, Broadcast, Serial, Launch, HostWork };
  Kind kind = Kind::Parallel;
  bool toDpu = true;                        // transfers: host -> DPUs (else DPUs -> host)
  std::vector<std::int64_t> bytesPerDpu;    // transfers: per DPU of the set, rank-major (0: not addressed)
  std::vector<DpuKernel> kernels;           // Launch: the distinct kernels (no tasklet: idle)
  std::vector<std::int32_t> kernelOf;       // Launch: per DPU, rank-major: its index in kernels; -1: idle
  double hostNs = 0;                        // HostWork: time on the host
  UpmemPhase hostPhase = UpmemPhase::Host;  // HostWork: Host (merges) or InterDpu (exchanges)
  /// Transfers: data moving between two launches through the host (DPUs cannot reach each other), timed as
  /// a transfer but counted in the InterDpu phase.
  bool exchange = false;
};

struct HostPlan {
  int dpus = 64;  // DPUs of the set the plan addresses, rank-major
  int dpusPerRank = 64;
  std::vector<HostStep> steps;
};

/// What one DPU did over a plan.
struct DpuTotals {
  double kernelCycles = 0;  // its own kernels' cycles, summed over launches
  std::int64_t instructions = 0, dmaRequests = 0, dmaBytes = 0;
  std::int64_t hostBytesIn = 0, hostBytesOut = 0;  // bytes the host moved to / from it, padding included
};

struct PlanRun {
  std::array<double, kUpmemPhases> cycles{};  // per UpmemPhase
  std::vector<DpuTotals> perDpu;              // rank-major
  int launches = 0;
  int distinctKernels = 0;    // kernels simulated (identical DPUs share one simulation)
  bool extrapolated = false;  // some kernel's cycles were extrapolated from a slice (dpu_slice.h)
  double totalCycles() const;
};

/// How launches are timed: on slices of their main loops, extrapolated (dpu_slice.h), or every instruction.
enum class KernelTiming : std::uint8_t { Sliced, Full };

/// Throws std::invalid_argument naming the step and the problem (a transfer to a DPU the plan does not have,
/// a bad DPU kernel, ...).
PlanRun simulatePlan(const DpuConfig& cfg, const HostRates& rates, const HostPlan& plan,
                     KernelTiming timing = KernelTiming::Sliced);

}  // namespace pim::sim::dpu
