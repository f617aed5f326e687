// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/evaluator.h"

#include <algorithm>

#include "engine/common/checked.h"
#include "engine/common/int_math.h"

namespace pim::convmap {

namespace {

/// Adds the traffic of tensor t between a level `child` that keeps it and its parent (the next keeper above):
/// fills read from the parent and written into the child; an output's partial sums also read back (every
/// fill but each tile's first) and written back (every fill). Level 0 is written per PE (its per-PE tile on
/// every PE in use) and read from the parent once for the whole array (an irrelevant spatial factor is a
/// multicast; a relevant one widens the tile).
void addFillTraffic(const ConvLayer& layer, const ConvMapping& m, int t, int child, int parent, Fills mode,
                    std::vector<LevelCost>& lv) {
  const auto b = layer.elementBytes[t];
  const bool pe = child == 0;
  const auto perInstance = tileElements(layer, tileExtents(m, child, pe), t) * b;
  const auto whole = tileElements(layer, tileExtents(m, child, false), t) * b;
  const auto copies = pe ? spatialProduct(m, SlotH) * spatialProduct(m, SlotW) : 1;
  const auto distinct = distinctTiles(m, child, t);
  const auto f = mode == Fills::ReuseRule ? fills(m, child, t) : distinct;
  const auto refills = t == Output ? f - distinct : f;
  // A strided window's tile can hold far more than its MACs touch: the products are checked (the message is
  // built only for one that overflows: this runs for every mapping a mapper weighs).
  auto mul = [&](std::int64_t a, std::int64_t b) {
    std::int64_t r = 0;
    if (!__builtin_mul_overflow(a, b, &r)) return r;
    return checkedMul(a, b, "layer " + layer.name + ": bytes moved into level " + std::to_string(child));
  };
  lv[child].fills[t] = f;
  lv[child].tileBytes[t] = perInstance;
  lv[parent].bytesRead[t] += mul(refills, whole);
  lv[child].bytesWritten[t] += mul(mul(refills, perInstance), copies);
  if (t == Output) {
    lv[child].bytesRead[t] += mul(mul(f, perInstance), copies);
    lv[parent].bytesWritten[t] += mul(f, whole);
  }
}

/// MAC operand traffic at the lowest level keeping t: every MAC reads one element of each operand and reads
/// and writes one partial sum, less what the spatial fan-out shares (an irrelevant spatial factor multicasts
/// an input or weight and reduces an output in the array). A PE's own buffer shares only its Internal lanes.
void addOperandTraffic(const ConvLayer& layer, const ConvMapping& m, int t, int level, LevelCost& c) {
  std::int64_t shared = 1;
  for (int s : {SlotH, SlotW, SlotInternal}) {
    if (level == 0 && s != SlotInternal) continue;
    for (int d = 0; d < kDims; ++d)
      if (!relevant(d, t)) shared *= m.levels.front().factor[s][d];
  }
  const auto bytes = layer.macs() / shared * layer.elementBytes[t];
  c.operandRead[t] = bytes;
  if (t == Output) c.operandWritten[t] = bytes;
}

/// A buffer level's cycles: its busiest tensor's reads or writes at the level's bandwidth, per instance in
/// use.
std::int64_t bufferCycles(const MemoryLevel& decl, const LevelCost& c, std::int64_t activeInstances) {
  std::int64_t cycles = 0;
  for (int t = 0; t < kTensors; ++t)
    cycles = std::max(cycles, tensorBufferCycles(decl, c, t, activeInstances));
  return cycles;
}

}  // namespace

void addTensorTraffic(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m, int t, Fills mode,
                      std::vector<LevelCost>& levels) {
  int child = -1;
  for (int lv = 0; lv <= h.dramLevel(); ++lv) {
    if (!m.levels[lv].keep[t]) continue;
    if (child < 0)
      addOperandTraffic(layer, m, t, lv, levels[lv]);
    else
      addFillTraffic(layer, m, t, child, lv, mode, levels);
    child = lv;
  }
}

std::int64_t tensorBufferCycles(const MemoryLevel& decl, const LevelCost& c, int t,
                                std::int64_t activeInstances) {
  const auto read = c.bytesRead[t] + c.operandRead[t], written = c.bytesWritten[t] + c.operandWritten[t];
  return std::max(ceilDiv(read / activeInstances, decl.readBandwidth),
                  ceilDiv(written / activeInstances, decl.writeBandwidth));
}

std::int64_t dramTransferCycles(const MemoryLevel& dram, const LevelCost& c, int t) {
  return ceilDiv(c.bytesRead[t], dram.readBandwidth) + ceilDiv(c.bytesWritten[t], dram.writeBandwidth);
}

ConvCost evaluate(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m) {
  if (auto v = violations(layer, h, m); !v.empty()) throw LimitError(std::move(v));
  return evaluateValid(layer, h, m);
}

ConvCost evaluateValid(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m) {
  ConvCost c;
  c.macs = layer.macs();
  const auto pes = spatialProduct(m, SlotH) * spatialProduct(m, SlotW);
  c.computeCycles = c.macs / (pes * spatialProduct(m, SlotInternal));
  c.levels.resize(h.levels.size());
  for (int t = 0; t < kTensors; ++t) addTensorTraffic(layer, h, m, t, Fills::ReuseRule, c.levels);
  c.rowActs = rowActivations(layer, h, m);
  const int dram = h.dramLevel();
  c.latencyCycles = c.computeCycles;
  c.boundBy = "compute";
  for (int lv = 0; lv <= dram; ++lv) {
    auto& cost = c.levels[lv];
    const auto& decl = h.levels[lv];
    if (lv < dram) {
      cost.cycles = bufferCycles(decl, cost, lv == 0 ? pes : 1);
    } else {
      for (int t = 0; t < kTensors; ++t) {
        c.dramCycles[t] =
            dramTransferCycles(decl, cost, t) + c.rowActs.count[t] * h.timing.activationCycles();
        cost.cycles = std::max(cost.cycles, c.dramCycles[t]);
      }
    }
    for (int t = 0; t < kTensors; ++t)
      cost.energyPj += decl.energyPj(static_cast<double>(cost.bytesRead[t] + cost.bytesWritten[t] +
                                                         cost.operandRead[t] + cost.operandWritten[t]));
    if (cost.cycles > c.latencyCycles) {
      c.latencyCycles = cost.cycles;
      c.boundBy = decl.name;
      if (lv == dram) {
        const auto worst = std::max_element(c.dramCycles.begin(), c.dramCycles.end()) - c.dramCycles.begin();
        c.boundBy += " (" + std::string(kTensorNames[worst]) + ")";
      }
    }
    c.energyPj += cost.energyPj;
  }
  c.macEnergyPj = static_cast<double>(c.macs) * h.pe.macEnergyPj;
  c.energyPj += c.macEnergyPj;
  return c;
}

double objectiveValue(const ObjectiveSpec& o, const ConvCost& c) {
  switch (o.kind) {
    case Objective::Latency:
      return static_cast<double>(c.latencyCycles);
    case Objective::Energy:
      return c.energyPj;
    default:
      return o.alpha * static_cast<double>(c.latencyCycles) / o.latencyRef +
             (1 - o.alpha) * c.energyPj / o.energyRef;
  }
}

ObjectiveSpec normalised(ObjectiveSpec o, const ConvLayer& layer, const Hierarchy& h) {
  if (o.kind != Objective::Blended) return o;
  const auto c = evaluate(layer, h, trivialMapping(layer, h));
  o.latencyRef = std::max(1.0, static_cast<double>(c.latencyCycles));
  o.energyRef = std::max(1e-9, c.energyPj);
  return o;
}

std::string_view objectiveName(Objective o) {
  return o == Objective::Latency ? "latency" : o == Objective::Energy ? "energy" : "blended";
}

}  // namespace pim::convmap
