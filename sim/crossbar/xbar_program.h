// SPDX-License-Identifier: Apache-2.0
// A crossbar accelerator's compiled program as the profiler reads it (issue 19; ../shared/specs/crossbar.md,
// "Pseudo-instructions" and "Profiler timing rules"): per instruction group (IG), per core, the pseudo-
// instructions in issue order. The compiler (engine/crossbar) emits IGs one at a time to an IProgramSink, so
// a network's millions of instructions never sit in memory at once; the profiler (xbar_profiler.h) is such a
// sink.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace pim::xbar {

/// PIMCOMP-NN's opcodes (common.h, isa): MVMUL drives one array group; VVADD/VVMAX/VRELU/VTANH/VSIGMOID are
/// the vector unit's; LMV copies and LLDI fills local memory; LD/ST move between global and local memory;
/// SEND/RECV pair core-to-core transfers by a communication index.
enum class Opcode : std::uint8_t {
  Mvmul,
  Vvadd,
  Vvmax,
  Vrelu,
  Vtanh,
  Vsigmoid,
  Lmv,
  Lldi,
  Ld,
  St,
  Send,
  Recv
};
std::string_view opcodeName(Opcode op);  // "MVMUL", "VVADD", ...

/// The stage an instruction belongs to in its IG, which decides which timeline its time advances
/// (crossbar.md, "How instructions advance time"): LMV/LLDI tagged Main prepare MVM inputs; VVADD costs time
/// in MainA/MainB/MainC and Post (MainC also moves the synchronisation time). Everything else is Other.
enum class Stage : std::uint8_t { Other, Main, MainA, MainB, MainC, Post };
std::string_view stageName(Stage s);  // "MAIN", "MAIN-A", ..., "" for Other

struct Instruction {
  Opcode op = Opcode::Mvmul;
  Stage stage = Stage::Other;
  std::int32_t node = -1;      // the network node it works for (per-layer attribution)
  std::int32_t ag = -1;        // MVMUL: array group, index over the whole network
  std::int32_t crossbars = 0;  // MVMUL: logical crossbars the AG drives (energy, utilisation)
  std::int64_t elements = 0;   // vector, copy, fill, LD/ST, SEND/RECV: length in elements
  std::int32_t peer = -1;      // SEND: destination core; RECV: source core
  std::int64_t comm = -1;      // SEND/RECV: the pairing index both halves carry
  // LD/ST through global memory that another instruction depends on: an ST's id for the write it makes, an
  // LD's id of the write whose data it reads (it starts only once that ST has finished). -1: untracked (data
  // there from the start, such as the network input and the biases, or a result nobody reads back).
  std::int64_t globalWrite = -1;
};

/// One IG: cores[c] is core c's instruction list, in issue order. Every core of the accelerator has an entry
/// (empty when idle).
struct InstructionGroup {
  std::vector<std::vector<Instruction>> cores;
};

/// Where a compiler hands its IGs, in order. Returns false to stop early (a cancelled compile).
class IProgramSink {
 public:
  virtual ~IProgramSink() = default;
  virtual bool group(const InstructionGroup& ig) = 0;
};

}  // namespace pim::xbar
