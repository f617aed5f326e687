// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/device_config.h"

#include "engine/common/error.h"

namespace pim {
namespace {

double pimParam(const Backend& b, const char* name) {
  const auto it = b.pimTiming.find(std::string("pim.") + name);
  if (it == b.pimTiming.end()) {
    throw InputError(b.file + ": pim." + name + ": missing (the " + b.family + " simulator needs it)");
  }
  return it->second;
}

sim::EnergyEntry energy(const Backend& b, const char* name, double scale = 1.0) {
  const Parameter* p = b.param(std::string("energy.") + name);
  if (!p) return {0.0, std::string("energy.") + name + " not declared by " + b.name};
  return {p->value * scale, p->source};
}

}  // namespace

sim::DeviceConfig deviceConfigFor(const Backend& b, const SimSettings& s) {
  sim::DeviceConfig c;
  c.name = b.name;
  c.tCK_ns = b.dram.tCKns;
  c.pseudoChannels = b.group.pseudoChannelsPerGroup;
  c.ranks = b.dram.ranks;
  c.bankGroups = b.dram.bankGroups;
  c.banksPerGroup = b.dram.banksPerBankGroup;
  c.rows = static_cast<int>(b.dram.rows);
  c.columns = b.dram.columns;
  c.bytesPerColumn = b.dram.columnBytes;
  const DramTiming& t = b.timing;
  c.CL = t.CL;
  c.CWL = t.CWL;
  c.BL = t.BL;
  c.tRCDRD = t.tRCDRD;
  c.tRCDWR = t.tRCDWR;
  c.tRP = t.tRP;
  c.tRAS = t.tRAS;
  c.tRC = t.tRC;
  c.tCCDS = t.tCCDS;
  c.tCCDL = t.tCCDL;
  c.tRRDS = t.tRRDS;
  c.tRRDL = t.tRRDL;
  c.tFAW = t.tFAW;
  c.tWR = t.tWR;
  c.tWTRS = t.tWTRS;
  c.tWTRL = t.tWTRL;
  c.tRTPS = t.tRTPS;
  c.tRTPL = t.tRTPL;
  c.tRTRS = t.tRTRS;
  c.tREFI = t.tREFI;
  c.tRFC = t.tRFC;
  c.refresh = s.refresh;
  c.pimRank = 0;

  const bool hbm3 = b.family == "attacc" || b.family == "hbm-pim";
  if (hbm3) {
    // attacc.md: separate row and column command buses, REF per pseudo-channel, nRRD/nFAW per rank.
    c.separateRowColumnBus = true;
    c.refreshScope = sim::Scope::PseudoChannel;
    c.staggerRefresh = false;
    c.rdToPre = t.tRTPL;
    c.wrToPre = t.CWL + c.burstCycles() + t.tWR;
  }
  if (b.family == "attacc") {
    const bool power = pimParam(b, "power_constraint") != 0;
    c.rrdFawScope = pimParam(b, "rrd_faw_scope_rank") != 0 ? sim::Scope::Rank : sim::Scope::PseudoChannel;
    c.pimActToMac = static_cast<int>(pimParam(b, "ACTAB_to_MACAB"));
    c.pimMacToMac = static_cast<int>(pimParam(b, power ? "MACAB_to_MACAB" : "MACAB_to_MACAB_nopower"));
    c.pimMacToPre = static_cast<int>(pimParam(b, "MACAB_to_PREA"));
    c.pimPreToAct = static_cast<int>(pimParam(b, "PREA_to_ACTAB"));
    c.pimActToAct = static_cast<int>(pimParam(b, "ACTAB_to_ACTAB"));
    c.pimActToPre = static_cast<int>(pimParam(b, "ACTAB_to_PREA"));
  } else if (b.family == "hbm-pim") {
    c.pimActToMac = static_cast<int>(pimParam(b, "ACTAB_to_PIMOP"));
    c.pimMacToMac = static_cast<int>(pimParam(b, "PIMOP_to_PIMOP"));
    c.pimMacToPre = static_cast<int>(pimParam(b, "PIMOP_to_PREA"));
    c.pimPreToAct = static_cast<int>(pimParam(b, "PREA_to_ACTAB"));
    c.pimActToAct = static_cast<int>(pimParam(b, "ACTAB_to_ACTAB"));
    c.pimActToPre = static_cast<int>(pimParam(b, "ACTAB_to_PREA"));
  } else if (b.family == "gddr6-aim") {
    c.pimActToMac = static_cast<int>(pimParam(b, "ACTAB_to_MACAB"));
    c.pimMacToMac = static_cast<int>(pimParam(b, "MACAB_to_MACAB"));
    c.pimMacToPre = static_cast<int>(pimParam(b, "MACAB_to_PREA"));
    c.pimPreToAct = static_cast<int>(pimParam(b, "PREA_to_ACTAB"));
    c.pimActToAct = static_cast<int>(pimParam(b, "ACTAB_to_ACTAB"));
  } else if (b.family == "hbm2-pim") {
    // hbm2-pim.md: refresh per rank, rank 0 first at tREFI/2 with two ranks; tFAW not enforced; one command
    // bus.
    c.refreshScope = sim::Scope::Rank;
    c.staggerRefresh = true;
  }

  c.energy.act = energy(b, "ACT");
  c.energy.pre = energy(b, "PRE");
  c.energy.rd = energy(b, "RD");
  c.energy.wr = energy(b, "WR");
  c.energy.pimOp = energy(b, b.energyPj.count("energy.PIM_MAC") ? "PIM_MAC" : "DPU_CYCLE");
  c.energy.ref = energy(b, "REF");
  c.energy.hostIoByte = energy(b, "HOST_IO_BYTE");
  c.energy.bufMove = energy(b, "RD");  // a buffer move is a 32-B internal transfer, like a column access
  c.finalize();
  return c;
}

}  // namespace pim
