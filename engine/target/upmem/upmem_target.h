// SPDX-License-Identifier: Apache-2.0
// UPMEM DPUs: general-purpose in-order cores next to DRAM banks, programmed rather than driven by DRAM
// commands. Its backend files carry DCC's levels and the DPU, DMA and host-transfer parameters (no JEDEC
// timing). Drafts can be generated, pruned and printed; evaluating them needs the DPU cost model (CoMoNM's
// pipeline and DMA model, the UPMEM issue), so check() says so and nothing runs.
#pragma once
#include <memory>

#include "engine/target/target.h"

namespace pim {

std::unique_ptr<ITarget> makeUpmemTarget();

}  // namespace pim
