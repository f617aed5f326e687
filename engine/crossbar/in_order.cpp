// SPDX-License-Identifier: Apache-2.0
#include "engine/crossbar/in_order.h"

#include <algorithm>

namespace pim::crossbar {

namespace {

using xbar::Instruction;
using xbar::Opcode;

bool readsAWrite(const Instruction& i) { return i.op == Opcode::Ld && i.globalWrite >= 0; }

/// Where an LD of written data stops moving up: an instruction that orders cores (SEND, RECV) or writes
/// global memory (ST). Past one it could wait for a write that waits for the core itself.
bool ordersCores(const Instruction& i) {
  return i.op == Opcode::Send || i.op == Opcode::Recv || i.op == Opcode::St;
}

}  // namespace

bool preparesInput(const Instruction& i) {
  return i.op == Opcode::Ld ||
         ((i.op == Opcode::Lmv || i.op == Opcode::Lldi) && i.stage == xbar::Stage::Main);
}

void moveInputPreparationFirst(std::vector<Instruction>& list) {
  const auto rest = std::stable_partition(
      list.begin(), list.end(), [](const Instruction& i) { return preparesInput(i) && !readsAWrite(i); });
  for (auto segment = rest; segment != list.end();) {
    const auto end = std::find_if(segment, list.end(), ordersCores);
    std::stable_partition(segment, end, readsAWrite);
    segment = end == list.end() ? end : end + 1;
  }
}

bool InOrderReorder::group(const xbar::InstructionGroup& ig) {
  m_reordered.cores.resize(ig.cores.size());
  for (std::size_t c = 0; c < ig.cores.size(); ++c) {
    m_reordered.cores[c] = ig.cores[c];
    moveInputPreparationFirst(m_reordered.cores[c]);
  }
  return m_next.group(m_reordered);
}

}  // namespace pim::crossbar
