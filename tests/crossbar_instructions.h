// SPDX-License-Identifier: Apache-2.0
// Hand-built crossbar pseudo-instructions for the profiler's tests (sim/crossbar/xbar_program.h).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/crossbar/xbar_profiler.h"
#include "sim/crossbar/xbar_program.h"

namespace pim::test {

inline xbar::Instruction mvm(int ag, int node = -1, int crossbars = 1) {
  xbar::Instruction i;
  i.op = xbar::Opcode::Mvmul;
  i.ag = ag;
  i.node = node;
  i.crossbars = crossbars;
  return i;
}

inline xbar::Instruction op(xbar::Opcode code, std::int64_t elements, xbar::Stage stage = xbar::Stage::Other,
                            int node = -1) {
  xbar::Instruction i;
  i.op = code;
  i.elements = elements;
  i.stage = stage;
  i.node = node;
  return i;
}

/// A SEND or RECV with its peer core and pairing index.
inline xbar::Instruction comm(xbar::Opcode code, int peer, std::int64_t index, std::int64_t elements,
                              int node = -1) {
  xbar::Instruction i = op(code, elements, xbar::Stage::Other, node);
  i.peer = peer;
  i.comm = index;
  return i;
}

inline xbar::InstructionGroup ig(std::vector<std::vector<xbar::Instruction>> cores) {
  return xbar::InstructionGroup{std::move(cores)};
}

/// The profile of `groups` on `cores` cores, each group accepted.
inline xbar::ProfileResult profile(int cores, const xbar::TimingParams& params,
                                   const std::vector<xbar::InstructionGroup>& groups) {
  xbar::Profiler profiler(cores, params);
  for (const xbar::InstructionGroup& g : groups) EXPECT_TRUE(profiler.group(g));
  return profiler.result();
}

/// The profile of one group of per-core instruction lists.
inline xbar::ProfileResult profile(int cores, const xbar::TimingParams& params,
                                   std::vector<std::vector<xbar::Instruction>> lists) {
  return profile(cores, params,
                 std::vector<xbar::InstructionGroup>{xbar::InstructionGroup{std::move(lists)}});
}

}  // namespace pim::test
