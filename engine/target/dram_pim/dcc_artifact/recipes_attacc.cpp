// SPDX-License-Identifier: Apache-2.0
// The artifact's AttAcc traces (gen_trace_AttAcc_{RED,GEMV,ATTN}.py, read for their facts): WR_GB (and
// MV_GB) once per bank for every 16 input elements, MAC_AB once per channel, MV_SB once per bank group of the
// used banks every 16 outputs; the host's copies per used bank. ATTN keeps two rounds in flight.
#include <span>

#include "engine/target/dram_pim/dcc_artifact/recipe.h"

namespace pim::dcc {
namespace {
// Named so that the two recipe files can share a unity-build unit.
namespace attacc {

/// `cmd` once per used bank for every 16th element of row `row` (elements row*s1 .. row*s1+s1-1), at byte
/// offset `offset` + element index, bank-major then channel.
void perChunkPerBank(TraceSink& out, Cmd cmd, std::uint64_t offset, std::int64_t row, const Tiling& t) {
  const std::int64_t s1 = t[1].tile;
  for (std::int64_t pos = row * s1; pos < (row + 1) * s1; ++pos)
    if (pos % kLanes == 0) oncePerBank(out, cmd, offset + static_cast<std::uint64_t>(pos), t);
}

/// MV_SB once per group of 4 used banks and per channel (the bank-group stride of the address).
void moveToSoftmaxBuffer(TraceSink& out, std::uint64_t offset, const Tiling& t) {
  for (std::int64_t bg = 0; bg < ceilDiv(banksOf(t), 4); ++bg)
    oncePerChannel(out, Cmd::MV_SB, offset + static_cast<std::uint64_t>(bg) * kBankGroupBytes, t);
}

/// `macs` rows of `perRow` MAC_AB per channel at consecutive columns, MV_SB after every 16 rows (and the
/// last).
void macRows(TraceSink& out, std::uint64_t mat, std::int64_t rows, std::int64_t perRow, bool rowMajor,
             std::uint64_t mvsbOffset, bool withMvsb, const Tiling& t) {
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < perRow; ++c) {
      const std::int64_t pos = rowMajor ? c + r * perRow : c * rows + r;
      oncePerChannel(out, Cmd::MAC_AB, mat + static_cast<std::uint64_t>(pos) * kColumnBytes, t);
    }
    if (withMvsb && (r % kLanes == kLanes - 1 || r == rows - 1)) moveToSoftmaxBuffer(out, mvsbOffset, t);
  }
}

// ---- RED: ST the input, WR_GB per bank, per row MAC_AB over the row and MV_SB per bank group, ST results.
std::int64_t redBytes(const Tiling& t, std::int64_t rows) { return 2 * burstBytes(rows * t[1].tile); }

void redEmit(const Tiling& t, std::int64_t rounds, bool, TraceSink& out) {
  const std::int64_t s0 = t[0].tile, s1 = t[1].tile, positions = ceilDiv(s0 * s1, kLanes);
  const std::uint64_t vec = kColumnBytes, ret = vec + static_cast<std::uint64_t>(burstBytes(s0 * s1));
  for (std::int64_t r = 0; r < rounds; ++r) {
    out.setPhase(sim::Phase::InputRearrangement);
    everyBank(out, Cmd::ST, vec, positions, t);
    out.barrier();
    out.setPhase(sim::Phase::Compute);
    oncePerBank(out, Cmd::WR_GB, 0, t);
    for (std::int64_t row = 0; row < s0; ++row) {
      for (std::int64_t c = 0; c < ceilDiv(s1, kLanes); ++c)
        oncePerChannel(out, Cmd::MAC_AB, vec + static_cast<std::uint64_t>(c) * kColumnBytes, t);
      moveToSoftmaxBuffer(out, ret, t);
    }
    out.barrier();
    out.setPhase(sim::Phase::OutputRearrangement);
    everyBank(out, Cmd::ST, ret, positions, t);
  }
}

// ---- GEMV and ATTN ([B*H, dh, L]): the vector in (kernel mode: LD and ST in blocks of 16; inference mode:
// ST only, the vector already on the GPU), then per head slice WR_GB and the MAC_AB/MV_SB sweep.
struct Offsets {
  std::uint64_t vec, mat, ret;
};

Offsets offsetsOf(const Tiling& t) {
  const std::int64_t s0 = t[0].tile, s1 = t[1].tile, s2 = t[2].tile;
  const auto mat = static_cast<std::uint64_t>(burstBytes(s0 * s1 * s2));
  // The artifact passes the matrix's base as the vector's: vector at 0, matrix after it, result last.
  return {0, mat, mat + static_cast<std::uint64_t>(burstBytes(s0 * s1))};
}

std::int64_t gemvBytes(const Tiling& t, std::int64_t rows) {
  const std::int64_t s1 = t[1].tile, s2 = t[2].tile;
  return burstBytes(rows * s1) + burstBytes(rows * s1 * s2) + burstBytes(rows * s2);
}

void vectorIn(TraceSink& out, std::uint64_t vec, const Tiling& t, bool inference, bool barriers,
              bool blockEndsAtFirst) {
  out.setPhase(sim::Phase::InputRearrangement);
  const std::int64_t positions = ceilDiv(t[0].tile * t[1].tile, kLanes);
  if (inference)
    everyBank(out, Cmd::ST, vec, positions, t);
  else
    stagedInput(out, vec, positions, t, barriers, blockEndsAtFirst);
}

void gemvEmit(const Tiling& t, std::int64_t rounds, bool inference, TraceSink& out) {
  const std::int64_t s0 = t[0].tile, s1 = t[1].tile, s2 = t[2].tile;
  const Offsets o = offsetsOf(t);
  for (std::int64_t r = 0; r < rounds; ++r) {
    vectorIn(out, o.vec, t, inference, false, true);
    out.barrier();
    out.setPhase(sim::Phase::Compute);
    for (std::int64_t row = 0; row < s0; ++row) {
      perChunkPerBank(out, Cmd::WR_GB, o.vec, row, t);
      out.barrier();
      macRows(out, o.mat, s2, ceilDiv(s1, kLanes), false, o.ret, true, t);
      out.barrier();
    }
    out.barrier();
    out.setPhase(sim::Phase::OutputRearrangement);
    everyBank(out, Cmd::ST, o.ret, ceilDiv(s0 * s2, kLanes), t);
  }
}

// ---- ATTN: score MAC_AB over the sequence, SFM per channel for each core of part 0, MV_GB per bank for
// every 16 elements, context MAC_AB over the head dimension. The artifact's context MAC_AB and MV_SB land in
// the score list, so every head slice runs both sweeps after its WR_GB, and its separate context list is
// empty.
std::int64_t attnBytes(const Tiling& t, std::int64_t rows) {
  const std::int64_t s1 = t[1].tile, s2 = t[2].tile;
  return 2 * burstBytes(rows * s1) + burstBytes(rows * s1 * s2);
}

struct Attn {
  const Tiling& t;
  Offsets o;
  bool inference;

  void scoreSweeps(TraceSink& out) const {
    const std::int64_t s1 = t[1].tile, s2 = t[2].tile;
    macRows(out, o.mat, s2, ceilDiv(s1, kLanes), true, 0, false, t);
    macRows(out, o.mat, s1, ceilDiv(s2, kLanes), true, o.ret, true, t);
  }
  void scoreMvsb(TraceSink& out) const {
    for (std::int64_t r = 0; r < t[2].tile; ++r)
      if (r % kLanes == kLanes - 1 || r == t[2].tile - 1) moveToSoftmaxBuffer(out, 0, t);
  }
  void softmax(TraceSink& out) const {
    for (std::int64_t pos = 0; pos < t[0].cores; ++pos)
      for (int ch = 0; ch < kStackChannels; ++ch)
        out.add(Cmd::SFM, bankAddress(ch, pos * (kCores / t[0].cores)));
  }
  void slices(TraceSink& out, bool wrgb, bool sweeps, bool mvgb) const {
    for (std::int64_t row = 0; row < t[0].tile; ++row) {
      if (wrgb) perChunkPerBank(out, Cmd::WR_GB, o.vec, row, t);
      if (sweeps) scoreSweeps(out);
      if (mvgb) perChunkPerBank(out, Cmd::MV_GB, o.vec, row, t);
    }
  }
  void resultsOut(TraceSink& out) const {
    out.setPhase(sim::Phase::OutputRearrangement);
    everyBank(out, Cmd::ST, o.ret, ceilDiv(t[0].tile * t[1].tile, kLanes), t);
  }
  void pair(bool next, TraceSink& out) const {
    vectorIn(out, o.vec, t, inference, true, false);
    if (next) vectorIn(out, o.vec, t, inference, true, false);
    out.barrier();
    out.setPhase(sim::Phase::Compute);
    slices(out, true, true, false);
    scoreMvsb(out);
    if (next) {
      slices(out, true, false, false);
      out.barrier();
      slices(out, false, true, false);
    }
    softmax(out);
    slices(out, false, false, true);
    if (next) {
      scoreMvsb(out);
      out.barrier();
      softmax(out);
      out.barrier();
      slices(out, false, false, true);
    }
    out.barrier();
    resultsOut(out);
    if (next) resultsOut(out);
  }
};

void attnEmit(const Tiling& t, std::int64_t rounds, bool inference, TraceSink& out) {
  const Attn a{t, offsetsOf(t), inference};
  for (std::int64_t r = 0; r < rounds; r += 2) a.pair(r + 1 < rounds, out);
}

constexpr Recipe kRecipes[] = {
    {"attacc", "RED", 2, redBytes, redEmit},
    {"attacc", "GEMV", 3, gemvBytes, gemvEmit},
    {"attacc", "ATTN", 3, attnBytes, attnEmit},
};

}  // namespace attacc
}  // namespace

std::span<const Recipe> attaccRecipes() { return attacc::kRecipes; }

}  // namespace pim::dcc
