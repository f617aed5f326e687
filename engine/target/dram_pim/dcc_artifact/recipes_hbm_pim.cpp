// SPDX-License-Identifier: Apache-2.0
// The artifact's HBM-PIM traces (gen_trace_HBMPIM_{RED,VA,RELU,GEMV}.py, read for their facts): the
// arithmetic is issued once per bank base address, over two halves of the banks; RED adds 4 MAC_OP1 per
// row per bank for the lane reduction tree and writes back every 8 rows; GEMV loads the vector in blocks of
// 16 positions and resets, loads, multiplies and writes back per GRF block of 8 outputs.
#include <array>
#include <span>

#include "engine/target/dram_pim/dcc_artifact/recipe.h"

namespace pim::dcc {
namespace {
// Named so that the two recipe files can share a unity-build unit.
namespace hbm_pim {

/// Base addresses of the used banks in one half (bank index mod `modulus` == `residue`), bank-major.
std::vector<std::uint64_t> halfBases(const Tiling& t, int modulus, int residue) {
  std::vector<std::uint64_t> out;
  for (std::int64_t ba = 0; ba < banksOf(t); ++ba)
    if (ba % modulus == residue)
      for (std::int64_t ch = 0; ch < channelsOf(t); ++ch) out.push_back(bankAddress(ch, ba));
  return out;
}

/// `cmd` for positions [first, last) of a row starting at element `rowStart`, in every bank of `bases`.
void perBankRun(TraceSink& out, Cmd cmd, std::uint64_t offset, std::int64_t rowStart, std::int64_t first,
                std::int64_t last, const std::vector<std::uint64_t>& bases) {
  for (std::int64_t pos = first; pos < last; ++pos)
    for (std::uint64_t b : bases)
      out.add(cmd, b + offset + static_cast<std::uint64_t>((rowStart + pos) * kElemBytes));
}

// ---- RED: ST the input; per row and half, MAC_OP1 over the row, 4 more for the tree, WB_RES every 8 rows.
std::int64_t redBytes(const Tiling& t, std::int64_t rows) { return 2 * burstBytes(rows * t[1].tile); }

void redEmit(const Tiling& t, std::int64_t rounds, bool, TraceSink& out) {
  const std::int64_t s0 = t[0].tile, s1 = t[1].tile, positions = ceilDiv(s0 * s1, kLanes);
  const std::uint64_t vec = 0, ret = static_cast<std::uint64_t>(burstBytes(s0 * s1));
  const std::array<std::vector<std::uint64_t>, 2> halves{halfBases(t, 4, 0), halfBases(t, 4, 1)};
  for (std::int64_t r = 0; r < rounds; ++r) {
    out.setPhase(sim::Phase::InputRearrangement);
    everyBank(out, Cmd::ST, vec, positions, t);
    out.barrier();
    out.setPhase(sim::Phase::Compute);
    for (std::int64_t row = 0; row < s0; ++row) {
      const bool grfFull = row % kGrf == kGrf - 1 || row == s0 - 1;
      for (const auto& bases : halves) {
        perBankRun(out, Cmd::MAC_OP1, vec, row * s1, 0, ceilDiv(s1, kLanes), bases);
        perBankRun(out, Cmd::MAC_OP1, vec, 0, 0, 4, bases);  // the reduction tree over the 16 lanes
        if (grfFull) perBankRun(out, Cmd::WB_RES, ret, row * s1, 0, 1, bases);
      }
    }
    out.barrier();
    out.setPhase(sim::Phase::OutputRearrangement);
    everyBank(out, Cmd::ST, ret, positions, t);
  }
}

// ---- VA and RELU: LD every input (barrier after each), per GRF block the element-wise commands, ST.
struct ElementwiseStep {
  Cmd cmd;
  int operand;  // 0, 1: inputs; 2: result
};

std::int64_t elementwiseBytes(const Tiling& t, std::int64_t rows) { return 3 * burstBytes(rows * t[1].tile); }

void elementwiseEmit(const Tiling& t, std::int64_t rounds, int inputs, std::span<const ElementwiseStep> steps,
                     TraceSink& out) {
  const std::int64_t s0 = t[0].tile, s1 = t[1].tile, positions = ceilDiv(s0 * s1, kLanes);
  const std::uint64_t vecBytes = static_cast<std::uint64_t>(burstBytes(s0 * s1));
  // The result follows the inputs: VA's z at 2V, RELU's y at V.
  const std::array<std::uint64_t, 3> offsets{0, vecBytes, static_cast<std::uint64_t>(inputs) * vecBytes};
  const std::array<std::vector<std::uint64_t>, 2> halves{halfBases(t, 4, 0), halfBases(t, 4, 1)};
  const std::int64_t chunks = ceilDiv(s1, kLanes);
  for (std::int64_t r = 0; r < rounds; ++r) {
    out.setPhase(sim::Phase::InputRearrangement);
    for (int i = 0; i < inputs; ++i) {
      everyBank(out, Cmd::LD, offsets[i], positions, t);
      out.barrier();
    }
    out.setPhase(sim::Phase::Compute);
    for (std::int64_t row = 0; row < s0; ++row)
      for (const auto& bases : halves)
        for (std::int64_t block = 0; block < chunks; block += kGrf)
          for (const ElementwiseStep& s : steps)
            perBankRun(out, s.cmd, offsets[s.operand], row * s1, block, std::min(block + kGrf, chunks),
                       bases);
    out.barrier();
    out.setPhase(sim::Phase::OutputRearrangement);
    everyBank(out, Cmd::ST, offsets[2], positions, t);
  }
}

void vaEmit(const Tiling& t, std::int64_t rounds, bool, TraceSink& out) {
  static constexpr ElementwiseStep kSteps[] = {{Cmd::LD_OP1, 0}, {Cmd::ADD_OP1, 1}, {Cmd::WB_RES, 2}};
  elementwiseEmit(t, rounds, 2, kSteps, out);
}

void reluEmit(const Tiling& t, std::int64_t rounds, bool, TraceSink& out) {
  static constexpr ElementwiseStep kSteps[] = {{Cmd::RELU, 0}, {Cmd::WB_RES, 2}};
  elementwiseEmit(t, rounds, 1, kSteps, out);
}

// ---- GEMV ([B*H, dh, L]): vector LD/ST in blocks of 16; per row, half and block of 8 outputs: ACC_RESET,
// LD_OP1 of the vector chunk, MAC_OP1 on every other entry of the half's bank list, WB_ACC.
std::int64_t gemvBytes(const Tiling& t, std::int64_t rows) {
  const std::int64_t s1 = t[1].tile, s2 = t[2].tile;
  return burstBytes(rows * s1) + burstBytes(rows * s1 * s2) + burstBytes(rows * s2);
}

struct GemvRow {
  std::int64_t s1, s2, inStart, outStart;
  std::uint64_t vec, mat, ret;
};

void gemvHalf(const GemvRow& g, const std::vector<std::uint64_t>& bases, TraceSink& out) {
  const std::int64_t nOut = ceilDiv(g.s2, kLanes), nIn = ceilDiv(g.s1, kLanes);
  for (std::int64_t ob = 0; ob < nOut; ob += kGrf) {
    const std::int64_t oe = std::min(ob + kGrf, nOut);
    for (std::int64_t o = ob; o < oe; ++o)
      for (std::uint64_t b : bases) out.add(Cmd::ACC_RESET, b);
    // Input blocks start every 8 x 16 elements but end 8 chunks on: the artifact's loop as it stands.
    for (std::int64_t ib = 0; ib < g.s1; ib += kGrf * kLanes) {
      const std::int64_t ie = std::min(ib + kGrf, nIn);
      perBankRun(out, Cmd::LD_OP1, g.vec, g.inStart, ib, ie, bases);
      for (std::int64_t o = ob; o < oe; ++o)
        for (std::int64_t i = ib; i < ie; ++i) {
          const std::int64_t posMat = g.outStart + i * g.s1 + o * kLanes;
          for (std::size_t idx = 0; idx < bases.size(); idx += 2)
            out.add(Cmd::MAC_OP1, bases[idx] + g.mat + static_cast<std::uint64_t>(posMat * kElemBytes));
        }
      for (std::int64_t o = ob; o < oe; ++o)
        for (std::uint64_t b : bases)
          out.add(Cmd::WB_ACC, b + g.ret + static_cast<std::uint64_t>(o) * kColumnBytes);
    }
  }
}

void gemvEmit(const Tiling& t, std::int64_t rounds, bool, TraceSink& out) {
  const std::int64_t s0 = t[0].tile, s1 = t[1].tile, s2 = t[2].tile;
  const auto matBytes = static_cast<std::uint64_t>(burstBytes(s0 * s1 * s2));
  // The artifact passes the matrix's base as the vector's: vector at 0, matrix after it, result last.
  GemvRow g{s1, s2, 0, 0, 0, matBytes, matBytes + static_cast<std::uint64_t>(burstBytes(s0 * s1))};
  const std::array<std::vector<std::uint64_t>, 2> halves{halfBases(t, 2, 0), halfBases(t, 2, 1)};
  for (std::int64_t r = 0; r < rounds; ++r) {
    out.setPhase(sim::Phase::InputRearrangement);
    stagedInput(out, g.vec, ceilDiv(s0 * s1, kLanes), t, true, false);
    out.setPhase(sim::Phase::Compute);
    for (std::int64_t row = 0; row < s0; ++row) {
      g.inStart = row * s1;
      g.outStart = row * s1 * s2;
      for (const auto& bases : halves) gemvHalf(g, bases, out);
    }
    out.barrier();
    out.setPhase(sim::Phase::OutputRearrangement);
    everyBank(out, Cmd::ST, g.ret, ceilDiv(s0 * s2, kLanes), t);
  }
}

constexpr Recipe kRecipes[] = {
    {"hbm-pim", "RED", 2, redBytes, redEmit},
    {"hbm-pim", "VA", 2, elementwiseBytes, vaEmit},
    {"hbm-pim", "RELU", 2, elementwiseBytes, reluEmit},
    {"hbm-pim", "GEMV", 3, gemvBytes, gemvEmit},
};

}  // namespace hbm_pim
}  // namespace

std::span<const Recipe> hbmPimRecipes() { return hbm_pim::kRecipes; }

}  // namespace pim::dcc
