// SPDX-License-Identifier: Apache-2.0
// DRAM-PIM families: PIM units next to DRAM banks, driven by DRAM commands (HBM2-PIM, DCC's HBM-PIM on HBM3,
// AttAcc, GDDR6-AiM). One target class serves them all: a draft is mapped, lowered to each PIM group's
// command program by the device's code generator (engine/codegen) and simulated bank by bank (sim/). What
// differs between the devices is data: a DramPimDevice per family, one file each (*_device.cpp here).
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "engine/codegen/lowering.h"
#include "engine/target/target.h"
#include "sim/config.h"
#include "sim/simulator.h"

namespace pim {

class ITarget;

/// What one DRAM-PIM device adds to the common model.
struct DramPimDevice {
  std::string family;       // the name its backend files give in "family"
  std::string description;  // one line
  std::function<std::unique_ptr<ICodeGenerator>()> generator;
  /// Command buses, refresh scope and PIM command spacings of the device, from its backend's parameters
  /// (the DRAM organisation and JEDEC timing are filled in already). Throws InputError for a missing one.
  std::function<void(const Backend&, sim::DeviceConfig&)> configure;
  /// The vendor library's schedule, or unavailable with the reason. `self` evaluates drafts; `device` is the
  /// problem's device description (built once per problem).
  std::function<Baseline(const ITarget& self, const Problem&, const EvalOptions&,
                         const sim::DeviceConfig& device)>
      vendor;
  /// Adds the device's parameters that nothing reads for `b` as it is (its own pim.* fields, and DCC-level
  /// fields its model does not use), each with the reason; may be empty.
  std::function<void(const Backend&, std::vector<UnreadParameter>&)> unread;
  /// Version of what a draft's simulated time comes from on this device: the shared timing model, or more
  /// once the device's own lowering changed the programs, so that only its stored labels go stale.
  int modelVersion = sim::kTimingModelVersion;
};

DramPimDevice hbm2PimDevice();
DramPimDevice hbmPimDevice();
DramPimDevice attaccDevice();
DramPimDevice gddr6AimDevice();

std::unique_ptr<ITarget> makeDramPimTarget(DramPimDevice device);

/// The DRAM-PIM backend file schema (schema.cpp).
BackendSchema dramPimSchema();

}  // namespace pim
