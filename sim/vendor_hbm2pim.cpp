// SPDX-License-Identifier: Apache-2.0
#include "sim/vendor_hbm2pim.h"

#include "sim/hbm2pim_protocol.h"

#include <algorithm>

namespace pim::sim {

namespace {
constexpr int kUnits = 8;   // PIM units per pseudo-channel
constexpr int kGrf = 8;     // GRF_A / GRF_B entries
constexpr int kLanes = 16;  // FP16 per 32-B burst
}  // namespace

Program hbm2pimEltwise(const DeviceConfig& cfg, int channels, int64_t n, Hbm2EltOp op, Hbm2Copies copies) {
  Hbm2Emitter e(cfg);
  const int64_t tileElems = int64_t(kLanes) * kGrf * cfg.banksPerRank() * channels;  // 2048*C
  const int64_t tiles = n / tileElems;  // a remainder is not computed (vendor behaviour)
  const int64_t burstsPerBank = tiles * kGrf;
  const uint32_t in0 = 0, in1 = 128, outRow = 256;
  if (copies.input0 || copies.input1) {  // host writes the inputs into every bank (single-bank mode)
    e.b.setPhase(Phase::InputRearrangement);
    const int inputs = op == Hbm2EltOp::Relu ? 1 : 2;
    for (int k = 0; k < inputs; ++k)
      for (int bank = 0; bank < cfg.banksPerRank() && (k ? copies.input1 : copies.input0); ++bank)
        for (int64_t i = 0; i < burstsPerBank; ++i)
          e.b.add({Op::HOST_WR, Phase::InputRearrangement, 0, 0, uint8_t(e.rank), uint8_t(bank / 4),
                   uint8_t(bank % 4), uint32_t((k ? in1 : in0) + i / cfg.columns),
                   uint32_t(i % cfg.columns)});
  }
  e.b.setPhase(Phase::Compute);
  e.park();
  e.sbToAb();
  e.programCrf(op == Hbm2EltOp::Relu ? 5 : 8);
  e.setPimMode(true);
  // One loop iteration per tile: every access advances by 8 columns (the engine carries into the next row).
  if (tiles > 0) {
    e.b.beginLoop(tiles);
    for (int parity = 0; parity < 2; ++parity) {
      e.rdAll(parity, in0, 0, kGrf, true, 0, kGrf);  // FILL GRF from input 0 (or FILL with ReLU)
      e.b.barrier();
      if (op != Hbm2EltOp::Relu) {
        e.rdAll(parity, in1, 0, kGrf, true, 0, kGrf);  // AUTO ADD/MUL with input 1
        e.b.barrier();
      }
      e.wrAll(parity, outRow, 0, kGrf, true, 0, kGrf);  // NOP: write GRF back
      e.b.barrier();
    }
    e.b.endLoop();
  }
  e.setPimMode(false);
  e.abToSb();
  e.park();
  if (copies.output) {
    e.b.setPhase(Phase::OutputRearrangement);
    for (int bank = 0; bank < cfg.banksPerRank(); ++bank)
      e.b.add({Op::HOST_RD, Phase::OutputRearrangement, 0, 0, uint8_t(e.rank), uint8_t(bank / 4),
               uint8_t(bank % 4), outRow, 0, 0, uint32_t(burstsPerBank)});
  }
  return Program::replicated(e.b.take(), channels);
}

Program hbm2pimGemv(const DeviceConfig& cfg, int channels, int64_t out, int64_t in, Hbm2Copies copies) {
  Hbm2Emitter e(cfg);
  const int64_t outTileRows = int64_t(kUnits) * kGrf * channels;  // 64*C
  const int64_t outTiles = (out + outTileRows - 1) / outTileRows;
  const int64_t inTile = int64_t(kLanes) * kGrf;  // 128 inputs = 8 bursts
  const int64_t inTiles = (in + inTile - 1) / inTile;
  const int64_t evenTiles = (inTiles + 1) / 2, oddTiles = inTiles / 2;
  const int rowsPerBlock = 64 / cfg.columns;  // 64 columns = 2 rows
  // Weight rows of (output tile o, j-th input tile of a parity) start at rowsPerBlock*(o*evenTiles + j).
  const uint32_t resultRow = uint32_t(rowsPerBlock * outTiles * evenTiles);
  if (copies.input0) {
    e.b.setPhase(Phase::InputRearrangement);
    const int64_t weightBursts = outTiles * evenTiles * 64;  // per bank
    for (int bank = 0; bank < cfg.banksPerRank(); ++bank)
      e.b.add({Op::HOST_WR, Phase::InputRearrangement, 0, 0, uint8_t(e.rank), uint8_t(bank / 4),
               uint8_t(bank % 4), 0, 0, 0, uint32_t(weightBursts)});
  }
  e.b.setPhase(Phase::Compute);
  e.park();
  e.sbToAb();
  e.programCrf(4);
  for (int64_t o = 0; o < outTiles; ++o) {
    e.setPimMode(true);  // entering AB-PIM zeroes GRF_B
    for (int parity = 0; parity < 2; ++parity) {
      const int64_t nt = parity ? oddTiles : evenTiles;
      if (nt == 0) continue;
      // One loop iteration per input tile; its weight block is the next 2 rows of the bank.
      e.b.beginLoop(nt);
      e.wrAll(1, kHbm2RegRow, 8, kGrf, false);  // broadcast 128 inputs into GRF_A (bank 1, row 0x3FFF)
      e.b.barrier();
      const uint32_t row = uint32_t(rowsPerBlock * (o * evenTiles));
      for (int g = 0; g < 8; ++g) {  // 64 MAC RD over 2 weight rows, a barrier per 8
        e.rdAll(parity, row, uint32_t(8 * g), kGrf, true, rowsPerBlock, 0);
        e.b.barrier();
      }
      e.b.endLoop();
    }
    e.wrAll(1, resultRow + uint32_t(o), 0, kGrf, true);  // NOP: GRF_B -> bank (16 partial sums per output)
    e.b.barrier();
    e.setPimMode(false);
  }
  e.abToSb();
  e.park();
  if (copies.output) {
    e.b.setPhase(Phase::OutputRearrangement);
    for (int bank = 1; bank < cfg.banksPerRank(); bank += 2)
      for (int64_t o = 0; o < outTiles; ++o)
        e.b.add({Op::HOST_RD, Phase::OutputRearrangement, 0, 0, uint8_t(e.rank), uint8_t(bank / 4),
                 uint8_t(bank % 4), uint32_t(resultRow + o), 0, 0, kGrf});
  }
  return Program::replicated(e.b.take(), channels);
}

}  // namespace pim::sim
