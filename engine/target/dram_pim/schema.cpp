// SPDX-License-Identifier: Apache-2.0
// The DRAM-PIM families' backend files: DCC's levels plus the DRAM organisation, the JEDEC timing table (as
// Ramulator 2's standards declare theirs) and open sections for PIM command spacings and energies.
#include <string>

#include "engine/common/error.h"
#include "engine/hw/backend.h"
#include "engine/target/dram_pim/dram_pim_target.h"

namespace pim {
namespace {

[[noreturn]] void fail(std::string_view origin, const std::string& field, const std::string& problem) {
  throw InputError(std::string(origin) + ": " + field + ": " + problem);
}

/// The organisation must add up to DCC's levels: the cores of a group are the banks of its pseudo-channels.
void checkOrganisation(const Backend& b, std::string_view origin) {
  const auto& d = b.dram;
  const int pimRanks = b.pimRanks();
  if (pimRanks > d.ranks)
    fail(origin, "dram.pimRanks",
         "pimRanks " + std::to_string(pimRanks) + " > dram.ranks " + std::to_string(d.ranks));
  const std::int64_t groupBanks =
      std::int64_t{pimRanks} * d.bankGroups * d.banksPerBankGroup * b.group.pseudoChannelsPerGroup;
  if (std::int64_t{b.core.coresPerGroup} * b.core.banksPerCore != groupBanks)
    fail(origin, "core.coresPerGroup",
         "coresPerGroup * banksPerCore = " + std::to_string(b.core.coresPerGroup) + " * " +
             std::to_string(b.core.banksPerCore) +
             " must equal the banks of one group = pimRanks * bankGroups * "
             "banksPerBankGroup * pseudoChannelsPerGroup = " +
             std::to_string(groupBanks));
  // A group is simulated as one channel whose banks are addressed by 64-bit masks.
  const std::int64_t channelBanks =
      std::int64_t{d.ranks} * d.bankGroups * d.banksPerBankGroup * b.group.pseudoChannelsPerGroup;
  if (channelBanks > 64)
    fail(origin, "dram.banksPerBankGroup",
         "a PIM group's banks, ranks * bankGroups * banksPerBankGroup * pseudoChannelsPerGroup = " +
             std::to_string(channelBanks) + ", exceed the simulator's 64 banks per simulated channel");
  if (std::int64_t{b.group.groupsPerDevice} * b.group.pseudoChannelsPerGroup != d.pseudoChannels)
    fail(origin, "group.groupsPerDevice",
         "groupsPerDevice * pseudoChannelsPerGroup = " +
             std::to_string(std::int64_t{b.group.groupsPerDevice} * b.group.pseudoChannelsPerGroup) +
             " must equal dram.channels = " + std::to_string(d.pseudoChannels));
}

void checkTiming(const Backend& b, std::string_view origin) {
  const auto& t = b.timing;
  // JEDEC: tRC = tRAS + tRP; the cycle values of a reference are rounded independently from ns, so allow one
  // cycle (AttAcc's HBM3 table has nRC 63 with nRAS 45 + nRP 19 = 64).
  if (t.tRC + 1 < t.tRAS + t.tRP)
    fail(origin, "timing.tRC",
         "tRC " + std::to_string(t.tRC) +
             " must be >= tRAS + tRP - 1 = " + std::to_string(t.tRAS + t.tRP - 1));
  if (t.tRAS < t.tRCDRD)
    fail(origin, "timing.tRAS",
         "tRAS " + std::to_string(t.tRAS) + " must be >= tRCDRD " + std::to_string(t.tRCDRD));
  auto le = [&](int a, int b2, const char* na, const char* nb) {
    if (a > b2)
      fail(origin, std::string("timing.") + nb,
           std::string(nb) + " " + std::to_string(b2) + " must be >= " + na + " " + std::to_string(a));
  };
  le(t.tCCDS, t.tCCDL, "tCCDS", "tCCDL");
  le(t.tRRDS, t.tRRDL, "tRRDS", "tRRDL");
  le(t.tWTRS, t.tWTRL, "tWTRS", "tWTRL");
  le(t.tRTPS, t.tRTPL, "tRTPS", "tRTPL");
  if (t.tREFI != 0 && t.tREFI <= t.tRFC)
    fail(origin, "timing.tREFI",
         "tREFI " + std::to_string(t.tREFI) + " must be > tRFC " + std::to_string(t.tRFC));
  if (t.tFAW != 0 && t.tFAW < t.tRRDS)
    fail(origin, "timing.tFAW", "tFAW must be 0 (not enforced) or >= tRRDS");
}

}  // namespace

BackendSchema dramPimSchema() {
  using K = ParamDecl::Kind;
  BackendSchema s = dccLevelsSchema();
  s.sections.insert(s.sections.end(), {"dram", "timing", "pim", "energy"});
  s.openSections = {"pim", "energy"};
  const ParamDecl dram[] = {
      {"dram.channels", K::Integer, 1},    {"dram.ranks", K::Integer, 1},
      {"dram.bankGroups", K::Integer, 1},  {"dram.banksPerBankGroup", K::Integer, 1},
      {"dram.rows", K::Integer, 1},        {"dram.columns", K::Integer, 1},
      {"dram.columnBytes", K::Integer, 1}, {"dram.tCKns", K::Real, 1e-6},
  };
  s.params.insert(s.params.end(), std::begin(dram), std::end(dram));
  for (const char* t :
       {"CL",    "CWL",  "BL",  "tRCDRD", "tRCDWR", "tRP",   "tRAS",  "tRC",   "tCCDS", "tCCDL", "tRRDS",
        "tRRDL", "tFAW", "tWR", "tWTRS",  "tWTRL",  "tRTPS", "tRTPL", "tRTRS", "tREFI", "tRFC"})
    s.params.push_back({std::string("timing.") + t, K::Integer, 0});
  // HBM2-PIM's calibration system has two ranks per channel but PIM units only in one.
  s.params.push_back({"dram.pimRanks", K::Integer, 1, false});
  s.crossCheck = [](const Backend& b, std::string_view origin) {
    checkOrganisation(b, origin);
    checkDccLevels(b, origin);
    checkTiming(b, origin);
  };
  return s;
}

}  // namespace pim
