// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a simulation returns. Phase breakdown: phases run in sequence on every channel (a phase change is a
// full fence); end[p] = max over channels of the completion of phase <= p; part p = end[p] - end[p-1]. The
// parts are therefore >= 0 and add up exactly to totalCycles = end[last].
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config.h"
#include "sim/program.h"

namespace pim::sim {

struct BankStats {
  int channel = 0;
  int bank = 0;  // flat id in the channel: ((pch*ranks + rank)*bankGroups + bg)*banksPerBankGroup + bank
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  int64_t busyCycles = 0;  // cycles with a row open (ACT .. PRE)
  int64_t activations = 0;
  int64_t precharges = 0;
  int64_t columnCommands = 0;
  int64_t pimOps = 0;  // PIM ALU operations executed next to this bank
  double energy_pJ = 0.0;
};

struct EnergyBreakdown {
  double actPre_pJ = 0, rdWr_pJ = 0, pimCompute_pJ = 0, refresh_pJ = 0, hostIo_pJ = 0, bufferMoves_pJ = 0;
  std::vector<std::pair<std::string, std::string>>
      sources;  // component -> provenance of the per-command figure
  double total_pJ() const {
    return actPre_pJ + rdWr_pJ + pimCompute_pJ + refresh_pJ + hostIo_pJ + bufferMoves_pJ;
  }
  /// Adds `o`'s components (the sources stay: one family's runs cite the same figures).
  void add(const EnergyBreakdown& o) {
    actPre_pJ += o.actPre_pJ;
    rdWr_pJ += o.rdWr_pJ;
    pimCompute_pJ += o.pimCompute_pJ;
    refresh_pJ += o.refresh_pJ;
    hostIo_pJ += o.hostIo_pJ;
    bufferMoves_pJ += o.bufferMoves_pJ;
  }
};

struct TraceEvent {
  int channel = 0;
  int bank = -1;  // -1: channel-level command (buffer moves, barriers)
  Op op = Op::RD;
  int64_t start = 0;     // issue cycle
  int64_t duration = 1;  // cycles until the command completes
};

struct Result {
  int64_t totalCycles = 0;
  double totalNs = 0.0;
  std::array<int64_t, kNumPhases> phaseCycles{};
  std::vector<BankStats> banks;               // every bank of every channel
  std::vector<double> commandBusUtilisation;  // per channel: command slots used / slots available
  EnergyBreakdown energy;
  int64_t commandsIssued = 0;  // all channels, including controller-inserted ACT/PRE/REF
  int64_t refreshes = 0;       // all channels
  int distinctProgramsSimulated = 0;
  int64_t iterationsFastForwarded = 0;  // block iterations skipped as periodic (diagnostic)
  /// SimOptions::frontend: requests the frontend sent later than the one before them because their
  /// controller buffer was full (diagnostic).
  int64_t requestsHeldBack = 0;
  std::vector<TraceEvent> trace;
  double tCK_ns = 1.0;
  /// SimOptions::stopAfterCycles was passed: totalCycles is then only a lower bound (> stopAfterCycles), and
  /// the breakdown, statistics and energy are not filled in.
  bool stoppedEarly = false;

  int64_t phase(Phase p) const { return phaseCycles[static_cast<int>(p)]; }
  // Chrome trace ({"traceEvents":[...]}, ts/dur in ns, pid = channel, tid = bank).
  std::string chromeTraceJson() const;
};

}  // namespace pim::sim
