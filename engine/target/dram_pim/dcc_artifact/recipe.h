// SPDX-License-Identifier: Apache-2.0
// One trace recipe per kernel the artifact covers (dcc-artifact.md "Command recipes"): hbm-pim RED, VA,
// RELU, GEMV (recipes_hbm_pim.cpp) and attacc RED, GEMV, ATTN (recipes_attacc.cpp). A recipe writes the
// artifact's command trace of a rounded tiling into a TraceSink; the rounds (num_itr) come from its sizes.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>

#include "engine/common/int_math.h"
#include "engine/target/dram_pim/dcc_artifact/tiling.h"
#include "engine/target/dram_pim/dcc_artifact/trace.h"

namespace pim::dcc {

inline constexpr std::int64_t kLanes = 16;     // FP16 values per 32-B access
inline constexpr std::int64_t kElemBytes = 2;  // FP16
inline constexpr std::int64_t kGrf = 8;        // HBM-PIM GRF entries

struct Recipe {
  const char* family;  // "hbm-pim", "attacc"
  const char* kernel;  // the artifact's name: "RED", "VA", "RELU", "GEMV", "ATTN"
  int dims;            // 2: [batch, length]; 3: [batch x heads, head dim, sequence]
  /// Bytes one round of `rows` outer rows occupies in a bank (the artifact's total_size, each operand
  /// rounded up to 32 B): the rounds are the fewest whose rows fit in one 16-MiB bank.
  std::int64_t (*roundBytes)(const Tiling& t, std::int64_t rows);
  /// The whole trace of `rounds` rounds of `t` (rounded; t[0].tile is the rows of one round).
  void (*emit)(const Tiling& t, std::int64_t rounds, bool inference, TraceSink& out);
};

/// The recipes of each family (recipes_hbm_pim.cpp, recipes_attacc.cpp).
std::span<const Recipe> hbmPimRecipes();
std::span<const Recipe> attaccRecipes();
/// The recipe of `kernel` on `family`, or nullptr when the artifact has none.
const Recipe* findRecipe(std::string_view family, std::string_view kernel);
/// num_itr: the fewest rounds (1..rows) whose slice of ceil(rows / rounds) rows fits one bank; 0 when not
/// even one row fits.
std::int64_t roundsFor(const Recipe& r, const Tiling& t);

/// Helpers the recipes share (recipe_common.cpp; ceilDiv is engine/common/int_math.h's).
std::int64_t burstBytes(std::int64_t elems);  // elems FP16 values rounded up to whole 32-B accesses
/// `cmd` at position 0..positions-1 (32 B apart from `offset`) of every used bank: position-major, then bank,
/// then channel, the artifact's loop order.
void everyBank(TraceSink& out, Cmd cmd, std::uint64_t offset, std::int64_t positions, const Tiling& t);
/// `cmd` once per used bank at its base + `offset` (bank-major, then channel).
void oncePerBank(TraceSink& out, Cmd cmd, std::uint64_t offset, const Tiling& t);
/// `cmd` once per used channel at channel base + `offset`.
void oncePerChannel(TraceSink& out, Cmd cmd, std::uint64_t offset, const Tiling& t);
/// The host's input copy in blocks of 16 positions: LD of a block into every bank, then its ST into every
/// bank (bank-major); `barriers` puts PIM_BARRIERs around each block's stores; `blockEndsAtFirst` is the
/// AttAcc GEMV generator's trigger (a block closes at position % 16 == 0) instead of % 16 == 15.
void stagedInput(TraceSink& out, std::uint64_t offset, std::int64_t positions, const Tiling& t, bool barriers,
                 bool blockEndsAtFirst);

}  // namespace pim::dcc
