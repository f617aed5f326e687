// SPDX-License-Identifier: Apache-2.0
// DCC's HBM-PIM on HBM3 (dcc-backends.md): AttAcc's organisation and buses, a 16-way FP16 FPU per two banks
// with its own PIM command spacings; its vendor schedule is "AttAcc's data distribution" as a draft.
#include "engine/target/dram_pim/device_config.h"
#include "engine/target/dram_pim/dram_pim_target.h"
#include "engine/target/dram_pim/hbm3_buses.h"
#include "engine/target/dram_pim/vendor.h"

namespace pim {
namespace {
// Named so that the four device files can share a unity-build unit.
namespace hbm_pim {

void configure(const Backend& b, sim::DeviceConfig& c) {
  configureHbm3Buses(b, c);
  c.pimActToMac = static_cast<int>(pimParameter(b, "ACTAB_to_PIMOP"));
  c.pimMacToMac = static_cast<int>(pimParameter(b, "PIMOP_to_PIMOP"));
  c.pimMacToPre = static_cast<int>(pimParameter(b, "PIMOP_to_PREA"));
  c.pimPreToAct = static_cast<int>(pimParameter(b, "PREA_to_ACTAB"));
  c.pimActToAct = static_cast<int>(pimParameter(b, "ACTAB_to_ACTAB"));
  c.pimActToPre = static_cast<int>(pimParameter(b, "ACTAB_to_PREA"));
}

/// The register file and bank halves are fixed in the code generator as dcc-backends.md gives them.
void unread(const Backend&, std::vector<UnreadParameter>& out) {
  for (const char* key : {"pim.grfEntries", "pim.bankHalves"})
    out.push_back({key,
                   "the HBM-PIM code generator fixes the register file (8 GRF entries) and the even/odd bank "
                   "halves as dcc-backends.md gives them; this field documents them"});
}

}  // namespace hbm_pim
}  // namespace

DramPimDevice hbmPimDevice() {
  return {"hbm-pim",
          "DCC's HBM-PIM on HBM3: a 16-way FP16 FPU per two banks, broadcast PIM commands",
          makeHbmPimCodeGenerator,
          hbm_pim::configure,
          vendorTilingBaseline,
          hbm_pim::unread};
}

}  // namespace pim
