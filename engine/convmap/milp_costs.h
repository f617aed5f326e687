// SPDX-License-Identifier: Apache-2.0
// The MILP's costs from its traffic (docs/convmap.md "The MILP"): the bytes each level moves per tensor as
// linear expressions, as the evaluator's LevelCost counts them, read by the energy objective and by the
// latency rows. One ledger, so that energy and latency cannot disagree on what moves.
#pragma once
#include <array>
#include <cstddef>
#include <vector>

#include "engine/convmap/hierarchy.h"
#include "engine/convmap/one_hot.h"

namespace pim::convmap {

/// Bytes of one tensor at one level, over every instance (level 0: every PE).
struct TrafficTerms {
  LinearExpr fillRead, fillWritten;        // out of the level to its child, into it from its parent
  LinearExpr operandRead, operandWritten;  // MAC operands (an output's partial sums both ways)
};

struct MilpTraffic {
  std::vector<std::array<TrafficTerms, kTensors>> levels;
  LinearExpr computeCycles;                         // MACs / (PEs x lanes in use); latency only
  std::array<LinearExpr, kTensors> peOperandBytes;  // one PE's operand reads at level 0; latency only
};

/// Every level's access energy (pJ) for the bytes it moves; the MACs' energy is the caller's constant.
LinearExpr energyPj(const MilpTraffic& traffic, const Hierarchy& h);

/// Adds an integer latency variable (cycles) at least the compute cycles, every buffer level's busiest
/// tensor's reads and writes at its bandwidth (level 0: per PE), and every tensor's DRAM transfers plus its
/// row activations; returns it. Exact but for two lower bounds: a tensor's activations are the DRAM rows its
/// touched bytes occupy, and the PE buffers' fills are spread over every PE of the array, not the ones in
/// use.
std::size_t addLatency(milp::MilpModel& model, const MilpTraffic& traffic, const ConvLayer& layer,
                       const Hierarchy& h);

}  // namespace pim::convmap
