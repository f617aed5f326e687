// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/fill_bound.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "engine/convmap/store_keys.h"

namespace pim::convmap {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Whether the tiles of `set` fit level lv together at these extents, beside the tensors it must keep.
bool fits(const Hierarchy& h, int lv, unsigned set, const ExtentFills& f) {
  const auto& l = h.levels[lv];
  double room = 0;
  for (int t = 0; t < kTensors; ++t)
    if ((set >> t & 1) || (l.bypassFixed && l.stores[t])) room += f.tile[t];
  return room <= static_cast<double>(l.capacityBytes(h.elementBytes));
}

/// The product of hi_d / lo_d over the dimensions irrelevant to t (lo divides hi: each quotient, and so the
/// product of these few, is an exact integer in a double, and a division of doubles is the inner loop's
/// cheapest).
double irrelevantRatio(const DimFactors& hi, const DimFactors& lo, int t) {
  double r = 1;
  for (int d = 0; d < kDims; ++d)
    if (!relevant(d, t)) r *= static_cast<double>(hi[d]) / static_cast<double>(lo[d]);
  return r;
}

/// The fills of `set` at level lv at extents f when tensor `spared` saves `save` of its refills (the others
/// none): each tensor filled L times, the spared one L / save times but at least once per distinct tile.
double setFills(const Hierarchy& h, int lv, unsigned set, const ExtentFills& f, int spared, double save,
                const std::array<double, kTensors>& touched) {
  double e = 0;
  for (int t = 0; t < kTensors; ++t)
    if (set >> t & 1) {
      const double n = t == spared ? std::max(f.distinct[t], f.refills / save) : f.refills;
      e += fillEnergy(h, t, lv, f.moved(t, n), touched[t]);
    }
  return e;
}

}  // namespace

FillBound::FillBound(const ConvLayer& layer, const Hierarchy& h) : m_lattice(layer) {
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
  if (m_lattice.size() > static_cast<double>(kMaxFillBoundExtents)) return;
  const bool tabled = m_lattice.size() <= static_cast<double>(kMaxFillBoundTable);
  const std::size_t perExtents = static_cast<std::size_t>(std::max(0, dram - 1)) * 7;
  if (tabled) m_atLeast.assign(static_cast<std::size_t>(m_lattice.size()) * perExtents, kInf);
  std::vector<ExtentFills> tabledFills;  // every extent's, for the nested walk
  std::vector<DimFactors> tabledExtents;
  std::vector<std::array<double, 8>> least(dram);
  for (auto& l : least) l.fill(kInf);
  m_lattice.forEach([&](std::size_t index, const DimFactors& e) {
    const ExtentFills f(layer, e);
    for (int lv = 1; lv < dram; ++lv)
      for (unsigned set = 1; set < 8; ++set) {
        if (!fits(h, lv, set, f)) continue;
        double here = kInf;
        for (int u = 0; u < kTensors; ++u)
          if (set >> u & 1) here = std::min(here, setFills(h, lv, set, f, u, kInf, touched));
        least[lv][set] = std::min(least[lv][set], here);
        if (tabled) m_atLeast[index * perExtents + (lv - 1) * 7 + set - 1] = here;
      }
    if (tabled) {
      tabledFills.push_back(f);
      tabledExtents.push_back(e);
    }
  });
  for (int lv = 1; lv < dram; ++lv)
    for (unsigned set = 1; set < 8; ++set) m_energy[lv][set] = least[lv][set];
  if (!tabled) return;
  m_lattice.leastOverMultiples(m_atLeast, perExtents);
  tableNested(h, tabledExtents, tabledFills, touched);
}

namespace {

/// Two levels' nested fills (fill_bound.h), lower < upper, over every extent of the lattice: per tensor set
/// of each, the least over the pairs of a lower extent and an upper one that is its multiple.
class NestedPair {
 public:
  NestedPair(const Hierarchy& h, int lower, int upper, const ExtentLattice& lattice,
             const std::vector<DimFactors>& extents, const std::vector<ExtentFills>& fills,
             const std::array<double, kTensors>& touched)
      : m_h(h), m_lower(lower), m_lattice(lattice), m_extents(extents), m_fills(fills), m_touched(touched) {
    const std::size_t n = fills.size();
    for (unsigned set = 1; set < 8; ++set) {
      m_up[set].assign(n, {kInf, kInf, kInf});
      m_fitsLower[set].assign(n, 0);
      m_leastUp[set].assign(n, kInf);
      for (std::size_t i = 0; i < n; ++i) {
        m_fitsLower[set][i] = fits(h, lower, set, fills[i]);
        if (!fits(h, upper, set, fills[i])) continue;
        for (int v = 0; v < kTensors; ++v)
          m_up[set][i][v] = setFills(h, upper, set, fills[i], v, kInf, touched);
        m_leastUp[set][i] = std::min({m_up[set][i][0], m_up[set][i][1], m_up[set][i][2]});
      }
      lattice.leastOverMultiples(m_leastUp[set], 1);
    }
  }

  /// Per extent e, the least nested fills of the lower level keeping `s1` at e or at a multiple of e and the
  /// upper one keeping `s2` at a multiple of that (the least over multiples, as energyPj reads it). `walked`
  /// counts the pairs walked.
  std::vector<double> table(unsigned s1, unsigned s2, std::int64_t& walked) const {
    const std::size_t n = m_fills.size();
    std::vector<double> g(n, kInf);
    // Descending: a strict multiple's entry is final (the least over its own multiples) before its divisors'
    // walks start, and no pair at or above the least of those can lower the table here or below.
    for (std::size_t i1 = n; i1-- > 0;) {
      const double above = m_lattice.leastOverCovers(g, i1);
      g[i1] = m_fitsLower[s1][i1] ? std::min(above, walkFrom(i1, s1, s2, above, walked)) : above;
    }
    return g;
  }

 private:
  /// The least over the pairs from the lower extent i1, or `cap` when none goes below it.
  double walkFrom(std::size_t i1, unsigned s1, unsigned s2, double cap, std::int64_t& walked) const {
    const auto& h = m_h;
    const int lower = m_lower;
    const auto& e1 = m_extents[i1];
    const auto& f1 = m_fills[i1];
    const auto& touched = m_touched;
    // Below, per spared tensor: nothing spared, its refills at L, and every loop of its class saved.
    const double none = setFills(h, lower, s1, f1, -1, 1, touched);
    std::array<double, kTensors> atL{}, full{};
    double least = none;  // no choice below costs less: sparing fills at least the distinct tiles
    for (int u = 0; u < kTensors; ++u)
      if (s1 >> u & 1) {
        atL[u] = fillEnergy(h, u, lower, f1.moved(u, f1.refills), touched[u]);
        full[u] = none - atL[u] + fillEnergy(h, u, lower, f1.moved(u, f1.distinct[u]), touched[u]);
        least = std::min(least, full[u]);
      }
    // Energy grows with the bytes moved, so no pair costs less than the least below plus the least above.
    if (least + m_leastUp[s2][i1] >= cap) return cap;
    double best = cap;
    const auto& up = m_up[s2];
    const auto fitsUpper = [&](std::size_t i) { return up[i][0] != kInf; };
    m_lattice.forEachMultiple(e1, fitsUpper, [&](std::size_t i2, const DimFactors& e2) {
      const auto& u2 = up[i2];
      ++walked;
      const double leastUp = std::min({u2[0], u2[1], u2[2]});
      if (least + leastUp >= best) return;  // one that cannot lower the least leaves it as it is
      double pair = none + leastUp;
      for (int u = 0; u < kTensors; ++u) {
        if (!(s1 >> u & 1)) continue;
        // Sparing u below saves the loops between the levels irrelevant to u, and those above the upper
        // level too only when no loop between is relevant to u and the upper level spares u.
        const double between = irrelevantRatio(e2, e1, u);
        bool onlyIrrelevant = true;
        for (int d = 0; d < kDims; ++d)
          if (relevant(d, u) && e2[d] != e1[d]) onlyIrrelevant = false;
        const double part =
            between == 1
                ? none
                : none - atL[u] +
                      fillEnergy(h, u, lower, f1.moved(u, std::max(f1.distinct[u], f1.refills / between)),
                                 touched[u]);
        double otherUp = kInf;
        for (int v = 0; v < kTensors; ++v)
          if (v != u) otherUp = std::min(otherUp, u2[v]);
        pair = std::min({pair, part + otherUp, (onlyIrrelevant ? full[u] : part) + u2[u]});
      }
      best = std::min(best, pair);
    });
    return best;
  }

  const Hierarchy& m_h;
  int m_lower;
  const ExtentLattice& m_lattice;
  const std::vector<DimFactors>& m_extents;
  const std::vector<ExtentFills>& m_fills;
  const std::array<double, kTensors>& m_touched;
  // Per upper set: the upper level's fills at each extent it fits at and each spared tensor (+inf where it
  // does not fit), and their least over each extent's multiples; per lower set, where the lower level fits.
  std::array<std::vector<std::array<double, kTensors>>, 8> m_up;
  std::array<std::vector<double>, 8> m_leastUp;
  std::array<std::vector<char>, 8> m_fitsLower;
};

}  // namespace

void FillBound::tableNested(const Hierarchy& h, const std::vector<DimFactors>& extents,
                            const std::vector<ExtentFills>& fills,
                            const std::array<double, kTensors>& touched) {
  for (int lower = 1; lower < m_levels; ++lower)
    for (int upper = lower + 1; upper < m_levels; ++upper) {
      const NestedPair pair(h, lower, upper, m_lattice, extents, fills, touched);
      std::int64_t walked = 0;
      std::map<std::pair<unsigned, unsigned>, std::vector<double>> tables;
      for (unsigned s1 = 1; s1 < 8 && walked <= kMaxNestedFillPairs; ++s1)
        for (unsigned s2 = 1; s2 < 8 && walked <= kMaxNestedFillPairs; ++s2)
          if ((s1 & s2) == 0) tables[{s1, s2}] = pair.table(s1, s2, walked);
      if (walked > kMaxNestedFillPairs) continue;  // counted apart: a looser bound
      for (auto& [sets, g] : tables) m_nested[{lower, sets.first, upper, sets.second}] = std::move(g);
    }
}

std::shared_ptr<const FillBound> sharedFillBound(const ConvLayer& layer, const Hierarchy& h) {
  // A map solve asks for the bound several times (its start, its spatial starts, its result); the nested
  // fills take a second or more on a 3 x 3 layer. The last few are kept, keyed by every number they read.
  static std::mutex mutex;
  static std::vector<std::pair<std::string, std::shared_ptr<const FillBound>>> kept;  // most recent last
  const std::string key = hierarchyHash(h) + "|" + layerKey(layer);
  {
    const std::lock_guard lock(mutex);
    for (const auto& [k, fill] : kept)
      if (k == key) return fill;
  }
  auto fill = std::make_shared<const FillBound>(layer, h);
  const std::lock_guard lock(mutex);
  kept.emplace_back(key, fill);
  if (kept.size() > 4) kept.erase(kept.begin());
  return fill;
}

double FillBound::energyPj(int level, unsigned tensors) const {
  if (level <= 0 || tensors == 0) return 0;
  return m_energy.at(level).at(tensors & 7u);
}

double FillBound::energyPj(int level, unsigned tensors, const DimFactors& array) const {
  if (level <= 0 || (tensors & 7u) == 0) return 0;
  const auto index = m_atLeast.empty() ? -1 : m_lattice.indexOf(array);
  if (index < 0) return energyPj(level, tensors);
  const auto perExtents = static_cast<std::size_t>(m_levels - 1) * 7;
  return m_atLeast[static_cast<std::size_t>(index) * perExtents + (level - 1) * 7 + (tensors & 7u) - 1];
}

double FillBound::energyPj(int lower, unsigned lowerTensors, int upper, unsigned upperTensors,
                           const DimFactors& array) const {
  if (lower > upper) {
    std::swap(lower, upper);
    std::swap(lowerTensors, upperTensors);
  }
  const double apart = energyPj(lower, lowerTensors, array) + energyPj(upper, upperTensors, array);
  const auto it = m_nested.find({lower, lowerTensors & 7u, upper, upperTensors & 7u});
  const auto index = m_lattice.indexOf(array);
  if (lower <= 0 || it == m_nested.end() || index < 0) return apart;
  return std::max(apart, it->second[static_cast<std::size_t>(index)]);  // both bounds: the higher
}

}  // namespace pim::convmap
