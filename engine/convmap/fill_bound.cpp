// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/fill_bound.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "engine/convmap/mapping.h"
#include "engine/convmap/mapspace.h"

namespace pim::convmap {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Energy of moving `bytes` of t between `level` and the cheapest level above it that may keep t (the
/// evaluator charges the same per block for a read and a write). From DRAM, one pass of the touched bytes is
/// left out: the bound counts it already.
double fillEnergy(const Hierarchy& h, int t, int level, double bytes, double touched) {
  double parent = kInf;
  for (int p = level + 1; p <= h.dramLevel(); ++p) {
    if (!h.levels[p].stores[t]) continue;
    const double moved = p == h.dramLevel() ? bytes - touched : bytes;
    parent = std::min(parent, h.levels[p].energyPj(moved));
  }
  return h.levels[level].energyPj(bytes) + parent;
}

/// Calls fn on every tuple of divisors of the layer's bounds; false (having called nothing) when there are
/// more than `limit`.
bool forEachExtents(const ConvLayer& layer, std::int64_t limit,
                    const std::function<void(const DimFactors&)>& fn) {
  std::array<std::vector<std::int64_t>, kDims> divs;
  double count = 1;
  for (int d = 0; d < kDims; ++d) {
    divs[d] = divisors(layer.bound[d]);
    count *= static_cast<double>(divs[d].size());
  }
  if (count > static_cast<double>(limit)) return false;
  DimFactors e;
  std::function<void(int)> walk = [&](int d) {
    if (d == kDims) return fn(e);
    for (auto v : divs[d]) {
      e[d] = v;
      walk(d + 1);
    }
  };
  walk(0);
  return true;
}

}  // namespace

FillBound::FillBound(const ConvLayer& layer, const Hierarchy& h) {
  const int dram = h.dramLevel();
  m_energy.assign(dram, {});
  std::array<double, kTensors> touched{};
  for (int t = 0; t < kTensors; ++t)
    touched[t] = static_cast<double>(layer.touchedElements(t) * layer.elementBytes[t]);
  // Each tensor's touched bytes once: what stays when the extents are too many to walk (the walk replaces
  // it).
  for (int lv = 1; lv < dram; ++lv) {
    for (unsigned set = 1; set < 8; ++set) {
      double e = 0;
      for (int t = 0; t < kTensors; ++t)
        if (set >> t & 1) e += fillEnergy(h, t, lv, touched[t], touched[t]);
      m_energy[lv][set] = e;
    }
  }
  std::vector<std::array<double, 8>> least(dram);
  for (auto& l : least) l.fill(kInf);
  const bool walked = forEachExtents(layer, kMaxFillBoundExtents, [&](const DimFactors& e) {
    double refills = 1;  // L: the product of the loop bounds above a level with these extents
    for (int d = 0; d < kDims; ++d) refills *= static_cast<double>(layer.bound[d] / e[d]);
    std::array<double, kTensors> tile{}, spared{};  // bytes of a tile; moved at least if the tensor is spared
    for (int t = 0; t < kTensors; ++t) {
      tile[t] = static_cast<double>(tileElements(layer, e, t) * layer.elementBytes[t]);
      spared[t] = tile[t];  // its own loops refill it whatever the order: a window's halo is fetched again
      for (int d = 0; d < kDims; ++d)
        if (relevant(d, t)) spared[t] *= static_cast<double>(layer.bound[d] / e[d]);
    }
    for (int lv = 1; lv < dram; ++lv) {
      const auto& l = h.levels[lv];
      const double capacity = static_cast<double>(l.capacityBytes(h.elementBytes));
      double mustKeep = 0;  // tensors the level keeps in every mapping take room whatever the set
      for (int t = 0; t < kTensors; ++t)
        if (l.bypassFixed && l.stores[t]) mustKeep += tile[t];
      for (unsigned set = 1; set < 8; ++set) {
        double room = mustKeep;
        for (int t = 0; t < kTensors; ++t)
          if ((set >> t & 1) && !(l.bypassFixed && l.stores[t])) room += tile[t];
        if (room > capacity) continue;
        for (int u = 0; u < kTensors; ++u) {
          if (!(set >> u & 1)) continue;
          double e = 0;
          for (int t = 0; t < kTensors; ++t)
            if (set >> t & 1) e += fillEnergy(h, t, lv, t == u ? spared[t] : refills * tile[t], touched[t]);
          least[lv][set] = std::min(least[lv][set], e);
        }
      }
    }
  });
  if (!walked) return;
  for (int lv = 1; lv < dram; ++lv)
    for (unsigned set = 1; set < 8; ++set) m_energy[lv][set] = least[lv][set];
}

double FillBound::energyPj(int level, unsigned tensors) const {
  if (level <= 0 || tensors == 0) return 0;
  return m_energy.at(level).at(tensors & 7u);
}

}  // namespace pim::convmap
