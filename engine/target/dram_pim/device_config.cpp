// SPDX-License-Identifier: Apache-2.0
#include "engine/target/dram_pim/device_config.h"

#include "engine/common/error.h"
#include "engine/target/dram_pim/dram_pim_target.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

sim::EnergyEntry energy(const Backend& b, const char* name) {
  const Parameter* p = b.param(std::string("energy.") + name);
  if (!p) return {0.0, std::string("energy.") + name + " not declared by " + b.name};
  return {p->value, p->source};
}

}  // namespace

double pimParameter(const Backend& b, const char* name) {
  const auto it = b.pimTiming.find(std::string("pim.") + name);
  if (it == b.pimTiming.end()) {
    throw InputError(b.file + ": pim." + name + ": missing (the " + b.family + " simulator needs it)");
  }
  return it->second;
}

sim::DeviceConfig deviceConfigFor(const Backend& b, const SimSettings& s, const DramPimDevice& device) {
  sim::DeviceConfig c;
  c.name = b.name;
  c.tCK_ns = b.dram.tCKns;
  c.pseudoChannels = b.group.pseudoChannelsPerGroup;
  c.ranks = b.dram.ranks;
  c.bankGroups = b.dram.bankGroups;
  c.banksPerBankGroup = b.dram.banksPerBankGroup;
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
  device.configure(b, c);

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
