// SPDX-License-Identifier: Apache-2.0
// Row activations of a sequentially laid-out tensor (docs/convmap.md "Row activations"): the accesses form a
// loop nest over contiguous runs (the fills' loops outside, the tile's runs inside), each run starting at an
// affine byte address. Activations = 1 + the runs' inner row boundaries + the transitions between consecutive
// runs that land in another row. Per loop, the transitions it drives are counted exactly and each lands in a
// new row with the fraction of start offsets (uniform over the multiples of g = gcd(row, every stride)) for
// which it does: the GCD period analysis of pimopt 5.5.4 applied to every jump instead of only to window
// crossings.
#pragma once
#include <cstdint>
#include <vector>

namespace pim::convmap {

struct RunLoop {
  std::int64_t count;   // iterations (> 1)
  std::int64_t stride;  // bytes between consecutive run starts when this loop steps (0: a repeat)
};

struct RunNest {
  std::vector<RunLoop> fillLoops;  // outer to inner: the loops that move (or repeat) the tile
  std::vector<RunLoop> tileLoops;  // outer to inner: the runs of one tile walk
  std::int64_t runBytes = 1;       // bytes of the contiguous innermost run
};

/// Expected activations of reading every fill's tile once, in the nest's order, alone in a bank.
double readActivations(const RunNest& nest, std::int64_t rowBytes);

/// An output's: every fill but the first of each tile (fills - distinct of them) reads the tile, and every
/// fill writes it back before the next one starts.
double readWriteActivations(const RunNest& nest, std::int64_t fills, std::int64_t distinct,
                            std::int64_t rowBytes);

}  // namespace pim::convmap
