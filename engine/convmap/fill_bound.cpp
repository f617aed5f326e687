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
  m_levels = dram;
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
  double count = 1;
  for (int d = 0; d < kDims; ++d) {
    m_divisors[d] = divisors(layer.bound[d]);
    count *= static_cast<double>(m_divisors[d].size());
  }
  const std::size_t perExtents = static_cast<std::size_t>(std::max(0, dram - 1)) * 7;
  if (count <= static_cast<double>(kMaxFillBoundTable))
    m_atLeast.assign(static_cast<std::size_t>(count) * perExtents, kInf);
  std::vector<std::array<double, 8>> least(dram);
  for (auto& l : least) l.fill(kInf);
  std::size_t index = 0;  // of e in the walk's order, which is the table's
  const bool walked = forEachExtents(layer, kMaxFillBoundExtents, [&](const DimFactors& e) {
    const auto row = index++ * perExtents;
    double refills = 1;  // L: the product of the loop bounds above a level with these extents
    for (int d = 0; d < kDims; ++d) refills *= static_cast<double>(layer.bound[d] / e[d]);
    // Bytes of a tile, and moved in each direction at least when the tensor is spared and when it is not.
    std::array<double, kTensors> tile{}, spared{}, moved{};
    for (int t = 0; t < kTensors; ++t) {
      tile[t] = static_cast<double>(tileElements(layer, e, t) * layer.elementBytes[t]);
      spared[t] = tile[t];  // its own loops refill it whatever the order: a window's halo is fetched again
      for (int d = 0; d < kDims; ++d)
        if (relevant(d, t)) spared[t] *= static_cast<double>(layer.bound[d] / e[d]);
      // An output's partial sums go both ways: every fill is written back and every fill but each tile's
      // first is read back (the evaluator's), so (2 L - distinct) tiles cross the level and its parent.
      moved[t] = t == Output ? 2 * refills * tile[t] - spared[t] : refills * tile[t];
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
        double here = kInf;
        for (int u = 0; u < kTensors; ++u) {
          if (!(set >> u & 1)) continue;
          double e = 0;
          for (int t = 0; t < kTensors; ++t)
            if (set >> t & 1) e += fillEnergy(h, t, lv, t == u ? spared[t] : moved[t], touched[t]);
          here = std::min(here, e);
        }
        least[lv][set] = std::min(least[lv][set], here);
        if (!m_atLeast.empty()) m_atLeast[row + (lv - 1) * 7 + set - 1] = here;
      }
    }
  });
  if (!walked) return;
  for (int lv = 1; lv < dram; ++lv)
    for (unsigned set = 1; set < 8; ++set) m_energy[lv][set] = least[lv][set];
  tableLeastOverMultiples();
}

void FillBound::tableLeastOverMultiples() {
  if (m_atLeast.empty()) return;
  // Per dimension (the order of multiples is the product of the dimensions' orders), each entry becomes
  // the least over the entries whose extent in that dimension is a multiple of its own.
  const std::size_t perExtents = static_cast<std::size_t>(m_levels - 1) * 7;
  std::size_t stride = perExtents;
  for (int d = kDims - 1; d >= 0; --d) {
    const auto& divs = m_divisors[d];
    const std::size_t n = divs.size(), block = stride * n;
    for (std::size_t base = 0; base < m_atLeast.size(); base += block)
      for (std::size_t i = n; i-- > 0;)  // descending: a multiple's entry is already its own least
        for (std::size_t j = i + 1; j < n; ++j) {
          if (divs[j] % divs[i] != 0) continue;
          for (std::size_t k = 0; k < stride; ++k) {
            auto& to = m_atLeast[base + i * stride + k];
            to = std::min(to, m_atLeast[base + j * stride + k]);
          }
        }
    stride = block;
  }
}

std::int64_t FillBound::indexOf(const DimFactors& e) const {
  if (m_atLeast.empty()) return -1;
  std::int64_t index = 0;
  for (int d = 0; d < kDims; ++d) {
    const auto& divs = m_divisors[d];
    const auto at = std::lower_bound(divs.begin(), divs.end(), e[d]);
    if (at == divs.end() || *at != e[d]) return -1;
    index = index * static_cast<std::int64_t>(divs.size()) + (at - divs.begin());
  }
  return index;
}

double FillBound::energyPj(int level, unsigned tensors) const {
  if (level <= 0 || tensors == 0) return 0;
  return m_energy.at(level).at(tensors & 7u);
}

double FillBound::energyPj(int level, unsigned tensors, const DimFactors& array) const {
  if (level <= 0 || (tensors & 7u) == 0) return 0;
  const auto index = indexOf(array);
  if (index < 0) return energyPj(level, tensors);
  const auto perExtents = static_cast<std::size_t>(m_levels - 1) * 7;
  return m_atLeast[static_cast<std::size_t>(index) * perExtents + (level - 1) * 7 + (tensors & 7u) - 1];
}

}  // namespace pim::convmap
