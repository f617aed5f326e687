// SPDX-License-Identifier: Apache-2.0
// The crossbar family (issue 19): RRAM (or any MVM-in-array) accelerators that keep every weight of a network
// in their arrays, compiled PIMCOMP-style by engine/crossbar and timed by sim/crossbar. They run whole
// networks, not DCC kernels: kernel commands on a crossbar backend are refused by `check` with the way to
// compile.
#pragma once
#include <memory>

#include "engine/target/target.h"

namespace pim {

std::unique_ptr<ITarget> makeCrossbarTarget();

}  // namespace pim
