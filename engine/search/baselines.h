// SPDX-License-Identifier: Apache-2.0
// The schedules DCC improves on: each vendor library's fixed tiling, and GPU-only execution on the host.
#pragma once
#include <optional>
#include <string>

#include "engine/search/evaluate.h"

namespace pim {

struct Baseline {
  std::string name;  // "vendor", "gpu"
  bool available = false;
  std::string reason;          // why not, when unavailable
  std::string summary;         // what the schedule is, one line
  std::optional<Draft> draft;  // when the baseline is a draft of the space (dcc-backends.md vendor tilings)
  Evaluation eval;
};

/// The vendor-default schedule of `p`'s backend:
///  * hbm2-pim: Samsung's library protocol for GEMV (b = 1), ADD (va), MUL (mul), RELU (relu), simulated as
///    the library issues it (hbm2-pim.md), on the backend's pseudo-channels;
///  * attacc: the AttAcc head/channel layout for decode attention (attacc.md), K and V resident; its GEMV and
///    reduction use the vendor tiling of dcc-backends.md as a draft;
///  * hbm-pim: "AttAcc's data distribution" (dcc-backends.md) as a draft.
/// Unavailable (with the reason) otherwise.
Baseline vendorBaseline(const Problem& p, const EvalOptions& o = {});

/// GPU-only execution on the host (attacc.md's A100 model); analytic.
Baseline gpuBaseline(const Problem& p);

/// The vendor tiling of dcc-backends.md as a draft of `p`'s space, if the kernel has that shape.
std::optional<Draft> vendorTilingDraft(const Problem& p);

}  // namespace pim
