// SPDX-License-Identifier: Apache-2.0
// The systems an LLM request runs on (DCC section 5.2): GPU-only; AttAcc_Base (attention on PIM); AttAcc_Full
// (attention and a share of the FFN on PIM); each with the vendor's tiling or DCC's choice; and `auto`, where
// every kernel goes wherever it is fastest. A system decides, per operator of a decoder layer, where it runs.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "engine/llm/pim_kernels.h"

namespace pim::llm {

enum class SystemKind { Gpu, AttAccBase, AttAccFull, Auto };

struct SystemChoice {
  SystemKind kind = SystemKind::Gpu;
  Tiling tiling = Tiling::Vendor;  // the PIM kernels' schedules (auto: DCC's)
  /// "gpu", "attacc-base", "attacc-base+dcc", "attacc-full", "attacc-full+dcc", "auto".
  std::string name() const;
  bool usesPim() const { return kind != SystemKind::Gpu; }
  /// The schedules its PIM kernels run: `auto` takes DCC's.
  Tiling pimTiling() const { return kind == SystemKind::Auto ? Tiling::Dcc : tiling; }
  bool operator==(const SystemChoice&) const = default;
};

/// Every system name, in the order above.
std::vector<std::string> systemNames();
/// Throws InputError naming the unknown system and listing the names.
SystemChoice parseSystem(std::string_view name);
/// A comma-separated list ("gpu,attacc-full+dcc"); throws InputError for an empty list or a duplicate.
std::vector<SystemChoice> parseSystems(std::string_view list);

/// Where one operator runs.
enum class Placement { Gpu, Pim, Split };  // Split: rows shared by GPU and PIM, both finishing together
const char* placementName(Placement p);    // "gpu", "pim", "gpu+pim"

}  // namespace pim::llm
