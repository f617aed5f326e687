// SPDX-License-Identifier: Apache-2.0
#include "engine/hw/schema.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/hw/backend.h"

namespace pim {

const ParamDecl* BackendSchema::find(std::string_view key) const {
  for (const auto& p : params)
    if (p.key == key) return &p;
  return nullptr;
}

bool BackendSchema::isOpenSection(std::string_view section) const {
  return std::find(openSections.begin(), openSections.end(), section) != openSections.end();
}

bool BackendSchema::isTextField(std::string_view section, std::string_view name) const {
  for (const auto& f : text)
    if (section == f.section && name == f.name) return true;
  return false;
}

BackendSchema dccLevelsSchema() {
  using K = ParamDecl::Kind;
  BackendSchema s;
  s.sections = {"system", "group", "core"};
  s.params = {
      {"system.hostBandwidthGBps", K::Real, 0},
      {"system.hostOnChipBytes", K::Integer, 0},
      {"system.hostTflops", K::Real, 0},
      {"system.devices", K::Integer, 1},
      {"group.groupsPerDevice", K::Integer, 1},
      {"group.broadcast", K::Flag, 0},
      {"group.pseudoChannelsPerGroup", K::Integer, 1},
      {"core.coresPerGroup", K::Integer, 1},
      {"core.banksPerCore", K::Integer, 1},
      {"core.fpuSharedBy", K::Integer, 1},
      {"core.simdLanes", K::Integer, 1},
      {"core.registerBytes", K::Integer, 0},
      {"core.dataMemoryBytes", K::Integer, 0},
      {"core.clockMHz", K::Real, 0},
      {"core.threads", K::Integer, 1},
  };
  s.text = {{"system", "host", false},
            {"group", "level", false},
            {"group", "units", true},
            {"core", "ops", true},
            {"core", "dtypes", true}};
  s.crossCheck = checkDccLevels;
  return s;
}

void checkDccLevels(const Backend& b, std::string_view origin) {
  auto fail = [&](const char* field, const std::string& problem) {
    throw InputError(std::string(origin) + ": " + field + ": " + problem);
  };
  if (b.core.fpuSharedBy > b.core.coresPerGroup)
    fail("core.fpuSharedBy", "fpuSharedBy exceeds coresPerGroup");
  if (b.core.dtypes.empty()) fail("core.dtypes", "at least one data type is required");
  if (b.core.ops.empty()) fail("core.ops", "at least one operation is required");
}

}  // namespace pim
