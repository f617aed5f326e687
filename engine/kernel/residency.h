// SPDX-License-Identifier: Apache-2.0
// Operand residency (DCC section 4.5, `DCC.Kernel.preLoad`): a tensor is `streamed` (moved from the host
// layout into the draft's bank layout on every call, and outputs back) or `resident` (placed once in the
// draft's own bank layout and read or written in place; its placement is a one-time preload, not part of a
// call). A kernel declares the natural default per tensor (`input W: f16[out][in] resident`); a run may
// override it.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "engine/kernel/kernel.h"

namespace pim {

struct Residency {
  std::vector<bool> resident;  // per tensor of the kernel; temporaries are never resident

  /// What the kernel declares.
  static Residency declared(const Kernel& k);
  bool isResident(int tensor) const { return resident[static_cast<std::size_t>(tensor)]; }
  bool any() const;
  bool operator==(const Residency&) const = default;
};

/// `base` with the tensors named in `residentList` made resident and those in `streamedList` streamed (each a
/// comma-separated list of tensor names, either may be empty). Throws InputError naming an unknown tensor, a
/// temporary (it never leaves the banks nor enters them from the host) or a tensor named in both lists.
Residency overrideResidency(const Kernel& k, Residency base, std::string_view residentList,
                            std::string_view streamedList);
/// The resident tensors as "W,K" (empty when every tensor is streamed).
std::string residentNames(const Kernel& k, const Residency& r);
/// The part of a problem's key that residency adds: "" when every tensor is streamed (the key stored problems
/// had before residency existed), else ";resident=W,K".
std::string residencyKey(const Kernel& k, const Residency& r);

}  // namespace pim
