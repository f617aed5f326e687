// SPDX-License-Identifier: Apache-2.0
// The simulator's device description of a shipped backend, as every run builds it: the backend files are the
// only description of a device, so the simulator's tests run on what users run.
#pragma once
#include <string>

#include "engine/target/dram_pim/device_config.h"
#include "engine/target/registry.h"

namespace pim::test {

inline sim::DeviceConfig shippedDevice(const std::string& backend, bool refresh = true) {
  return deviceConfigFor(builtinBackends().get(backend), SimSettings{refresh});
}

/// AttAcc without its power constraint (MACAB every tCCD_L instead of every 6 cycles).
inline sim::DeviceConfig attaccDevice(bool powerConstraint) {
  Backend b = builtinBackends().get("attacc");
  b.setParameter("pim.power_constraint", powerConstraint ? 1 : 0);
  return deviceConfigFor(b);
}

}  // namespace pim::test
