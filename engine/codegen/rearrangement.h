// SPDX-License-Identifier: Apache-2.0
// Data rearrangement between the host layout (consecutive 32-B bursts interleaved over every channel, then
// over the banks of a channel, burst by burst: host_layout.h) and the PIM layout (each core's tile contiguous
// in its own banks), DCC section 4.3 I.
//
// Staged (DCC's optimisation): with B = on-chip bytes / N channels, the host reads N blocks of B into on-chip
// memory and writes them to the N channels in parallel; per channel a round is B bytes of host reads followed
// by B bytes of PIM writes, all channels at once. These rounds are part of the simulated program.
//
// Naive: the host copies one PIM channel's data at a time: a read spread over all channels, then the writes
// into that channel's banks (interleaved over them), one PIM channel at a time. The copies are serial, so
// their time is the sum of simulated segments (each segment a small single-channel program, memoised by size)
// rather than one parallel program.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/codegen/lowering.h"
#include "sim/result.h"

namespace pim {

/// The bursts of each tensor of `role` (in tensor order) that the host layout puts in `channel`.
std::vector<std::int64_t> hostShare(const LoweringInput& in, TensorRole role, int channel);
/// Appends a group's share of the staged input rearrangement (phase InputRearrangement).
void emitStagedInput(const LoweringInput& in, const GroupView& g, sim::ProgramBuilder& out);
/// Appends a group's share of the staged output rearrangement (phase OutputRearrangement).
void emitStagedOutput(const LoweringInput& in, const GroupView& g, sim::ProgramBuilder& out);

/// Banks of a group that hold data of a live core, as flat bank ids of its simulated channel.
std::vector<int> liveBanks(const LoweringInput& in, int group);
/// What the host reads back of each output tensor a call moves, from which banks: every live bank, or with a
/// group accumulator one bank per distinct output tile (the unit merges the partial sums of the others); of
/// those, only the bank that holds a family's lane partial sums (ICodeGenerator::lanePartials) for a tensor
/// a statement leaves them in.
std::vector<OutputRead> outputReads(const LoweringInput& in, int group, std::span<const StatementWork> work);

struct SerialRearrangement {
  std::int64_t inputCycles = 0, outputCycles = 0;
  std::int64_t segments = 0;               // serial copies composed
  std::vector<sim::BankStats> bankDeltas;  // host bursts per bank (channel-major, like sim::Result)
  double energyPj = 0;
};
/// Time of the naive, serial copies of a draft's inputs and outputs.
SerialRearrangement naiveRearrangement(const LoweringInput& in);

}  // namespace pim
