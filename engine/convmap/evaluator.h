// SPDX-License-Identifier: Apache-2.0
// The conv mapper's model (docs/convmap.md "Traffic", "Cost"; pimopt 5.4-5.6): exact integer counts of the
// bytes every level moves, compute and memory cycles, DRAM row activations and energy for one valid mapping.
// The MILP, the exhaustive and heuristic mappers and every view report these numbers.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/convmap/mapping.h"
#include "engine/convmap/row_activation.h"

namespace pim::convmap {

struct LevelCost {
  std::array<std::int64_t, kTensors> fills{};         // tile (re)fills of the level's tile (0 when bypassed)
  std::array<std::int64_t, kTensors> tileBytes{};     // per instance at level 0
  std::array<std::int64_t, kTensors> bytesRead{};     // out of the level: children's fills, write-backs
  std::array<std::int64_t, kTensors> bytesWritten{};  // into the level: its fills, children's write-backs
  std::array<std::int64_t, kTensors> operandRead{};   // MAC operands served here (read by the PEs)
  std::array<std::int64_t, kTensors> operandWritten{};  // partial sums the PEs write back here
  std::int64_t cycles = 0;  // time of the busiest tensor's transfers (DRAM: with its row activations)
  double energyPj = 0;
};

struct ConvCost {
  std::int64_t macs = 0, computeCycles = 0;
  std::vector<LevelCost> levels;
  RowActivations rowActs;                           // DRAM, per tensor (model)
  std::array<std::int64_t, kTensors> dramCycles{};  // per tensor: transfer + activations
  std::int64_t latencyCycles = 0;
  std::string boundBy;  // "compute", a level's name, or "<DRAM name> (<tensor>)"
  double macEnergyPj = 0, energyPj = 0;
};

/// Evaluates a mapping; LimitError listing its violations() when it is not valid.
ConvCost evaluate(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m);
/// The same for a mapping whose violations() the caller found empty (the mappers' inner loop: the verdict is
/// not computed twice).
ConvCost evaluateValid(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m);

/// How often a level's tile is filled: by the reuse rule (fills(), the model), or once per distinct tile
/// (distinctTiles(): the least any loop order gives, what the exhaustive walk bounds a mapping's orders by).
enum class Fills { ReuseRule, Distinct };
/// Adds tensor t's traffic to `levels` (one per hierarchy level): its MAC operands at the lowest level that
/// keeps it, and its fills between each keeper and the next one above.
void addTensorTraffic(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m, int t, Fills mode,
                      std::vector<LevelCost>& levels);
/// Cycles tensor t's reads or writes take at a buffer level, per instance in use (the level's time is its
/// busiest tensor's).
std::int64_t tensorBufferCycles(const MemoryLevel& decl, const LevelCost& c, int t,
                                std::int64_t activeInstances);
/// Cycles tensor t's DRAM reads and writes take, without its row activations.
std::int64_t dramTransferCycles(const MemoryLevel& dram, const LevelCost& c, int t);

/// The scalar an objective minimises: latency (cycles), energy (pJ) or alpha * latency / latencyRef + (1 -
/// alpha)
/// * energy / energyRef (blended; refs normalise, e.g. the single-objective optima).
enum class Objective { Latency, Energy, Blended };
struct ObjectiveSpec {
  Objective kind = Objective::Latency;
  double alpha = 0.5, latencyRef = 1, energyRef = 1;
};
double objectiveValue(const ObjectiveSpec& o, const ConvCost& c);
/// A blended objective normalised by the trivial mapping's latency and energy (every loop in DRAM), so that
/// alpha weighs the two relative to a fixed point of the layer; others unchanged.
ObjectiveSpec normalised(ObjectiveSpec o, const ConvLayer& layer, const Hierarchy& h);
std::string_view objectiveName(Objective o);

}  // namespace pim::convmap
