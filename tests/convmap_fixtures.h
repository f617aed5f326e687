// SPDX-License-Identifier: Apache-2.0
// Conv-mapping fixtures shared by the tests that count by hand.
#pragma once
#include "engine/convmap/hierarchy.h"

namespace pim::convmap::test {

/// 2 x 2 PEs, PE buffers of 16 B, a 256-B global buffer, DRAM with 1,024-B rows; 1 B per element, every
/// bandwidth 1 B/cycle, every access 1 pJ per byte, activation 10 + 10 cycles: numbers small enough to count
/// by hand.
inline Hierarchy tinyHierarchy() {
  Hierarchy h;
  h.name = "tiny";
  h.pe = {2, 2, 1, "scalar", 1.0, 1.0};
  h.timing.tRCD = 10;
  h.timing.tRP = 10;
  MemoryLevel pe{"PE", 16, 1, 4, 1, 1.0};
  MemoryLevel gb{"GB", 256, 1, 1, 1, 1.0};
  MemoryLevel dram{"DRAM", std::int64_t{1} << 40, 1, 1, 1, 1.0};
  for (auto* l : {&pe, &gb, &dram}) l->readBandwidth = l->writeBandwidth = 1;
  dram.rowBytes = 1024;
  h.levels = {pe, gb, dram};
  return h;
}

/// `tiny` with 4-B DRAM rows, 50-cycle tRCD and tRP and an 8-entry global buffer: where the MILP's row
/// count, a relaxation, falls short of the evaluator's.
inline Hierarchy shortRowsHierarchy() {
  auto h = tinyHierarchy();
  h.name = "tiny, 4-B rows";
  h.levels[2].rowBytes = 4;
  h.timing.tRCD = h.timing.tRP = 50;
  h.levels[1].entries = 8;
  return h;
}

}  // namespace pim::convmap::test
