// SPDX-License-Identifier: Apache-2.0
#include "engine/mapping/tile_mapping.h"

#include <algorithm>

namespace pim {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  // b > 0
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

}  // namespace

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

void forEachCoreTile(const DraftSpace& space, const Draft& d, IndexingStrategy strategy,
                     const std::function<void(const CoreTile&)>& visit) {
  const Kernel& k = space.kernel();
  const DimensionSets& sets = space.sets();
  const int parts = space.partCount();
  const auto refs = k.references();
  int groupsUsed = 1, coresPerGroup = 1;
  for (const auto& p : d.parts) {
    groupsUsed *= p.groups;
    coresPerGroup *= p.cores;
  }

  std::vector<IndexSet> fullLoops;
  for (std::size_t l = 0; l < sets.loopLo.size(); ++l)
    fullLoops.push_back(IndexSet::range(sets.loopLo[l], sets.loopHi[l]));
  // Reference axes feed tensor axes (flat slots, tensor-major).
  std::vector<std::size_t> axisBase(k.tensors.size() + 1, 0);
  for (std::size_t t = 0; t < k.tensors.size(); ++t)
    axisBase[t + 1] = axisBase[t] + k.tensors[t].shape.size();
  std::vector<std::vector<IndexSet>> perAxis(axisBase.back());

  // One tile, its vectors refilled in place from core to core.
  CoreTile t;
  t.dataTiles.resize(static_cast<std::size_t>(parts));
  t.references.resize(refs.size());
  t.tensors.resize(k.tensors.size());
  for (int g = 0; g < groupsUsed; ++g) {
    for (int c = 0; c < coresPerGroup; ++c) {
      t.group = g;
      t.core = c;
      t.idle = false;
      t.computeTile = fullLoops;
      int gRest = g, cRest = c;
      for (int i = parts - 1; i >= 0; --i) {  // last part varies fastest
        const PartChoice& p = d.parts[i];
        const int gi = gRest % p.groups, ki = cRest % p.cores;
        gRest /= p.groups;
        cRest /= p.cores;
        const PartTile pt = partTile(space, i, p, std::int64_t{gi} * p.cores + ki);
        t.dataTiles[i] = pt.data;
        t.computeTile[space.representative(i, p).var] = pt.compute;
        if (pt.compute.empty()) t.idle = true;
      }
      for (auto& slot : perAxis) slot.clear();
      for (std::size_t r = 0; r < refs.size(); ++r) {
        const TensorRef& ref = refs[r].second;
        std::vector<IndexSet>& axes = t.references[r];
        axes.clear();
        for (std::size_t a = 0; a < ref.index.size(); ++a) {
          IndexSet s = evaluateOver(ref.index[a], t.computeTile);
          if (strategy == IndexingStrategy::Expand) s = s.expanded();
          axes.push_back(s);
          perAxis[axisBase[ref.tensor] + a].push_back(s);
        }
      }
      for (std::size_t ti = 0; ti < k.tensors.size(); ++ti) {
        TensorTile& tt = t.tensors[ti];
        tt.axes.clear();
        tt.elements = t.idle ? 0 : 1;
        for (std::size_t slot = axisBase[ti]; slot < axisBase[ti + 1]; ++slot) {
          tt.axes.push_back(axisUnion(perAxis[slot], strategy));
          tt.elements *= tt.axes.back().count();
        }
      }
      visit(t);
    }
  }
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
