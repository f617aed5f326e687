// SPDX-License-Identifier: Apache-2.0
// A crossbar accelerator as the compiler sees it (issue 19; ../shared/specs/crossbar.md, "Architecture
// template" and "Configurations"): logical arrays of rows x cols cells, each holding one full-precision
// signed weight, grouped in cores and chips. The backend file's parameters (engine/target/crossbar) fill it;
// the compiler and the profiler read nothing else.
#pragma once
#include <cstdint>
#include <string>

#include "sim/crossbar/timing_model.h"

namespace pim::crossbar {

/// How the profiler times instructions (sim/crossbar/timing_model.h).
using TimingMode = xbar::TimingModel;

struct Accelerator {
  std::string name;         // the backend's name, for messages
  std::int64_t rows = 128;  // logical crossbar rows (the matrix height one array holds)
  std::int64_t cols = 128;  // logical crossbar columns
  std::int64_t crossbarsPerCore = 64;
  std::int64_t coresX = 12, coresY = 12;  // cores of the whole accelerator, X x Y (PIMCOMP-NN's layout)
  std::int64_t chips = 1;                 // chips as configured (Intended mode's contention domains)
  std::int64_t localMemoryBytes = 64 * 1024;
  int elementBits = 16;  // data and weight precision (PIMCOMP-NN: 16-bit fixed point)
  int cellBits = 2;      // physical cell precision (logical arrays hide it; energy and area scale with it)

  std::int64_t cores() const { return coresX * coresY; }
  std::int64_t crossbars() const { return cores() * crossbarsPerCore; }
};

/// One line for listings: "144 cores (12 x 12) in 1 chip, 64 arrays of 128 x 128 per core: 9,216 arrays".
std::string describe(const Accelerator& a);

}  // namespace pim::crossbar
