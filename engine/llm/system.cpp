// SPDX-License-Identifier: Apache-2.0
#include "engine/llm/system.h"

#include <algorithm>

#include "engine/common/error.h"

namespace pim::llm {

namespace {
const std::vector<SystemChoice>& allSystems() {
  static const std::vector<SystemChoice> all = {
      {SystemKind::Gpu, Tiling::Vendor},     {SystemKind::AttAccBase, Tiling::Vendor},
      {SystemKind::AttAccBase, Tiling::Dcc}, {SystemKind::AttAccFull, Tiling::Vendor},
      {SystemKind::AttAccFull, Tiling::Dcc}, {SystemKind::Auto, Tiling::Dcc}};
  return all;
}

std::string joinedNames() {
  std::string s;
  for (const std::string& n : systemNames()) s += (s.empty() ? "" : ", ") + n;
  return s;
}
}  // namespace

std::string SystemChoice::name() const {
  switch (kind) {
    case SystemKind::Gpu:
      return "gpu";
    case SystemKind::AttAccBase:
      return tiling == Tiling::Dcc ? "attacc-base+dcc" : "attacc-base";
    case SystemKind::AttAccFull:
      return tiling == Tiling::Dcc ? "attacc-full+dcc" : "attacc-full";
    case SystemKind::Auto:
      return "auto";
  }
  return "?";
}

std::vector<std::string> systemNames() {
  std::vector<std::string> names;
  for (const SystemChoice& s : allSystems()) names.push_back(s.name());
  return names;
}

SystemChoice parseSystem(std::string_view name) {
  for (const SystemChoice& s : allSystems())
    if (s.name() == name) return s;
  throw InputError("--system: unknown system '" + std::string(name) + "' (" + joinedNames() + ")");
}

std::vector<SystemChoice> parseSystems(std::string_view list) {
  std::vector<SystemChoice> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    const std::string_view item = list.substr(start, comma - start);
    if (item.empty())
      throw InputError("--system: empty name in '" + std::string(list) + "' (" + joinedNames() + ")");
    const SystemChoice s = parseSystem(item);
    if (std::find(out.begin(), out.end(), s) != out.end())
      throw InputError("--system: '" + std::string(item) + "' is given twice");
    out.push_back(s);
    start = comma + 1;
  }
  return out;
}

const char* placementName(Placement p) {
  switch (p) {
    case Placement::Gpu:
      return "gpu";
    case Placement::Pim:
      return "pim";
    case Placement::Split:
      return "gpu+pim";
  }
  return "?";
}

}  // namespace pim::llm
