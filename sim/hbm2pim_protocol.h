// SPDX-License-Identifier: Apache-2.0
#pragma once
// The HBM2-PIM (Aquabolt-XL) command protocol (hbm2-pim.md, "Modes" and "Vendor kernel protocol"):
// park-in/out, SB<->AB mode switches, CRF programming and AB/AB-PIM bursts to all even or all odd banks of
// the PIM rank. Shared by the vendor-library programs and the code generator for DCC drafts.
#include <algorithm>
#include <cstdint>

#include "sim/config.h"
#include "sim/program.h"
#include "sim/vendor_hbm2pim.h"

namespace pim::sim {

struct Hbm2Emitter {
  const DeviceConfig& cfg;
  ProgramBuilder own;
  ProgramBuilder& b;  // `own`, or a builder the caller is appending a larger program to
  int rank;
  uint64_t even = 0, odd = 0;
  explicit Hbm2Emitter(const DeviceConfig& c) : Hbm2Emitter(c, own) {}
  Hbm2Emitter(const DeviceConfig& c, ProgramBuilder& out) : cfg(c), b(out), rank(c.pimRank) {
    // AB mode: a command to bank 0 (1) of bank group 0 acts on all even (odd) banks of the PIM rank.
    const int base = rank * cfg.banksPerRank();
    for (int i = 0; i < cfg.banksPerRank(); ++i) (i % 2 ? odd : even) |= 1ULL << (base + i);
  }
  uint64_t half(int parity) const { return parity ? odd : even; }
  // n bursts at consecutive columns of (row, col); a column past the row's end carries into the next row (the
  // engine applies the address mapping). rowStep/colStep advance the access per iteration of a loop.
  Command& rdAll(int parity, uint32_t row, uint32_t col, int n, bool pim, int rowStep = 0, int colStep = 0) {
    Command& c = b.rd(rank, 0, parity, row, col, uint32_t(n), half(parity));
    c.flags |= pim ? kFlagPim : 0;
    c.rowStep = rowStep, c.colStep = colStep;
    return c;
  }
  Command& wrAll(int parity, uint32_t row, uint32_t col, int n, bool pim, int rowStep = 0, int colStep = 0) {
    Command& c = rdAll(parity, row, col, n, pim, rowStep, colStep);
    c.op = Op::WR;
    return c;
  }
  void park() {  // park-in / park-out: one RD per bank, single-bank mode
    for (int bg = 0; bg < cfg.bankGroups; ++bg)
      for (int ba = 0; ba < cfg.banksPerBankGroup; ++ba) b.rd(rank, bg, ba, kHbm2ParkRow, 0);
    b.barrier();
  }
  void sbToAb() {  // ACT of the ABMR row on banks 0, 1, 8, 9 (ordinary ACTs with full timing)
    b.act(rank, 0, 0, kHbm2AbmrRow);
    b.act(rank, 0, 1, kHbm2AbmrRow);
    b.act(rank, 2, 0, kHbm2AbmrRow);
    b.act(rank, 2, 1, kHbm2AbmrRow);
    b.barrier();
  }
  void abToSb() {  // precharge of the SBMR row on banks 0 and 1 (it is opened first, in AB mode)
    b.act(rank, 0, 0, kHbm2SbmrRow, even);
    b.act(rank, 0, 1, kHbm2SbmrRow, odd);
    b.pre(rank, 0, 0, even);
    b.pre(rank, 0, 1, odd);
    b.barrier();
  }
  void programCrf(int instructions) {  // 8 instructions per burst to columns 4..7 of the register row
    const int bursts = std::max(1, (instructions + 7) / 8);
    wrAll(1, kHbm2RegRow, 4, bursts, false);
    b.barrier();
  }
  void setPimMode(bool on) {  // control register, column 0 of the register row
    (void)on;
    wrAll(0, kHbm2RegRow, 0, 1, false);
    b.barrier();
  }
};

}  // namespace pim::sim
