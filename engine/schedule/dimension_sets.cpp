// SPDX-License-Identifier: Apache-2.0
#include "engine/schedule/dimension_sets.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace pim {
namespace {

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(int n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void join(int a, int b) { parent[find(a)] = find(b); }
};

std::string tensorDimName(const Kernel& k, int tensor, int axis) {
  return k.tensors[tensor].name + std::to_string(axis);
}

}  // namespace

DimensionSets buildDimensionSets(const Kernel& k, const Shape& s) {
  DimensionSets out;
  const int loopCount = static_cast<int>(k.loops.size());
  for (int l = 0; l < loopCount; ++l) {
    auto [lo, hi] = loopBounds(k, l, s);
    out.loopLo.push_back(lo);
    out.loopHi.push_back(hi);
  }

  // Reference sets: distinct non-constant index functions per tensor dimension, in order of appearance.
  struct Node {
    int tensor, axis;
    std::vector<AffineExpr> refs;
  };
  std::vector<Node> nodes;
  std::vector<std::vector<int>> nodeOf(k.tensors.size());
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    nodeOf[t].assign(k.tensors[t].shape.size(), -1);
  }
  for (const auto& [stmt, ref] : k.references()) {
    (void)stmt;
    for (std::size_t a = 0; a < ref.index.size(); ++a) {
      const AffineExpr& e = ref.index[a];
      if (e.isConstant()) continue;
      int& n = nodeOf[ref.tensor][a];
      if (n < 0) {
        n = static_cast<int>(nodes.size());
        nodes.push_back({ref.tensor, static_cast<int>(a), {}});
      }
      auto& refs = nodes[n].refs;
      if (std::find(refs.begin(), refs.end(), e) == refs.end()) refs.push_back(e);
    }
  }

  // Complex dimension sets: dimensions sharing a loop variable are joined.
  UnionFind uf(static_cast<int>(nodes.size()));
  std::vector<int> firstNodeOfVar(loopCount, -1);
  for (int n = 0; n < static_cast<int>(nodes.size()); ++n) {
    for (const auto& e : nodes[n].refs) {
      for (const auto& [var, coeff] : e.terms) {
        (void)coeff;
        if (firstNodeOfVar[var] < 0) {
          firstNodeOfVar[var] = n;
        } else {
          uf.join(n, firstNodeOfVar[var]);
        }
      }
    }
  }

  // Order nodes by tensor declaration order and axis; sets follow their first node.
  std::vector<int> order(nodes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return std::tie(nodes[a].tensor, nodes[a].axis) < std::tie(nodes[b].tensor, nodes[b].axis);
  });
  std::vector<int> setOfRoot(nodes.size(), -1);
  for (int n : order) {
    int root = uf.find(n);
    if (setOfRoot[root] < 0) {
      setOfRoot[root] = static_cast<int>(out.sets.size());
      out.sets.emplace_back();
    }
    DimensionSet& ds = out.sets[setOfRoot[root]];
    const auto extents = tensorExtents(k, nodes[n].tensor, s);
    ds.dims.push_back({nodes[n].tensor, nodes[n].axis, extents[nodes[n].axis], nodes[n].refs});
    for (const auto& e : nodes[n].refs) {
      for (const auto& [var, coeff] : e.terms) {
        (void)coeff;
        if (std::find(ds.vars.begin(), ds.vars.end(), var) == ds.vars.end()) ds.vars.push_back(var);
      }
    }
  }

  // Candidates and their rule-1 classes.
  for (auto& ds : out.sets) {
    std::vector<std::pair<AffineExpr, std::int64_t>> classes;
    for (const auto& d : ds.dims) {
      for (const auto& e : d.references) {
        if (!e.isSingleVar() || e.terms[0].second <= 0) continue;  // only increasing single-variable maps
        RepresentativeMapping m{d.tensor, d.axis, e, e.terms[0].first, d.extent, -1};
        auto it = std::find(classes.begin(), classes.end(), std::make_pair(e, d.extent));
        m.equivalenceClass = static_cast<int>(it - classes.begin());
        if (it == classes.end()) classes.emplace_back(e, d.extent);
        ds.candidates.push_back(std::move(m));
      }
    }
    ds.classCount = static_cast<int>(classes.size());
  }

  // SIMD set: the contiguous (last) dimension of the largest tensor.
  std::int64_t best = -1;
  int bestTensor = -1;
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    if (k.tensors[t].shape.empty()) continue;
    const auto ext = tensorExtents(k, static_cast<int>(t), s);
    std::int64_t elems = 1;
    for (auto e : ext)
      elems = (elems > (std::int64_t{1} << 62) / std::max<std::int64_t>(e, 1)) ? elems : elems * e;
    if (elems > best) {
      best = elems;
      bestTensor = static_cast<int>(t);
    }
  }
  if (bestTensor >= 0) {
    const int lastAxis = static_cast<int>(k.tensors[bestTensor].shape.size()) - 1;
    const int n = nodeOf[bestTensor][lastAxis];
    if (n >= 0) {
      out.simdSet = setOfRoot[uf.find(n)];
      out.sets[out.simdSet].simd = true;
    }
  }
  return out;
}

std::string mappingLabel(const Kernel& k, const RepresentativeMapping& m) {
  const auto names = k.loopVarNames();
  return tensorDimName(k, m.tensor, m.axis) + "^" + m.fn.str(names);
}

std::string dimensionSetLabel(const Kernel& k, const DimensionSet& ds) {
  const auto names = k.loopVarNames();
  std::string out = "(";
  for (std::size_t i = 0; i < ds.dims.size(); ++i) {
    if (i) out += ", ";
    out += tensorDimName(k, ds.dims[i].tensor, ds.dims[i].axis) + "={";
    for (std::size_t r = 0; r < ds.dims[i].references.size(); ++r) {
      if (r) out += ",";
      out += ds.dims[i].references[r].str(names);
    }
    out += "}";
  }
  return out + ")";
}

}  // namespace pim
