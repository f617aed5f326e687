// SPDX-License-Identifier: Apache-2.0
// SK hynix GDDR6-AiM: a MAC unit per bank, all-bank PIM commands with their own spacings, the JEDEC buses and
// refresh of the timing table. No vendor schedule is modelled.
#include "engine/target/dram_pim/device_config.h"
#include "engine/target/dram_pim/dram_pim_target.h"

namespace pim {
namespace {
// Named so that the four device files can share a unity-build unit.
namespace gddr6_aim {

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

/// The command programs use all-bank MACs only (no global-buffer writes, no activation function).
void unread(const Backend&, std::vector<UnreadParameter>& out) {
  for (const char* key : {"pim.globalBufferBytes", "pim.WRGB_to_WRGB", "pim.AF_latency"})
    out.push_back({key,
                   "the GDDR6-AiM command programs issue all-bank MACs only: no global-buffer write or "
                   "activation-function command is modelled yet"});
  out.push_back(
      {"timing.tWTRS",
       "the GDDR6-AiM programs' reads after writes are all-bank or share the write's bank group, so "
       "timing.tWTRL (which must be at least this) governs every one"});
}

}  // namespace gddr6_aim
}  // namespace

DramPimDevice gddr6AimDevice() {
  return {"gddr6-aim",
          "SK hynix GDDR6-AiM: a MAC unit per bank, all-bank PIM commands",
          makeGddr6AimCodeGenerator,
          gddr6_aim::configure,
          gddr6_aim::vendor,
          gddr6_aim::unread};
}

}  // namespace pim
