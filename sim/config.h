// SPDX-License-Identifier: Apache-2.0
#pragma once
// Device description for the bank-level timing engine. Plain data: the engine fills it from a backend file
// (engine/target/dram_pim/device_config.h; the files in datasets/backends/ are the only description of a
// device). All timings are in cycles of tCK.
#include <cstdint>
#include <string>
#include <vector>

namespace pim::sim {

// Energy of one command (or one byte of host I/O) with where the number comes from.
struct EnergyEntry {
  double pJ = 0.0;
  std::string source;
  bool operator==(const EnergyEntry&) const = default;
};

struct CommandEnergies {
  EnergyEntry act;         // one ACT (per bank activated)
  EnergyEntry pre;         // one PRE (per bank precharged)
  EnergyEntry rd;          // one 32-B column read (per bank)
  EnergyEntry wr;          // one 32-B column write (per bank)
  EnergyEntry pimOp;       // one PIM ALU operation (per bank/unit executing it)
  EnergyEntry ref;         // one all-bank refresh (per rank)
  EnergyEntry hostIoByte;  // one byte moved over the host interface
  EnergyEntry bufMove;     // one buffer move (WRGB/MVSB/MVGB/SFM), per channel
  bool operator==(const CommandEnergies&) const = default;
};

enum class Scope : uint8_t { Rank, PseudoChannel };
enum class BarrierMode : uint8_t {
  Order,  // column commands stay in program order (they always do); row commands may run ahead
  // The DCC artifact's controller: a barrier is taken once every earlier request has left the controller
  // (its last command issued), the cycle after, and issues alone in that cycle; the next commands follow.
  // A phase change is no fence here (the artifact has none): phases only label the breakdown.
  Drain,
  // DRAMSim2's command queue (the HBM2-PIM reference): the controller activates rows only for the barrier
  // group at the head of its queue, and for the next group once the head group is down to its last
  // (barrier-tagged) command, which it activates only when that command heads the queue.
  Window
};

struct DeviceConfig {
  std::string name = "custom";
  double tCK_ns = 1.0;

  // Organisation of one simulated channel ("unit": an HBM2 pseudo-channel, an HBM3 channel of 2 pCH).
  int pseudoChannels = 1;  // pseudo-channels per simulated channel (each has its own data bus)
  int ranks = 1;           // ranks per pseudo-channel
  int bankGroups = 4;
  int banksPerBankGroup = 4;
  int rows = 16384;
  int columns = 32;
  int bytesPerColumn = 32;

  // DRAM timing (cycles).
  int CL = 20, CWL = 8, BL = 4;  // BL in beats; the data bus is held burstCycles()
  int burstCyclesOverride = 0;   // >0: data-bus occupancy per burst (HBM3 nBL); else BL/2
  int tRCDRD = 14, tRCDWR = 10, tRP = 14, tRAS = 33, tRC = 47;
  int tCCDS = 2, tCCDL = 4, tRRDS = 4, tRRDL = 6, tFAW = 0;
  int tWR = 16, tWTRS = 4, tWTRL = 9, tRTPS = 4, tRTPL = 5, tRTRS = 1;
  int tREFI = 3900, tRFC = 350;
  bool refresh = true;
  Scope refreshScope = Scope::Rank;  // REF per rank (HBM2) or per pseudo-channel (HBM3 reference)
  bool staggerRefresh = true;        // DRAMSim2-style: rank r first refreshes at tREFI/ranks*(r+1)
  // How a due refresh closes its unit. false: at the deadline every open bank is precharged at once and REF
  // follows tRP later. true (DRAMSim2's controller, the HBM2-PIM reference): each open bank is precharged as
  // soon as its own timing allows while every other command keeps issuing (ACTs into the unit too), and REF
  // goes out the first cycle no bank of the unit is open (it does not wait tRP); only then do ACTs wait tRFC.
  // A refresh falling due while the kernel keeps banks open to its end costs next to nothing.
  bool lazyRefresh = false;
  Scope rrdFawScope = Scope::Rank;
  bool separateRowColumnBus = false;  // HBM3: 1 row + 1 column command per cycle; HBM2 reference: 1 in total
  BarrierMode barrierMode = BarrierMode::Order;
  // A masked command (HBM2-PIM AB mode: bank 0 or 1 addressed, all even or odd banks acting) is timed by the
  // bank it addresses, the lowest of its mask: the reference controller keeps the state of that bank only and
  // the others follow it in lockstep. Matters where they were left apart, e.g. after SB->AB, whose writes to
  // banks 8 and 9 come after those to banks 0 and 1. false: by the latest bank of the mask.
  bool maskTimedByAddressedBank = false;
  // Which rank of a pseudo-channel the PIM units live in (HBM2-PIM: rank 0; rank 1 idles but refreshes).
  int pimRank = 0;

  // Derived constraints; finalize() computes any that are <0 from the base timing above.
  int rdToPre = -1;  // AL + BL/2 + max(tRTP_L, tCCD_L) - tCCD_L
  int wrToPre = -1;  // CWL + BL/2 + tWR
  int rdToWr = -1;   // CL + BL/2 + tRTRS - CWL (any bank of the pseudo-channel)
  int wrToRdS = -1;  // CWL + BL/2 + tWTR_S (other bank group)
  int wrToRdL = -1;  // CWL + BL/2 + tWTR_L (same bank group)

  // All-bank PIM command spacings (AttAcc/HBM-PIM, tracked per channel). <0: use the DRAM equivalent.
  int pimActToMac = -1;  // ACTAB -> MACAB (tRCD)
  int pimMacToMac = -1;  // MACAB -> MACAB (power constraint: 6; without: tCCD_L)
  int pimMacToPre = -1;  // MACAB -> PREA
  int pimPreToAct = -1;  // PREA -> ACTAB (tRP)
  int pimActToAct = -1;  // ACTAB -> ACTAB (tRC)
  int pimActToPre = -1;  // ACTAB -> PREA (tRAS)
  // AttAcc: the all-bank MAC feeds the banks' GEMV units, a data path apart from the one buffer moves
  // (WRGB/MVSB/MVGB/SFM) use. The two kinds then share no column slots (data bus, tCCD_S/L: its reference's
  // timing table has no rule between them) and, within a barrier group, neither waits behind the other (its
  // controller picks any ready command of the group at the head of its queue); a barrier orders both.
  bool macOwnDataPath = false;
  // The DCC artifact's HBM3-PIM timing table (HBM3-PIM.cpp) for the HBM-PIM arithmetic. PIM_LD, PIM_MAC,
  // PIM_ADD and PIM_MUL are spaced among themselves only, by the bank their address names (burstCycles() per
  // channel, tCCDS per rank, tCCDL per bank group); they may issue in the cycle of the ACTAB that opens their
  // row, take no column slot of reads, writes or buffer moves and hold no precharge back. PIM_WB, PIM_RELU
  // and PIM_RESET have no timing constraint at all. false: all-bank commands pimMacToMac apart that take
  // every bank's column slot after pimActToMac (PIMScope's HBM-PIM).
  bool pimOpsByAddress = false;
  // The DCC artifact's Ramulator 2 checks a command's timing only down to the level it addresses, and its
  // table constrains the channel-wide row commands (an all-bank command's PREA and ACTAB) among themselves:
  // a PREA waits pimActToPre after an ACTAB, pimMacToPre after a MACAB and 2 cycles after any ACT (its
  // second command cycle); an ACTAB waits pimPreToAct after a PREA, pimActToAct after an ACTAB and tRFC after
  // a refresh. The banks' own timing from host reads, writes, ACTs and PREs holds neither.
  bool allBankRowsByChannel = false;
  // The DCC artifact's controller picks one command a cycle from its buffers (Ramulator 2's FRFCFS): a
  // request that must close a row gets its PRE, other requests' commands go while tRP runs, and its ACT goes
  // once ready, so ACTs of ranks free of tFAW pass one held by it. PIMScope serves a request whole, ranked by
  // when its first command could issue; with this set, one that must close a row first is ranked by when its
  // ACT could. false: by its PRE (PIMScope's controller).
  bool rankByActivate = false;
  // The DCC artifact's controller issues at most one row command (ACT, PRE, PREA, ACTAB, REF) per cycle on
  // HBM3's row bus, as the bus does. false: with separateRowColumnBus only ACTs are serialised, and several
  // PREs (of banks whose timing allows) may share a cycle (PIMScope's HBM3 model).
  bool oneRowCommandPerCycle = false;

  CommandEnergies energy;

  int burstCycles() const { return burstCyclesOverride > 0 ? burstCyclesOverride : BL / 2; }
  int banksPerRank() const { return bankGroups * banksPerBankGroup; }
  int banksPerPseudoChannel() const { return ranks * banksPerRank(); }
  int banksPerChannel() const { return pseudoChannels * banksPerPseudoChannel(); }
  int rowBytes() const { return columns * bytesPerColumn; }
  double cyclesToNs(int64_t c) const { return static_cast<double>(c) * tCK_ns; }

  // Fills the derived constraints (idempotent). Call after editing base timings.
  void finalize();
  // Every member (C++20 defaulted comparison: a new field is compared without anyone remembering to).
  bool operator==(const DeviceConfig&) const = default;
};

}  // namespace pim::sim
