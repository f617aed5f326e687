// SPDX-License-Identifier: Apache-2.0
#include "engine/target/dram_pim/dcc_artifact/recipe.h"

#include "engine/common/int_math.h"

namespace pim::dcc {

std::int64_t burstBytes(std::int64_t elems) {
  return ceilDiv(elems * kElemBytes, kColumnBytes) * static_cast<std::int64_t>(kColumnBytes);
}

const Recipe* findRecipe(std::string_view family, std::string_view kernel) {
  for (std::span<const Recipe> list : {hbmPimRecipes(), attaccRecipes()})
    for (const Recipe& r : list)
      if (family == r.family && kernel == r.kernel) return &r;
  return nullptr;
}

std::int64_t roundsFor(const Recipe& r, const Tiling& t) {
  const std::int64_t rows = t[0].tile;
  for (std::int64_t n = 1; n <= rows; ++n)
    if (r.roundBytes(t, ceilDiv(rows, n)) <= static_cast<std::int64_t>(kBankBytes)) return n;
  return 0;
}

void everyBank(TraceSink& out, Cmd cmd, std::uint64_t offset, std::int64_t positions, const Tiling& t) {
  const std::int64_t channels = channelsOf(t), banks = banksOf(t);
  for (std::int64_t pos = 0; pos < positions; ++pos)
    for (std::int64_t ba = 0; ba < banks; ++ba)
      for (std::int64_t ch = 0; ch < channels; ++ch)
        out.add(cmd, bankAddress(ch, ba, offset + static_cast<std::uint64_t>(pos) * kColumnBytes));
}

void oncePerBank(TraceSink& out, Cmd cmd, std::uint64_t offset, const Tiling& t) {
  const std::int64_t channels = channelsOf(t), banks = banksOf(t);
  for (std::int64_t ba = 0; ba < banks; ++ba)
    for (std::int64_t ch = 0; ch < channels; ++ch) out.add(cmd, bankAddress(ch, ba, offset));
}

void oncePerChannel(TraceSink& out, Cmd cmd, std::uint64_t offset, const Tiling& t) {
  for (std::int64_t ch = 0; ch < channelsOf(t); ++ch) out.add(cmd, bankAddress(ch, 0, offset));
}

void stagedInput(TraceSink& out, std::uint64_t offset, std::int64_t positions, const Tiling& t, bool barriers,
                 bool blockEndsAtFirst) {
  const std::int64_t channels = channelsOf(t), banks = banksOf(t);
  std::int64_t first = 0;
  for (std::int64_t pos = 0; pos < positions; ++pos) {
    for (std::int64_t ba = 0; ba < banks; ++ba)
      for (std::int64_t ch = 0; ch < channels; ++ch)
        out.add(Cmd::LD, bankAddress(ch, ba, offset + static_cast<std::uint64_t>(pos) * kColumnBytes));
    const bool closes =
        (blockEndsAtFirst ? pos % kLanes == 0 : pos % kLanes == kLanes - 1) || pos + 1 == positions;
    if (!closes) continue;
    if (barriers) out.barrier();
    for (std::int64_t ba = 0; ba < banks; ++ba)
      for (std::int64_t s = first; s <= pos; ++s)
        for (std::int64_t ch = 0; ch < channels; ++ch)
          out.add(Cmd::ST, bankAddress(ch, ba, offset + static_cast<std::uint64_t>(s) * kColumnBytes));
    first = pos + 1;
    if (barriers) out.barrier();
  }
}

}  // namespace pim::dcc
