// SPDX-License-Identifier: Apache-2.0
#pragma once
// Per-bank and per-rank timing state: the earliest cycle at which each kind of command may issue, kept up to
// date as commands issue (precomputed constraints, no per-cycle loop).
#include <array>
#include <cstdint>
#include <vector>

namespace pim::sim {

struct BankState {
  int64_t openRow = -1;  // -1 = precharged
  int64_t actReady = 0;  // earliest ACT (tRP after PRE, tRC after ACT, tRFC after REF)
  int64_t preReady = 0;  // earliest PRE (tRAS after ACT, RD/WR to PRE)
  int64_t rdReady = 0;   // earliest RD (tRCD_RD after ACT)
  int64_t wrReady = 0;   // earliest WR (tRCD_WR after ACT)
  int64_t openedAt = 0;  // for busy-cycle accounting
  // statistics
  int64_t acts = 0, pres = 0, rds = 0, wrs = 0, pimOps = 0, busy = 0, hostBursts = 0, bufMoves = 0;
};

struct RankState {
  int64_t lastAct = -(1 << 30);        // any bank group (tRRD_S)
  std::array<int64_t, 8> lastActBg{};  // per bank group (tRRD_L)
  std::array<int64_t, 4> faw{};        // last four ACT times (ring)
  int fawPos = 0;
  int64_t colReadyS = 0;                // tCCD_S after any column command of the rank
  std::array<int64_t, 8> colReadyL{};   // tCCD_L after a column command in this bank group
  std::array<int64_t, 8> rdAfterWrL{};  // WR -> RD same bank group
  // DeviceConfig::pimOpsByAddress: the HBM-PIM arithmetic's own tCCD_S / tCCD_L spacing
  int64_t opReadyS = 0;
  std::array<int64_t, 8> opReadyL{};
  RankState() {
    lastActBg.fill(-(1 << 30));
    faw.fill(-(1 << 30));
  }
};

struct PseudoChannelState {
  int64_t busFree = 0;           // data bus free (burst occupancy)
  int64_t rdAfterWrS = 0;        // WR -> RD other bank group
  int64_t wrAfterRd = 0;         // RD -> WR any bank
  int64_t lastAct = -(1 << 30);  // tRRD/tFAW scope = pseudo-channel
  std::array<int64_t, 4> faw{};
  int fawPos = 0;
  PseudoChannelState() { faw.fill(-(1 << 30)); }
};

}  // namespace pim::sim
