// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/lower_bound.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "engine/convmap/mapspace.h"

namespace pim::convmap {

namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// Elements of t every mapping touches: the input's N*C*P*Q window origins (distinct input positions
/// whatever the kernel and stride; a padded input's skipped columns are never needed), the whole weight and
/// output.
std::int64_t touchedElements(const ConvLayer& layer, int t) {
  const auto& b = layer.bound;
  return t == Input ? b[N] * b[C] * b[P] * b[Q] : layer.elements(t);
}

/// Product of the bounds of the dimensions irrelevant to t: the most MACs that can share one operand.
std::int64_t irrelevantProduct(const ConvLayer& layer, int t) {
  std::int64_t p = 1;
  for (int d = 0; d < kDims; ++d)
    if (!relevant(d, t)) p *= layer.bound[d];
  return p;
}

/// Energy of moving `bytes` through a level once, at its per-block cost.
double levelEnergy(const MemoryLevel& l, double bytes) {
  return bytes / static_cast<double>(l.blockBytes) * l.accessEnergyPj;
}

/// The largest H x W x Internal product any mapping can unroll: each dimension in one slot at most, with a
/// divisor of its bound, each slot's product within the array (pimopt eqs. 13, 18-20). A walk over the
/// reachable (H, W, Internal) products, dimension by dimension; past 10^6 states it returns the array's size
/// (still a bound).
std::int64_t maxSpatialProduct(const ConvLayer& layer, const Hierarchy& h) {
  const std::array<std::int64_t, 3> limit = {h.pe.height, h.pe.width, h.pe.internal};
  using State = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  std::set<State> states = {{1, 1, 1}};
  for (int d = 0; d < kDims; ++d) {
    std::set<State> next = states;
    for (const auto& st : states)
      for (auto f : divisors(layer.bound[d])) {
        if (f == 1) continue;
        std::array<std::int64_t, 3> p = {std::get<0>(st), std::get<1>(st), std::get<2>(st)};
        for (int slot = 0; slot < 3; ++slot) {
          if (p[slot] * f > limit[slot]) continue;
          auto q = p;
          q[slot] *= f;
          next.insert({q[0], q[1], q[2]});
        }
      }
    if (next.size() > 1'000'000) return limit[0] * limit[1] * limit[2];
    states = std::move(next);
  }
  std::int64_t best = 1;
  for (const auto& [a, b, c] : states) best = std::max(best, a * b * c);
  return best;
}

}  // namespace

CostBound lowerBound(const ConvLayer& layer, const Hierarchy& h) {
  CostBound b;
  const auto macs = layer.macs();
  b.latencyCycles = ceilDiv(macs, maxSpatialProduct(layer, h));
  b.latencyBy = "compute";
  b.energyPj = static_cast<double>(macs) * h.pe.macEnergyPj;
  const auto& dram = h.dram();
  for (int t = 0; t < kTensors; ++t) {
    const auto bytes = touchedElements(layer, t) * layer.elementBytes[t];
    // DRAM: inputs and weights read at least once, outputs written at least once; every row holding a
    // touched byte opened at least once (each tensor sits in its own bank).
    const auto transfer = ceilDiv(bytes, t == Output ? dram.writeBandwidth : dram.readBandwidth);
    const auto dramCycles = transfer + ceilDiv(bytes, dram.rowBytes) * h.timing.activationCycles();
    if (dramCycles > b.latencyCycles) {
      b.latencyCycles = dramCycles;
      b.latencyBy = dram.name + " (" + std::string(kTensorNames[t]) + ")";
    }
    b.energyPj += levelEnergy(dram, static_cast<double>(bytes));
    // Some buffer keeps t (checkKeptBelowDram): it is written at least once with every touched byte and
    // serves every MAC's operand, shared at most by the irrelevant dimensions and the array's lanes (level
    // 0 shares only its Internal lanes); an output's partial sums are read and written.
    double cheapest = -1;
    for (int lv = 0; lv < h.dramLevel(); ++lv) {
      const auto& l = h.levels[lv];
      if (!l.stores[t]) continue;
      const auto lanes = lv == 0 ? h.pe.internal : h.pe.height * h.pe.width * h.pe.internal;
      const auto share = std::min(lanes, irrelevantProduct(layer, t));
      const double operands =
          static_cast<double>(macs / share * layer.elementBytes[t]) * (t == Output ? 2 : 1);
      const double e = levelEnergy(l, static_cast<double>(bytes) + operands);
      if (cheapest < 0 || e < cheapest) cheapest = e;
    }
    b.energyPj += std::max(0.0, cheapest);
  }
  return b;
}

double objectiveBound(const ObjectiveSpec& o, const CostBound& b) {
  ConvCost c;
  c.latencyCycles = b.latencyCycles;
  c.energyPj = b.energyPj;
  return objectiveValue(o, c);
}

}  // namespace pim::convmap
