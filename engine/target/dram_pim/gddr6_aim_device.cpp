// SPDX-License-Identifier: Apache-2.0
// SK hynix GDDR6-AiM: a MAC unit per bank, all-bank PIM commands with their own spacings, the JEDEC buses and
// refresh of the timing table. No vendor schedule is modelled.
#include "engine/target/dram_pim/device_config.h"
#include "engine/target/dram_pim/dram_pim_target.h"

namespace pim {
namespace {

void configure(const Backend& b, sim::DeviceConfig& c) {
  c.pimActToMac = static_cast<int>(pimParameter(b, "ACTAB_to_MACAB"));
  c.pimMacToMac = static_cast<int>(pimParameter(b, "MACAB_to_MACAB"));
  c.pimMacToPre = static_cast<int>(pimParameter(b, "MACAB_to_PREA"));
  c.pimPreToAct = static_cast<int>(pimParameter(b, "PREA_to_ACTAB"));
  c.pimActToAct = static_cast<int>(pimParameter(b, "ACTAB_to_ACTAB"));
}

Baseline vendor(const ITarget&, const Problem& p, const EvalOptions&, const sim::DeviceConfig&) {
  Baseline v;
  v.name = "vendor";
  v.reason = "no vendor schedule is modelled for " + p.backend().name;
  return v;
}

}  // namespace

DramPimDevice gddr6AimDevice() {
  return {"gddr6-aim", "SK hynix GDDR6-AiM: a MAC unit per bank, all-bank PIM commands",
          makeGddr6AimCodeGenerator, configure, vendor};
}

}  // namespace pim
