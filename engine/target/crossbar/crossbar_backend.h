// SPDX-License-Identifier: Apache-2.0
// The crossbar family's backend files (issue 19; datasets/backends/crossbar-*.json, written by
// scripts/make_crossbar_backends.py): the schema every file is validated against and the accelerator the
// compiler reads from a loaded backend, so what-if edits reach the compiler and the profiler.
#pragma once
#include "engine/crossbar/accelerator.h"
#include "engine/hw/schema.h"
#include "sim/crossbar/xbar_energy.h"
#include "sim/crossbar/xbar_profiler.h"

namespace pim {

class Backend;

/// Sections accelerator, chip, core, crossbar (the spec's template), timing and energy; every key required.
BackendSchema crossbarSchema();

/// The accelerator a crossbar backend describes.
crossbar::Accelerator acceleratorOf(const Backend& b);

/// The profiler's constants from the backend's timing, core, chip and accelerator sections: in `PimcompNn`
/// mode timing.pimcompNnMvmNs, timing.pimcompNnCoresPerChip and PIMCOMP-NN's execution patterns (out of
/// order, synchronous), in `Intended` the MVM from its parts at crossbar.elementBits, the configured chips
/// and the patterns core.outOfOrder and chip.synchronousCommunication declare. InputError naming the backend
/// when a value is refused.
xbar::TimingParams timingParamsOf(const Backend& b, crossbar::TimingMode mode);
/// The energy model's ratings from the backend's energy section (areas and bit widths as DAC'23 gives them).
xbar::EnergyParams energyParamsOf(const Backend& b);

/// A numeric parameter of a crossbar backend by key ("timing.mvmIntervalNs"); the schema requires it.
double crossbarValue(const Backend& b, const char* key);

}  // namespace pim
