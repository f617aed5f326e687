// SPDX-License-Identifier: Apache-2.0
#pragma once
// The HBM2-PIM (Aquabolt-XL) command protocol (hbm2-pim.md, "Modes" and "Vendor kernel protocol"):
// park-in/out, SB<->AB mode switches, CRF programming and AB/AB-PIM bursts to all even or all odd banks of
// the PIM rank, as the vendor library issues them: every step is a memory transaction (RD or WR) to a
// reserved row, and the row commands around it are the controller's (open page). Shared by the
// vendor-library programs and the code generator for DCC drafts.
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
  static constexpr uint32_t kModeColumn = 0x1F;  // the column the library writes to enter or leave AB mode
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
  // Park-in and park-out: one RD of the park row per bank in single-bank mode, bank-in-group outer and bank
  // group inner as the vendor library walks them; a barrier closes the 16. The controller opens the 16 rows
  // with ordinary ACTs (tRRD), so parking costs what 16 row misses cost.
  void park() {
    for (int ba = 0; ba < cfg.banksPerBankGroup; ++ba)
      for (int bg = 0; bg < cfg.bankGroups; ++bg) b.rd(rank, bg, ba, kHbm2ParkRow, 0);
    b.barrier();
  }
  // SB -> AB: the library writes the last column of the ABMR row of banks 0 and 1 of bank groups 0 and 2, one
  // ordinary single-bank transaction each (the controller precharges the parked row, activates the ABMR row
  // and writes); the device enters AB mode on the fourth ACT. The WR is why the next command to these banks
  // waits WR-to-PRE, not only tRAS.
  void sbToAb() {
    for (int bg : {0, 2})
      for (int ba : {0, 1}) b.wr(rank, bg, ba, kHbm2AbmrRow, kModeColumn);
    b.barrier();
  }
  // AB -> SB: the same write to the SBMR row of bank 0 and bank 1 (in AB mode: all even, all odd banks). The
  // device leaves AB mode when the controller precharges that row in both, WR-to-PRE after the writes; only
  // then does it take single-bank ACTs again, so the PREs order every later ACT (kFlagModeSwitch).
  void abToSb() {
    wrAll(0, kHbm2SbmrRow, kModeColumn, 1, false);
    wrAll(1, kHbm2SbmrRow, kModeColumn, 1, false);
    b.barrier();
    b.pre(rank, 0, 0, even).flags |= kFlagModeSwitch;
    b.pre(rank, 0, 1, odd).flags |= kFlagModeSwitch;
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
