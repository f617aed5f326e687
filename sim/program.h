// SPDX-License-Identifier: Apache-2.0
#pragma once
// The command program the code generator hands the simulator. Compact by construction: a channel program is a
// list of blocks, each a command list repeated `repeat` times (rows/columns may advance per iteration), and a
// Program maps every channel to one of a few distinct channel programs ("the same program on every channel").
#include <cstdint>
#include <string>
#include <vector>

namespace pim::sim {

enum class Phase : uint8_t { InputRearrangement = 0, Compute = 1, OutputRearrangement = 2 };
constexpr int kNumPhases = 3;
const char* phaseName(Phase p);

enum class Op : uint8_t {
  ACT,      // activate `row` in the target bank(s)
  PRE,      // precharge the target bank(s)
  PREA,     // precharge every bank of the target rank (or the whole channel with allBanks)
  RD,       // column read of (row, col); the controller opens `row` first if needed (open-page)
  WR,       // column write of (row, col)
  ACTAB,    // AttAcc: open `row` in all banks of the channel
  MACAB,    // AttAcc: all-bank MAC read (needs the row open everywhere)
  WRGB,     // AttAcc: write GEMV buffers (no open row needed, one column slot)
  MVSB,     // AttAcc: move partial outputs to the softmax buffer
  MVGB,     // AttAcc: move softmax buffer to the GEMV buffers
  SFM,      // AttAcc: softmax (one column slot, no compute latency in the reference)
  PIM_LD,   // HBM-PIM (HBM3) broadcast: bank column -> GRF
  PIM_MAC,  // HBM-PIM broadcast MAC
  PIM_ADD,
  PIM_MUL,
  PIM_WB,     // HBM-PIM broadcast GRF -> bank (write-like)
  PIM_RESET,  // HBM-PIM ACC_RESET: no open row needed
  BARRIER,    // per channel: orders column commands (see BarrierMode)
  HOST_RD,    // host read burst (rearrangement)
  HOST_WR,    // host write burst (rearrangement)
  PIM_RELU    // the DCC artifact's HBM-PIM RELU: bank column through the ReLU into the GRF (timed as PIM_LD
              // unless DeviceConfig::pimOpsByAddress)
};
const char* opName(Op op);

enum class OpClass : uint8_t { RowAct, RowPre, ColRead, ColWrite, Buffer, Barrier };
OpClass opClass(Op op);

// Flags on a command.
enum : uint8_t {
  kFlagPim = 1,       // an HBM2-PIM AB-PIM RD/WR that also executes the CRF instruction in every unit
  kFlagAllBanks = 2,  // acts on every bank of the channel (ACTAB/PREA/MACAB and broadcasts set it implicitly)
  // A PRE that switches the device's mode: no later ACT issues before it. HBM2-PIM's AB-to-SB switch is the
  // precharge of the SBMR row; until it, the device still takes an ACT as an all-bank one, so the controller
  // holds back single-bank ACTs (the reference's ACT check on the rank's mode).
  kFlagModeSwitch = 4
};

// A field added here must also be fed to ChannelProgram::hash() (== compares it anyway, so a missed field
// only costs dedupe hits, never a wrong result).
struct Command {
  Op op = Op::RD;
  Phase phase = Phase::Compute;
  uint8_t flags = 0;
  uint8_t pch = 0, rank = 0, bg = 0, bank = 0;  // target bank (bank within its group)
  uint32_t row = 0;
  uint32_t col = 0;
  // Explicit bank set (bit = flat bank id in the channel, see bankId()); 0 = the single target bank.
  uint64_t bankMask = 0;
  uint32_t repeat = 1;  // issue this many times at consecutive columns (col, col+1, ...)
  int32_t rowStep = 0;  // added to row per iteration of the enclosing block
  int32_t colStep = 0;  // added to col per iteration of the enclosing block

  bool operator==(const Command&) const = default;
};

struct Block {
  std::vector<Command> cmds;
  int64_t repeat = 1;

  bool operator==(const Block&) const = default;
};

struct ChannelProgram {
  std::vector<Block> blocks;
  /// Content hash over every field of every block and command: identical programs simulate once. Equal
  /// hashes do not prove equal programs (64 bits), so users compare with == before sharing a result.
  uint64_t hash() const;
  int64_t commandCount() const;  // expanded count (repeats included)
  int64_t requestCount() const;  // the same without barriers (ChannelScheduler::feedRequests numbers these)

  bool operator==(const ChannelProgram&) const = default;
};

struct Program {
  std::vector<ChannelProgram> programs;  // distinct channel programs
  std::vector<int> channelMap;           // channel -> index into programs
  int numChannels() const { return static_cast<int>(channelMap.size()); }
  // Same program on channels [0, n).
  static Program replicated(ChannelProgram p, int channels);
};

// Convenience builder: appends to the current block; loop() opens a repeated block.
class ProgramBuilder {
 public:
  explicit ProgramBuilder(Phase phase = Phase::Compute) : m_phase(phase) {}
  void setPhase(Phase p) { m_phase = p; }
  Command& add(Command c);
  Command& act(int rank, int bg, int bank, uint32_t row, uint64_t mask = 0);
  Command& pre(int rank, int bg, int bank, uint64_t mask = 0);
  Command& rd(int rank, int bg, int bank, uint32_t row, uint32_t col, uint32_t repeat = 1, uint64_t mask = 0);
  Command& wr(int rank, int bg, int bank, uint32_t row, uint32_t col, uint32_t repeat = 1, uint64_t mask = 0);
  Command& simple(Op op, uint32_t repeat = 1);  // all-bank or buffer commands on the whole channel
  void barrier();
  void beginLoop(int64_t repeat);  // commands until endLoop() form one repeated block (no nesting)
  void endLoop();
  /// The block commands are currently appended to (inside beginLoop/endLoop: the repeated block).
  Block& lastBlock() { return cur(); }
  ChannelProgram take();

 private:
  Block& cur();
  Phase m_phase;
  ChannelProgram m_prog;
  bool m_inLoop = false;
};

}  // namespace pim::sim
