// SPDX-License-Identifier: Apache-2.0
#include "engine/crossbar/in_order.h"

#include <algorithm>

namespace pim::crossbar {

bool preparesInput(const xbar::Instruction& i) {
  using xbar::Opcode;
  return i.op == Opcode::Ld ||
         ((i.op == Opcode::Lmv || i.op == Opcode::Lldi) && i.stage == xbar::Stage::Main);
}

bool InOrderReorder::group(const xbar::InstructionGroup& ig) {
  m_reordered.cores.resize(ig.cores.size());
  for (std::size_t c = 0; c < ig.cores.size(); ++c) {
    auto& out = m_reordered.cores[c];
    out = ig.cores[c];
    std::stable_partition(out.begin(), out.end(), preparesInput);
  }
  return m_next.group(m_reordered);
}

}  // namespace pim::crossbar
