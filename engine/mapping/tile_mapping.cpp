// SPDX-License-Identifier: Apache-2.0
#include "engine/mapping/tile_mapping.h"

#include <algorithm>

#include "engine/common/int_math.h"

namespace pim {

IndexSet evaluateOver(const AffineExpr& e, const std::vector<IndexSet>& loops) {
  if (e.isConstant()) return {e.constant, 1, 1};
  for (const auto& [var, coeff] : e.terms) {
    (void)coeff;
    if (loops[var].empty()) return {0, 1, 0};
  }
  if (e.isSingleVar()) {
    const auto [var, a] = e.terms[0];
    const IndexSet& r = loops[var];
    if (a > 0) return {a * r.lo() + e.constant, a, r.count};
    return {a * (r.hi() - 1) + e.constant, -a, r.count};
  }
  std::int64_t lo = e.constant, hi = e.constant;
  for (const auto& [var, a] : e.terms) {
    const auto& r = loops[var];
    lo += a > 0 ? a * r.lo() : a * (r.hi() - 1);
    hi += a > 0 ? a * (r.hi() - 1) : a * r.lo();
  }
  return IndexSet::range(lo, hi + 1);
}

PartTile partTile(const DraftSpace& space, int part, const PartChoice& p, std::int64_t u) {
  const DimensionSets& sets = space.sets();
  const RepresentativeMapping& rep = space.representative(part, p);
  const std::int64_t ts = ceilDiv(rep.extent, std::int64_t{p.groups} * p.cores);
  const std::int64_t lo = std::min(rep.extent, u * ts), hi = std::min(rep.extent, (u + 1) * ts);
  // Compute tile: every v with F(v) = a*v + b in [lo, hi), a > 0, within the loop's range.
  const auto a = rep.fn.terms[0].second, b = rep.fn.constant;
  const std::int64_t vlo = std::max(sets.loopLo[rep.var], ceilDiv(lo - b, a));
  const std::int64_t vhi = std::min(sets.loopHi[rep.var], ceilDiv(hi - b, a));
  return {IndexSet::range(lo, hi), IndexSet::range(vlo, vhi)};
}

IndexUnion axisUnion(const std::vector<IndexSet>& refs, IndexingStrategy strategy) {
  IndexUnion u = unite(refs);
  if (strategy == IndexingStrategy::Expand && u.parts.size() > 1) {
    u.parts = {IndexSet::range(u.lo(), u.hi())};
  }
  return u;
}

std::string_view indexingName(IndexingStrategy s) {
  return s == IndexingStrategy::Expand ? "expand" : "exact";
}

namespace {

/// One core's tiles at a time (forEachCoreTile's body), with what every core shares set up once.
class CoreTiler {
 public:
  CoreTiler(const DraftSpace& space, const Draft& d, IndexingStrategy strategy)
      : m_space(space), m_draft(d), m_strategy(strategy), m_refs(space.kernel().references()) {
    const Kernel& k = space.kernel();
    const DimensionSets& sets = space.sets();
    for (const auto& p : d.parts) {
      m_groupsUsed *= p.groups;
      m_coresPerGroup *= p.cores;
    }
    for (std::size_t l = 0; l < sets.loopLo.size(); ++l)
      m_fullLoops.push_back(IndexSet::range(sets.loopLo[l], sets.loopHi[l]));
    // Reference axes feed tensor axes (flat slots, tensor-major).
    m_axisBase.assign(k.tensors.size() + 1, 0);
    for (std::size_t t = 0; t < k.tensors.size(); ++t)
      m_axisBase[t + 1] = m_axisBase[t] + k.tensors[t].shape.size();
    m_perAxis.resize(m_axisBase.back());
  }
  int groupsUsed() const { return m_groupsUsed; }
  int coresPerGroup() const { return m_coresPerGroup; }

  /// Part i's tiles of core (g, c): its position along part i is u = g_i*c_i + k_i, (g_i, k_i) the mixed
  /// radix digits of g and c with the last part fastest.
  void partTiles(int g, int c, std::vector<PartTile>& out) const {
    const int parts = m_space.partCount();
    out.resize(static_cast<std::size_t>(parts));
    int gRest = g, cRest = c;
    for (int i = parts - 1; i >= 0; --i) {
      const PartChoice& p = m_draft.parts[i];
      const int gi = gRest % p.groups, ki = cRest % p.cores;
      gRest /= p.groups;
      cRest /= p.cores;
      out[static_cast<std::size_t>(i)] = partTile(m_space, i, p, std::int64_t{gi} * p.cores + ki);
    }
  }

  /// Refills `t` (its vectors reused) with core (g, c)'s tiles.
  void tile(int g, int c, CoreTile& t) {
    const Kernel& k = m_space.kernel();
    const int parts = m_space.partCount();
    t.dataTiles.resize(static_cast<std::size_t>(parts));
    t.references.resize(m_refs.size());
    t.tensors.resize(k.tensors.size());
    t.group = g;
    t.core = c;
    t.idle = false;
    t.computeTile = m_fullLoops;
    partTiles(g, c, m_parts);
    for (int i = 0; i < parts; ++i) {
      const PartTile& pt = m_parts[static_cast<std::size_t>(i)];
      t.dataTiles[i] = pt.data;
      t.computeTile[m_space.representative(i, m_draft.parts[i]).var] = pt.compute;
      if (pt.compute.empty()) t.idle = true;
    }
    for (auto& slot : m_perAxis) slot.clear();
    for (std::size_t r = 0; r < m_refs.size(); ++r) {
      const TensorRef& ref = m_refs[r].second;
      std::vector<IndexSet>& axes = t.references[r];
      axes.clear();
      for (std::size_t a = 0; a < ref.index.size(); ++a) {
        IndexSet s = evaluateOver(ref.index[a], t.computeTile);
        if (m_strategy == IndexingStrategy::Expand) s = s.expanded();
        axes.push_back(s);
        m_perAxis[m_axisBase[ref.tensor] + a].push_back(s);
      }
    }
    for (std::size_t ti = 0; ti < k.tensors.size(); ++ti) {
      TensorTile& tt = t.tensors[ti];
      tt.axes.clear();
      tt.elements = t.idle ? 0 : 1;
      for (std::size_t slot = m_axisBase[ti]; slot < m_axisBase[ti + 1]; ++slot) {
        tt.axes.push_back(axisUnion(m_perAxis[slot], m_strategy));
        tt.elements *= tt.axes.back().count();
      }
    }
  }

 private:
  const DraftSpace& m_space;
  const Draft& m_draft;
  IndexingStrategy m_strategy;
  std::vector<std::pair<int, TensorRef>> m_refs;
  int m_groupsUsed = 1, m_coresPerGroup = 1;
  std::vector<IndexSet> m_fullLoops;
  std::vector<std::size_t> m_axisBase;
  std::vector<std::vector<IndexSet>> m_perAxis;
  std::vector<PartTile> m_parts;  // scratch of tile()
};

// Every tensor has at most one reference: then each of its axes is one affine expression over the loop
// ranges, whose count depends only on the ranges' counts (a shift of a range shifts the values), so a
// tile's size does not depend on where it lies. Two references of one tensor (x[i] and x[2*i]) unite sets
// whose overlap depends on their offsets.
bool everyTensorReadOnce(const Kernel& k) {
  std::vector<int> reads(k.tensors.size(), 0);
  for (const auto& [stmt, ref] : k.references())
    if (++reads[static_cast<std::size_t>(ref.tensor)] > 1) return false;
  return true;
}

}  // namespace

void forEachCoreTile(const DraftSpace& space, const Draft& d, IndexingStrategy strategy,
                     const std::function<void(const CoreTile&)>& visit) {
  CoreTiler tiler(space, d, strategy);
  CoreTile t;  // one tile, its vectors refilled in place from core to core
  for (int g = 0; g < tiler.groupsUsed(); ++g) {
    for (int c = 0; c < tiler.coresPerGroup(); ++c) {
      tiler.tile(g, c, t);
      visit(t);
    }
  }
}

void forEachCoreSizes(const DraftSpace& space, const Draft& d, IndexingStrategy strategy,
                      const std::function<void(const CoreSizes&)>& visit) {
  CoreTiler tiler(space, d, strategy);
  // Cores are keyed by their parts' compute counts (which fix every loop's count) when sizes depend on
  // nothing else; otherwise each core is its own key.
  const bool bySize = everyTensorReadOnce(space.kernel());
  struct Known {
    std::vector<std::int64_t> key;
    CoreSizes sizes;
  };
  std::vector<Known> known;  // a few per draft: whole tiles, the last partial one, empty ones
  std::vector<PartTile> parts;
  std::vector<std::int64_t> key;
  CoreTile t;
  CoreSizes fresh;
  for (int g = 0; g < tiler.groupsUsed(); ++g) {
    for (int c = 0; c < tiler.coresPerGroup(); ++c) {
      CoreSizes* sizes = &fresh;
      if (bySize) {
        tiler.partTiles(g, c, parts);
        key.clear();
        for (const PartTile& pt : parts) key.push_back(pt.compute.count);
        auto it = std::find_if(known.begin(), known.end(), [&](const Known& k) { return k.key == key; });
        if (it == known.end()) {
          tiler.tile(g, c, t);
          it = known.insert(known.end(), {key, sizesOf(t)});
        }
        sizes = &it->sizes;
      } else {
        tiler.tile(g, c, t);
        fresh = sizesOf(t);
      }
      sizes->group = g;
      sizes->core = c;
      visit(*sizes);
    }
  }
}

CoreSizes sizesOf(const CoreTile& t) {
  CoreSizes s;
  s.group = t.group;
  s.core = t.core;
  s.idle = t.idle;
  for (const IndexSet& l : t.computeTile) s.loopCounts.push_back(l.count);
  for (const TensorTile& tt : t.tensors) s.elements.push_back(tt.elements);
  return s;
}

TileMapping mapDraft(const DraftSpace& space, const Draft& d, IndexingStrategy strategy) {
  TileMapping m;
  m.draft = d;
  m.indexing = strategy;
  for (const auto& p : d.parts) {
    m.groupsUsed *= p.groups;
    m.coresPerGroup *= p.cores;
  }
  m.paddedElements.assign(space.kernel().tensors.size(), 0);
  m.cores.reserve(static_cast<std::size_t>(m.groupsUsed) * m.coresPerGroup);
  forEachCoreTile(space, d, strategy, [&m](const CoreTile& t) {
    for (std::size_t ti = 0; ti < t.tensors.size(); ++ti)
      m.paddedElements[ti] = std::max(m.paddedElements[ti], t.tensors[ti].elements);
    m.cores.push_back(t);
  });
  return m;
}

}  // namespace pim
