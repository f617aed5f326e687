// SPDX-License-Identifier: Apache-2.0
// Instruction order for in-order cores (tcad III-C: "all arrays of a core are loaded, then driven together").
// The HT and LL schedulers emit PIMCOMP-NN's order, made for out-of-order cores: each array group's inputs
// are assembled just before its MVM, so an in-order core would wait for every load in turn. For in-order
// hardware the compiler moves, within each instruction group, a core's input preparation (LD, and the
// LMV/LLDI of stage MAIN that assemble MVM inputs) ahead of its other instructions, keeping the order within
// each part.
#pragma once
#include <vector>

#include "sim/crossbar/xbar_program.h"

namespace pim::crossbar {

/// Whether `i` prepares an MVM's input (it moves first on an in-order core).
bool preparesInput(const xbar::Instruction& i);

/// One core's list of an IG as an in-order core runs it: the preparation first, keeping the order within each
/// part, except an LD of data the program writes to global memory (Instruction::globalWrite), which moves up
/// only to the last SEND, RECV or ST before it: moved past one, it could wait for a write that itself waits
/// for this core.
void moveInputPreparationFirst(std::vector<xbar::Instruction>& list);

/// Forwards every instruction group to `next` with each core's preparation moved first.
class InOrderReorder final : public xbar::IProgramSink {
 public:
  explicit InOrderReorder(xbar::IProgramSink& next) : m_next(next) {}
  bool group(const xbar::InstructionGroup& ig) override;

 private:
  xbar::IProgramSink& m_next;
  xbar::InstructionGroup m_reordered;  // reused: groups hold up to a million instructions
};

}  // namespace pim::crossbar
