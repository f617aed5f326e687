// SPDX-License-Identifier: Apache-2.0
// Placement of a mapped draft on the banks of a backend: which tile lives in which bank, bytes, padding.
// This is what the simulator's programs and the GUI's heat maps read.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/hw/backend.h"
#include "engine/mapping/footprints.h"
#include "engine/mapping/tile_mapping.h"

namespace pim {

struct TensorSlice {
  int tensor = -1;
  std::vector<IndexUnion> axes;  // the core's indices (a core spread over several banks lists them in each)
  std::int64_t bytes = 0;        // bytes of this tensor in this bank
};

struct BankPlacement {
  int pseudoChannel = 0;          // 0 .. layout.pseudoChannels-1
  int bank = 0;                   // bank within the pseudo-channel (flat: rank, bank group, bank)
  int group = -1, core = -1;      // owning PIM group and core of the draft; -1 when unused
  std::int64_t bytes = 0;         // tensor bytes placed in the bank
  std::int64_t paddingBytes = 0;  // added so every core of its group has the same address offsets
  std::int64_t rowsTouched = 0;   // DRAM rows the placed + padded bytes occupy
  std::vector<TensorSlice> slices;
};

struct BankLayout {
  int pseudoChannels = 0;
  int banksPerPseudoChannel = 0;
  std::vector<BankPlacement> banks;  // pseudo-channel-major
  std::int64_t placedBytes = 0;
  std::int64_t paddingBytes = 0;
  int banksUsed = 0;
  const BankPlacement& at(int pseudoChannel, int bank) const {
    return banks[pseudoChannel * banksPerPseudoChannel + bank];
  }
};

/// Places `m` on `b`: group G is PIM group G of the system (pseudo-channels G*p .. G*p+p-1, p pseudo-channels
/// per group); core K of a group owns banks K*banksPerCore .. +banksPerCore-1 of the group in flat order, and
/// a core's bytes are split evenly over its banks. Throws InputError if the draft needs more groups or cores
/// than the backend has.
BankLayout placeOnBanks(const Kernel& k, const TileMapping& m, const Backend& b);

/// What an evaluation reports of the placement; the same numbers as placeOnBanks, from footprints alone.
struct PlacementTotals {
  std::int64_t placedBytes = 0, paddingBytes = 0;
  int banksUsed = 0;
};
PlacementTotals placementTotals(const Kernel& k, const DraftFootprints& fp, const Backend& b);

}  // namespace pim
