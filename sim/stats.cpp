// SPDX-License-Identifier: Apache-2.0
#include "sim/stats.h"

namespace pim::sim {

void accumulateStats(const DeviceConfig& cfg, const Program& prog,
                     const std::vector<std::shared_ptr<const ChannelRun>>& runs,
                     const std::vector<size_t>& progToSim, Result& res) {
  const CommandEnergies& e = cfg.energy;
  EnergyBreakdown& en = res.energy;
  en.sources = {{"ACT", e.act.source},
                {"PRE", e.pre.source},
                {"RD", e.rd.source},
                {"WR", e.wr.source},
                {"PIM op", e.pimOp.source},
                {"REF", e.ref.source},
                {"host I/O byte", e.hostIoByte.source},
                {"buffer move", e.bufMove.source}};
  const int nb = cfg.banksPerChannel();
  const int bytes = cfg.bytesPerColumn;
  const double slotsPerCycle = cfg.separateRowColumnBus ? 2.0 : 1.0;
  res.banks.reserve(size_t(prog.numChannels()) * size_t(nb));
  for (int ch = 0; ch < prog.numChannels(); ++ch) {
    const ChannelRun& s = *runs[progToSim[prog.channelMap[ch]]];
    const auto& banks = s.banks;
    for (int b = 0; b < nb; ++b) {
      const BankState& bs = banks[b];
      BankStats st;
      st.channel = ch;
      st.bank = b;
      st.bytesRead = bs.rds * bytes;
      st.bytesWritten = bs.wrs * bytes;
      st.busyCycles = bs.busy;
      st.activations = bs.acts;
      st.precharges = bs.pres;
      st.columnCommands = bs.rds + bs.wrs;
      st.pimOps = bs.pimOps;
      const double actPre = bs.acts * e.act.pJ + bs.pres * e.pre.pJ;
      const double rdwr = bs.rds * e.rd.pJ + bs.wrs * e.wr.pJ;
      const double pim = bs.pimOps * e.pimOp.pJ;
      const double host = double(bs.hostBursts) * bytes * e.hostIoByte.pJ;
      const double buf = bs.bufMoves * e.bufMove.pJ;
      st.energy_pJ = actPre + rdwr + pim + host + buf;
      en.actPre_pJ += actPre;
      en.rdWr_pJ += rdwr;
      en.pimCompute_pJ += pim;
      en.hostIo_pJ += host;
      en.bufferMoves_pJ += buf;
      res.banks.push_back(st);
    }
    en.refresh_pJ += double(s.refreshes) * e.ref.pJ;
    res.refreshes += s.refreshes;
    const int64_t cmds = s.rowCommands + s.columnCommands + s.refreshes;
    res.commandsIssued += cmds;
    res.commandBusUtilisation.push_back(
        res.totalCycles > 0 ? double(cmds) / (slotsPerCycle * double(res.totalCycles)) : 0.0);
  }
}

}  // namespace pim::sim
