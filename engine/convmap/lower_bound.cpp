// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/lower_bound.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "engine/common/int_math.h"
#include "engine/convmap/fill_bound.h"
#include "engine/convmap/mapspace.h"

namespace pim::convmap {

namespace {

/// Product of the bounds of the dimensions irrelevant to t: the most MACs that can share one operand.
std::int64_t irrelevantProduct(const ConvLayer& layer, int t) {
  std::int64_t p = 1;
  for (int d = 0; d < kDims; ++d)
    if (!relevant(d, t)) p *= layer.bound[d];
  return p;
}

using Spatial = SpatialFactors;

}  // namespace

bool forEachSpatial(const ConvLayer& layer, const Hierarchy& h, std::int64_t limit,
                    const std::function<void(const Spatial&)>& fn) {
  const std::array<std::int64_t, 3> cap = {h.pe.height, h.pe.width, h.pe.internal};
  Spatial s;
  for (auto& slot : s) slot.fill(1);
  std::array<std::int64_t, 3> product = {1, 1, 1};
  std::int64_t seen = 0;
  std::function<bool(int)> walk = [&](int d) {
    if (d == kDims) {
      fn(s);
      return ++seen <= limit;
    }
    if (!walk(d + 1)) return false;
    for (auto f : divisors(layer.bound[d])) {
      if (f == 1) continue;
      for (int slot = 0; slot < 3; ++slot) {
        if (product[slot] * f > cap[slot]) continue;
        s[slot][d] = f;
        product[slot] *= f;
        const bool more = walk(d + 1);
        product[slot] /= f;
        s[slot][d] = 1;
        if (!more) return false;
      }
    }
    return true;
  };
  return walk(0);
}

std::int64_t leastRowActivations(const ConvLayer& layer, const Hierarchy& h, int t) {
  return ceilDiv(layer.touchedElements(t) * layer.elementBytes[t], h.dram().rowBytes);
}

namespace {

/// Levels that may be the lowest to keep t: those that may store it with no level below that must keep it.
std::vector<int> lowestKeepers(const Hierarchy& h, int t) {
  std::vector<int> out;
  for (int lv = 0; lv < h.dramLevel(); ++lv) {
    if (h.levels[lv].stores[t]) out.push_back(lv);
    if (h.levels[lv].stores[t] && h.levels[lv].bypassFixed) break;  // it must keep t: nothing above is lowest
  }
  return out;
}

/// Bytes of t's smallest tile at level lv under spatial factors `s` (every temporal loop in DRAM): a PE's
/// Internal lanes at level 0, the whole array's above (mapping.h tileExtents).
std::int64_t smallestTileBytes(const ConvLayer& layer, const Spatial& s, int lv, int t) {
  DimFactors e;
  for (int d = 0; d < kDims; ++d) e[d] = s[2][d] * (lv == 0 ? 1 : s[0][d] * s[1][d]);
  return tileElements(layer, e, t) * layer.elementBytes[t];
}

/// Whether t's smallest tile fits level lv beside the smallest tiles of the tensors the level must keep.
bool fitsBeside(const ConvLayer& layer, const Hierarchy& h, const Spatial& s, int lv, int t) {
  const auto& l = h.levels[lv];
  std::int64_t bytes = 0;
  for (int u = 0; u < kTensors; ++u)
    if (u == t || (l.bypassFixed && l.stores[u])) bytes += smallestTileBytes(layer, s, lv, u);
  return bytes <= l.capacityBytes(h.elementBytes);
}

struct KeeperCost {
  int level;
  std::int64_t cycles;  // the tensor's operand and fill cycles there
  double energyPj;      // of the tensor's operands there (and at level 0, its touched bytes once)
};

/// Per choice of lowest keeper per tensor: the latency its keepers' cycles and `compute` set at least, and
/// the tensors' energies there plus the fills of each level by the tensors it is the lowest keeper of
/// (FillBound: they share its capacity, at extents that are multiples of the array's, `array`; two such
/// levels are counted together, their fills nested). Choices whose tiles fit no extents are left out.
std::vector<CostPair> keeperChoices(const std::array<std::vector<KeeperCost>, kTensors>& keepers,
                                    const FillBound& fill, const DimFactors& array, std::int64_t compute) {
  std::vector<CostPair> out;
  for (const auto& a : keepers[Input])
    for (const auto& b : keepers[Weight])
      for (const auto& c : keepers[Output]) {
        const std::array<int, kTensors> lv = {a.level, b.level, c.level};
        std::vector<std::pair<int, unsigned>> sets;  // each buffer level above the PEs with its tensors
        for (int t = 0; t < kTensors; ++t) {
          if (lv[t] == 0) continue;
          const auto at =
              std::find_if(sets.begin(), sets.end(), [&](const auto& s) { return s.first == lv[t]; });
          if (at == sets.end())
            sets.push_back({lv[t], 1u << t});
          else
            at->second |= 1u << t;
        }
        double e = a.energyPj + b.energyPj + c.energyPj;
        if (sets.size() == 2)
          e += fill.energyPj(sets[0].first, sets[0].second, sets[1].first, sets[1].second, array);
        else
          for (const auto& [level, set] : sets) e += fill.energyPj(level, set, array);
        if (e != std::numeric_limits<double>::infinity())
          out.push_back({std::max({compute, a.cycles, b.cycles, c.cycles}), e});
      }
  return out;
}

/// A bound on the levels below DRAM (what withLayerTerms() completes).
struct SpatialBound {
  std::int64_t latency = 0;
  std::string latencyBy;
  double energyPj = 0;
  std::vector<CostPair> perKeepers;  // CostBound::perKeepers below DRAM
};

/// What every mapping with spatial factors `s` costs at least below DRAM: compute on its PEs and lanes, and
/// per tensor, at the fastest level that may be its lowest keeper and holds its smallest tile, every MAC's
/// operand (shared by exactly the spatial factors irrelevant to it; level 0 by its Internal lanes, per PE)
/// plus each touched element written into it once (an output read out once instead); for energy, the least
/// over every choice of lowest keepers of those operands plus the levels' fills (FillBound); and per choice
/// the two together. nullopt when no valid mapping has these factors (a tensor fits no level that may be its
/// lowest keeper, a level overflows with what it must keep, or no choice of keepers fits).
std::optional<SpatialBound> boundOf(const ConvLayer& layer, const Hierarchy& h, const FillBound& fill,
                                    const Spatial& s) {
  for (int lv = 0; lv < h.dramLevel(); ++lv)  // what a level must keep fits it (t = -1: only those)
    if (!fitsBeside(layer, h, s, lv, -1)) return std::nullopt;
  SpatialBound b;
  std::int64_t pes = 1, lanes = 1;
  for (int d = 0; d < kDims; ++d) {
    pes *= s[0][d] * s[1][d];
    lanes *= s[2][d];
  }
  const auto macs = layer.macs();
  const auto compute = macs / (pes * lanes);
  b.latency = compute;
  b.latencyBy = "compute";
  std::array<std::vector<KeeperCost>, kTensors>
      keepers;  // where each tensor may be lowest kept, at what cost
  for (int t = 0; t < kTensors; ++t) {
    std::int64_t sharedPe = 1, sharedArray = 1;
    for (int d = 0; d < kDims; ++d)
      if (!relevant(d, t)) {
        sharedPe *= s[2][d];
        sharedArray *= s[0][d] * s[1][d] * s[2][d];
      }
    const auto once = layer.touchedElements(t) * layer.elementBytes[t];
    std::int64_t fastest = -1;
    std::string fastestAt;
    for (int lv : lowestKeepers(h, t)) {
      if (!fitsBeside(layer, h, s, lv, t)) continue;  // no mapping with these factors keeps t there
      const auto& l = h.levels[lv];
      const auto operands = macs / (lv == 0 ? sharedPe : sharedArray) * layer.elementBytes[t];
      // Reads out of the level: operands (an output's partial sums also leave once); writes into it: each
      // touched element once (an output's partial sums are written back by every MAC instead).
      const auto read = operands + (t == Output ? once : 0);
      const auto written = t == Output ? operands : once;
      const auto instances = lv == 0 ? pes : 1;  // the evaluator's per-instance division, floored as it is
      const auto cycles = std::max(ceilDiv(read / instances, l.readBandwidth),
                                   ceilDiv(written / instances, l.writeBandwidth));
      if (fastest < 0 || cycles < fastest) {
        fastest = cycles;
        fastestAt = l.name;
      }
      // Operands, and at level 0 each touched byte once; above it, fills are the FillBound's share.
      const double operandBytes = static_cast<double>(operands * (t == Output ? 2 : 1));
      keepers[t].push_back(
          {lv, cycles, l.energyPj(operandBytes + (lv == 0 ? static_cast<double>(once) : 0))});
    }
    if (fastest < 0) return std::nullopt;  // t fits no level it may be kept at: no valid mapping
    if (fastest > b.latency) {
      b.latency = fastest;
      b.latencyBy = fastestAt + " (" + std::string(kTensorNames[t]) + ")";
    }
  }
  DimFactors array;
  for (int d = 0; d < kDims; ++d) array[d] = s[0][d] * s[1][d] * s[2][d];
  b.perKeepers = keeperChoices(keepers, fill, array, compute);
  if (b.perKeepers.empty()) return std::nullopt;  // no keepers' tiles fit
  b.energyPj = std::min_element(b.perKeepers.begin(), b.perKeepers.end(), [](const auto& x, const auto& y) {
                 return x.energyPj < y.energyPj;
               })->energyPj;
  return b;
}

/// The old bound's array-wide share, for layers whose spatial assignments are too many to walk.
SpatialBound arrayBound(const ConvLayer& layer, const Hierarchy& h) {
  SpatialBound b;
  const auto macs = layer.macs();
  b.latency = ceilDiv(macs, h.pe.height * h.pe.width * h.pe.internal);
  b.latencyBy = "compute";
  for (int t = 0; t < kTensors; ++t) {
    double cheapest = -1;
    for (int lv : lowestKeepers(h, t)) {
      const auto& l = h.levels[lv];
      const auto lanes = lv == 0 ? h.pe.internal : h.pe.height * h.pe.width * h.pe.internal;
      const auto share = std::min(lanes, irrelevantProduct(layer, t));
      const double operands =
          static_cast<double>(macs / share * layer.elementBytes[t]) * (t == Output ? 2 : 1);
      const double e =
          l.energyPj(static_cast<double>(layer.touchedElements(t) * layer.elementBytes[t]) + operands);
      if (cheapest < 0 || e < cheapest) cheapest = e;
    }
    b.energyPj += std::max(0.0, cheapest);
  }
  return b;
}

/// Adds what every mapping costs at DRAM and in MACs to a bound of the levels below: inputs and weights
/// read at least once, outputs written at least once, every row holding a touched byte opened at least once
/// (each tensor sits in its own bank).
CostBound withLayerTerms(const ConvLayer& layer, const Hierarchy& h, const SpatialBound& below) {
  CostBound b;
  b.latencyCycles = below.latency;
  b.latencyBy = below.latencyBy;
  const double macEnergy = static_cast<double>(layer.macs()) * h.pe.macEnergyPj;
  b.energyPj = macEnergy + below.energyPj;
  for (const auto& p : below.perKeepers) b.perKeepers.push_back({p.latencyCycles, macEnergy + p.energyPj});
  const auto& dram = h.dram();
  for (int t = 0; t < kTensors; ++t) {
    const auto bytes = layer.touchedElements(t) * layer.elementBytes[t];
    const auto transfer = ceilDiv(bytes, t == Output ? dram.writeBandwidth : dram.readBandwidth);
    const auto dramCycles = transfer + leastRowActivations(layer, h, t) * h.timing.activationCycles();
    if (dramCycles > b.latencyCycles) {
      b.latencyCycles = dramCycles;
      b.latencyBy = dram.name + " (" + std::string(kTensorNames[t]) + ")";
    }
    const double energy = dram.energyPj(static_cast<double>(bytes));
    b.energyPj += energy;
    for (auto& p : b.perKeepers) {
      p.latencyCycles = std::max(p.latencyCycles, dramCycles);
      p.energyPj += energy;
    }
  }
  return b;
}

}  // namespace

bool forEachSpatialBound(const ConvLayer& layer, const Hierarchy& h,
                         const std::function<void(const Spatial&, const CostBound&)>& fn) {
  bool any = false;
  const auto fill = sharedFillBound(layer, h);
  const bool walked = forEachSpatial(layer, h, kMaxBoundSpatialAssignments, [&](const Spatial& s) {
    if (const auto below = boundOf(layer, h, *fill, s)) {
      any = true;
      fn(s, withLayerTerms(layer, h, *below));
    }
  });
  return walked && any;
}

CostBound lowerBound(const ConvLayer& layer, const Hierarchy& h) {
  // The least over every spatial assignment a valid mapping may have, of what that assignment costs at least.
  CostBound least;
  least.latencyCycles = -1;
  least.energyPj = -1;
  const bool walked = forEachSpatialBound(layer, h, [&](const Spatial&, const CostBound& b) {
    if (least.latencyCycles < 0 || b.latencyCycles < least.latencyCycles) {
      least.latencyCycles = b.latencyCycles;
      least.latencyBy = b.latencyBy;
    }
    if (least.energyPj < 0 || b.energyPj < least.energyPj) least.energyPj = b.energyPj;
  });
  return walked ? least : withLayerTerms(layer, h, arrayBound(layer, h));
}

std::vector<SpatialCandidate> leastBoundSpatials(const ConvLayer& layer, const Hierarchy& h,
                                                 const ObjectiveSpec& o, std::size_t count, bool* complete) {
  std::vector<SpatialCandidate> best;  // ascending by bound; ties keep the walk's order
  const bool walked = forEachSpatialBound(layer, h, [&](const Spatial& s, const CostBound& b) {
    const double v = objectiveBound(o, b);
    if (best.size() == count && v >= best.back().bound) return;
    const auto at = std::upper_bound(best.begin(), best.end(), v,
                                     [](double x, const SpatialCandidate& e) { return x < e.bound; });
    best.insert(at, {s, v});
    if (best.size() > count) best.pop_back();
  });
  if (complete) *complete = walked;
  return best;
}

SpatialFactors spatialOf(const ConvMapping& m) {
  const auto& f = m.levels.front().factor;
  return {f[SlotH], f[SlotW], f[SlotInternal]};
}

double objectiveLowerBound(const ConvLayer& layer, const Hierarchy& h, const ObjectiveSpec& o) {
  if (o.kind == Objective::Blended) {
    // No lower than the blend of lowerBound's: each assignment's latency and energy are at least the least.
    bool complete = false;
    const auto least = leastBoundSpatials(layer, h, o, 1, &complete);
    if (complete && !least.empty()) return least.front().bound;
  }
  return objectiveBound(o, lowerBound(layer, h));
}

double objectiveBound(const ObjectiveSpec& o, const CostBound& b) {
  ConvCost c;
  c.latencyCycles = b.latencyCycles;
  c.energyPj = b.energyPj;
  double least = objectiveValue(o, c);
  if (b.perKeepers.empty()) return least;
  // Each choice's pair bounds its mappings together: the least objective over the choices, no lower.
  least = std::numeric_limits<double>::infinity();
  for (const auto& p : b.perKeepers) {
    c.latencyCycles = p.latencyCycles;
    c.energyPj = p.energyPj;
    least = std::min(least, objectiveValue(o, c));
  }
  return least;
}

}  // namespace pim::convmap
