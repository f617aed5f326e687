// SPDX-License-Identifier: Apache-2.0
#include "engine/search/evaluate.h"

#include <sstream>

#include "engine/codegen/rearrangement.h"
#include "engine/mapping/bank_layout.h"
#include "sim/simulator.h"

namespace pim {

sim::Program draftProgram(const Problem& p, const Draft& d, const EvalOptions& o) {
  const DraftFootprints mapping = mapFootprints(p.space(), d, o.indexing);
  placementTotals(p.kernel(), mapping, p.backend());  // refuses drafts beyond the backend's groups and cores
  const sim::DeviceConfig device = deviceConfigFor(p.backend(), o.sim);
  OptimizerOptions opt = o.optimizer;
  opt.computeOnly = o.computeOnly;
  return lowerDraft(LoweringInput{p, mapping, device, opt});
}

Evaluation evaluateDraft(const Problem& p, const Draft& d, const EvalOptions& o) {
  // The simulation needs footprints only; the index sets people read come from mapDraft/placeOnBanks.
  const DraftFootprints mapping = mapFootprints(p.space(), d, o.indexing);
  const PlacementTotals placed = placementTotals(p.kernel(), mapping, p.backend());
  const sim::DeviceConfig device = deviceConfigFor(p.backend(), o.sim);
  OptimizerOptions opt = o.optimizer;
  opt.computeOnly = o.computeOnly;
  const LoweringInput in{p, mapping, device, opt};
  const sim::Program program = lowerDraft(in);

  sim::SimOptions so;
  so.trace = o.trace;
  so.fastForward = !o.trace.enabled;
  so.stopAfterCycles = o.stopAfterCycles;
  so.cache = o.cache;
  sim::Result r = sim::simulate(device, program, so);

  Evaluation e;
  e.draft = d.id;
  e.tCKns = device.tCK_ns;
  if (r.stoppedEarly) {
    e.lowerBound = true;
    e.totalCycles = r.totalCycles;
    e.timeNs = static_cast<double>(e.totalCycles) * e.tCKns;
    return e;
  }
  for (int ph = 0; ph < 3; ++ph) e.cycles[ph] = r.phaseCycles[ph];
  e.energy = r.energy;
  e.commands = r.commandsIssued;
  e.commandBusUtilisation = r.commandBusUtilisation;
  if (!o.optimizer.stagedRearrangement && !o.computeOnly) {
    // Serial copies: their time adds to the simulated compute phase, their bursts to the bank statistics.
    const SerialRearrangement s = naiveRearrangement(in);
    e.cycles[0] += s.inputCycles;
    e.cycles[2] += s.outputCycles;
    e.serialSegments = s.segments;
    e.energy.rdWr_pJ += s.energyPj;
    for (std::size_t i = 0; i < r.banks.size() && i < s.bankDeltas.size(); ++i) {
      auto& b = r.banks[i];
      const auto& dl = s.bankDeltas[i];
      b.bytesRead += dl.bytesRead;
      b.bytesWritten += dl.bytesWritten;
      b.columnCommands += dl.columnCommands;
      b.activations += dl.activations;
      b.energy_pJ += dl.energy_pJ;
    }
  }
  e.totalCycles = e.cycles[0] + e.cycles[1] + e.cycles[2];
  e.timeNs = static_cast<double>(e.totalCycles) * e.tCKns;
  e.energyPj = e.energy.total_pJ();
  e.banksUsed = placed.banksUsed;
  e.residentBytes = placed.residentBytes;
  e.paddingBytes = placed.paddingBytes;
  if (o.keepBanks) e.banks = std::move(r.banks);
  if (o.trace.enabled) e.traceJson = r.chromeTraceJson();
  return e;
}

std::string commandListing(const sim::Program& prog, std::size_t maxLines) {
  std::ostringstream os;
  std::size_t lines = 0;
  for (std::size_t i = 0; i < prog.programs.size() && lines < maxLines; ++i) {
    int channels = 0;
    for (int c : prog.channelMap) channels += c == static_cast<int>(i);
    os << "; program " << i << " on " << channels << " channel(s), " << prog.programs[i].commandCount()
       << " commands\n";
    for (const sim::Block& b : prog.programs[i].blocks) {
      if (lines >= maxLines) break;
      const std::string indent = b.repeat > 1 ? "    " : "  ";
      if (b.repeat > 1) os << "  repeat " << b.repeat << " {\n";
      for (const sim::Command& c : b.cmds) {
        if (++lines > maxLines) break;
        os << indent << sim::phaseName(c.phase)[0] << " " << sim::opName(c.op);
        if (c.op != sim::Op::BARRIER) {
          if (c.bankMask) {
            os << " banks=0x" << std::hex << c.bankMask << std::dec;
          } else {
            os << " pch" << int(c.pch) << " r" << int(c.rank) << " bg" << int(c.bg) << " b" << int(c.bank);
          }
          os << " row=" << c.row << " col=" << c.col;
          if (c.repeat > 1) os << " x" << c.repeat;
          if (c.colStep || c.rowStep) os << " step(row " << c.rowStep << ", col " << c.colStep << ")";
          if (c.flags & sim::kFlagPim) os << " [pim]";
        }
        os << "\n";
      }
      if (b.repeat > 1) os << "  }\n";
    }
  }
  if (lines >= maxLines) os << "; ... (listing cut at " << maxLines << " lines)\n";
  return os.str();
}

}  // namespace pim
