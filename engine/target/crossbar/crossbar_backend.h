// SPDX-License-Identifier: Apache-2.0
// The crossbar family's backend files (issue 19; datasets/backends/crossbar-*.json, written by
// scripts/make_crossbar_backends.py): the schema every file is validated against and the accelerator the
// compiler reads from a loaded backend, so what-if edits reach the compiler and the profiler.
#pragma once
#include "engine/crossbar/accelerator.h"
#include "engine/hw/schema.h"

namespace pim {

class Backend;

/// Sections accelerator, chip, core, crossbar (the spec's template), timing and energy; every key required.
BackendSchema crossbarSchema();

/// The accelerator a crossbar backend describes.
crossbar::Accelerator acceleratorOf(const Backend& b);

/// A numeric parameter of a crossbar backend by key ("timing.mvmIntervalNs"); the schema requires it.
double crossbarValue(const Backend& b, const char* key);

}  // namespace pim
