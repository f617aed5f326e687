// SPDX-License-Identifier: Apache-2.0
#include "engine/mapping/tile_mapping.h"

#include <algorithm>

namespace pim {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) {
  // b > 0
  return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/// Values of `e` over the box of loop ranges.
IndexSet evaluate(const AffineExpr& e, const std::vector<IndexSet>& loops) {
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

}  // namespace

std::string_view strategyName(IndexingStrategy s) {
  return s == IndexingStrategy::Expand ? "expand" : "exact";
}

TileMapping mapDraft(const DraftSpace& space, const Draft& d, IndexingStrategy strategy,
                     MappingDetail detail) {
  const Kernel& k = space.kernel();
  const DimensionSets& sets = space.sets();
  const int parts = space.partCount();
  const auto refs = k.references();

  TileMapping m;
  m.draft = d;
  m.strategy = strategy;
  for (const auto& p : d.parts) {
    m.groupsUsed *= p.groups;
    m.coresPerGroup *= p.cores;
  }
  m.paddedElements.assign(k.tensors.size(), 0);
  m.cores.reserve(static_cast<std::size_t>(m.groupsUsed) * m.coresPerGroup);

  std::vector<IndexSet> fullLoops;
  for (std::size_t l = 0; l < sets.loopLo.size(); ++l)
    fullLoops.push_back(IndexSet::range(sets.loopLo[l], sets.loopHi[l]));

  // Tile size along each part's representative dimension: the same for every core.
  std::vector<std::int64_t> tileSize(parts);
  for (int i = 0; i < parts; ++i) {
    const PartChoice& p = d.parts[i];
    tileSize[i] = ceilDiv(space.representative(i, p).extent, std::int64_t{p.groups} * p.cores);
  }
  // Reference axes feed tensor axes; flat slots (tensor-major) so the per-core scratch below keeps its
  // capacity from core to core (mapping runs for every simulated draft: allocation dominated its time).
  std::vector<std::size_t> axisBase(k.tensors.size() + 1, 0);
  for (std::size_t t = 0; t < k.tensors.size(); ++t)
    axisBase[t + 1] = axisBase[t] + k.tensors[t].shape.size();
  thread_local std::vector<std::vector<IndexSet>> perAxis;
  perAxis.resize(std::max(perAxis.size(), axisBase.back()));

  for (int g = 0; g < m.groupsUsed; ++g) {
    for (int c = 0; c < m.coresPerGroup; ++c) {
      CoreTile t;
      t.group = g;
      t.core = c;
      t.computeTile = fullLoops;
      t.dataTiles.resize(parts);
      int gRest = g, cRest = c;
      for (int i = parts - 1; i >= 0; --i) {  // last part varies fastest
        const PartChoice& p = d.parts[i];
        const int gi = gRest % p.groups, ki = cRest % p.cores;
        gRest /= p.groups;
        cRest /= p.cores;
        const RepresentativeMapping& rep = space.representative(i, p);
        const std::int64_t ts = tileSize[i];
        const std::int64_t u = std::int64_t{gi} * p.cores + ki;
        const std::int64_t lo = std::min(rep.extent, u * ts), hi = std::min(rep.extent, (u + 1) * ts);
        t.dataTiles[i] = IndexSet::range(lo, hi);
        // Compute tile: every v with F(v) = a*v + b in [lo, hi), a > 0, within the loop's range.
        const auto a = rep.fn.terms[0].second, b = rep.fn.constant;
        const std::int64_t vlo = std::max(sets.loopLo[rep.var], ceilDiv(lo - b, a));
        const std::int64_t vhi = std::min(sets.loopHi[rep.var], ceilDiv(hi - b, a));
        t.computeTile[rep.var] = IndexSet::range(vlo, vhi);
        if (vhi <= vlo) t.idle = true;
      }
      for (std::size_t slot = 0; slot < axisBase.back(); ++slot) perAxis[slot].clear();
      const bool keepReferences = detail == MappingDetail::Full;
      if (keepReferences) t.references.reserve(refs.size());
      for (const auto& [stmt, ref] : refs) {
        (void)stmt;
        std::vector<IndexSet> axes;
        if (keepReferences) axes.reserve(ref.index.size());
        for (std::size_t a = 0; a < ref.index.size(); ++a) {
          IndexSet s = evaluate(ref.index[a], t.computeTile);
          if (strategy == IndexingStrategy::Expand) s = s.expanded();
          if (keepReferences) axes.push_back(s);
          perAxis[axisBase[ref.tensor] + a].push_back(s);
        }
        if (keepReferences) t.references.push_back(std::move(axes));
      }
      t.tensors.resize(k.tensors.size());
      for (std::size_t ti = 0; ti < k.tensors.size(); ++ti) {
        TensorTile& tt = t.tensors[ti];
        tt.elements = t.idle ? 0 : 1;
        tt.axes.reserve(axisBase[ti + 1] - axisBase[ti]);
        for (std::size_t slot = axisBase[ti]; slot < axisBase[ti + 1]; ++slot) {
          IndexUnion u = unite(perAxis[slot]);
          if (strategy == IndexingStrategy::Expand && u.parts.size() > 1) {
            u.parts = {IndexSet::range(u.lo(), u.hi())};
          }
          tt.elements *= u.count();
          tt.axes.push_back(std::move(u));
        }
        m.paddedElements[ti] = std::max(m.paddedElements[ti], tt.elements);
      }
      m.cores.push_back(std::move(t));
    }
  }
  return m;
}

}  // namespace pim
