// SPDX-License-Identifier: Apache-2.0
#include "engine/mapping/footprints.h"

#include <algorithm>

namespace pim {
namespace {

// One tensor axis ("slot") and what its index union depends on.
struct Slot {
  std::vector<const AffineExpr*> exprs;  // the axis's index in every reference to the tensor
  std::vector<int> parts;                // parts whose representative variable the expressions use
  bool output = false;
};

struct AxisValue {
  std::int64_t count = 0, lo = 0, hi = 0;
};

AxisValue unionOver(const Slot& s, const std::vector<IndexSet>& loops, IndexingStrategy strategy,
                    std::vector<IndexSet>& scratch) {
  scratch.clear();
  for (const AffineExpr* e : s.exprs) {
    const IndexSet v = evaluateOver(*e, loops);
    scratch.push_back(strategy == IndexingStrategy::Expand ? v.expanded() : v);
  }
  const IndexUnion u = axisUnion(scratch, strategy);
  return {u.count(), u.lo(), u.hi()};
}

DraftFootprints shell(const Kernel& k, const Draft& d, int groupsUsed, int coresPerGroup) {
  DraftFootprints fp;
  fp.draft = d;
  fp.groupsUsed = groupsUsed;
  fp.coresPerGroup = coresPerGroup;
  fp.tensorCount = k.tensors.size();
  for (const Tensor& t : k.tensors) {
    if (t.role == TensorRole::Output) fp.boxSize += 2 * t.shape.size();
  }
  const std::size_t cores = static_cast<std::size_t>(groupsUsed) * static_cast<std::size_t>(coresPerGroup);
  fp.elements.assign(cores * fp.tensorCount, 0);
  fp.idle.assign(cores, 0);
  fp.outputBoxes.assign(cores * fp.boxSize, 0);
  fp.paddedElements.assign(fp.tensorCount, 0);
  return fp;
}

}  // namespace

DraftFootprints mapFootprints(const DraftSpace& space, const Draft& d, IndexingStrategy strategy) {
  const Kernel& k = space.kernel();
  const DimensionSets& sets = space.sets();
  const int parts = space.partCount();
  int groupsUsed = 1, coresPerGroup = 1;
  for (const PartChoice& p : d.parts) {
    groupsUsed *= p.groups;
    coresPerGroup *= p.cores;
  }
  DraftFootprints fp = shell(k, d, groupsUsed, coresPerGroup);

  std::vector<IndexSet> fullLoops;
  for (std::size_t l = 0; l < sets.loopLo.size(); ++l)
    fullLoops.push_back(IndexSet::range(sets.loopLo[l], sets.loopHi[l]));
  // Which part sets each loop variable's range: as in mapDraft, the lowest part whose representative it is.
  std::vector<int> owner(fullLoops.size(), -1);
  for (int i = parts - 1; i >= 0; --i) owner[space.representative(i, d.parts[i]).var] = i;
  // Every part's compute range at every position along it.
  std::vector<std::vector<IndexSet>> range(parts);
  for (int i = 0; i < parts; ++i) {
    const PartChoice& p = d.parts[i];
    for (std::int64_t u = 0; u < std::int64_t{p.groups} * p.cores; ++u)
      range[i].push_back(partTile(space, i, p, u).compute);
  }

  // Tensor axes as slots (tensor-major) with their expressions and the parts they depend on.
  std::vector<std::size_t> axisBase(k.tensors.size() + 1, 0);
  for (std::size_t t = 0; t < k.tensors.size(); ++t)
    axisBase[t + 1] = axisBase[t] + k.tensors[t].shape.size();
  std::vector<Slot> slots(axisBase.back());
  const auto refs = k.references();
  for (const auto& [stmt, ref] : refs) {
    (void)stmt;
    for (std::size_t a = 0; a < ref.index.size(); ++a) {
      Slot& s = slots[axisBase[ref.tensor] + a];
      s.exprs.push_back(&ref.index[a]);
      for (const auto& [var, coeff] : ref.index[a].terms) {
        (void)coeff;
        if (owner[var] >= 0 && std::find(s.parts.begin(), s.parts.end(), owner[var]) == s.parts.end())
          s.parts.push_back(owner[var]);
      }
    }
  }
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    for (std::size_t sl = axisBase[t]; sl < axisBase[t + 1]; ++sl)
      slots[sl].output = k.tensors[t].role == TensorRole::Output;
  }

  // Unions once per slot (no part) or per position of its one part, kept flat: slot sl's value at position u
  // of its part is memo[memoBase[sl] + u]. Slots over several parts: per core.
  constexpr int kNoPart = -1, kSeveralParts = -2;
  std::vector<IndexSet> scratch, loops = fullLoops;
  std::vector<AxisValue> memo;
  std::vector<std::size_t> memoBase(slots.size(), 0);
  std::vector<int> slotPart(slots.size(), kSeveralParts);
  for (std::size_t sl = 0; sl < slots.size(); ++sl) {
    const Slot& s = slots[sl];
    memoBase[sl] = memo.size();
    if (s.parts.empty()) {
      slotPart[sl] = kNoPart;
      memo.push_back(unionOver(s, fullLoops, strategy, scratch));
    } else if (s.parts.size() == 1) {
      const int i = s.parts[0];
      slotPart[sl] = i;
      const int var = space.representative(i, d.parts[i]).var;
      for (const IndexSet& r : range[i]) {
        loops[static_cast<std::size_t>(var)] = r;
        memo.push_back(unionOver(s, loops, strategy, scratch));
      }
      loops[static_cast<std::size_t>(var)] = fullLoops[static_cast<std::size_t>(var)];
    }
  }
  // Per part position: whether no iteration falls on it.
  std::vector<std::vector<std::uint8_t>> emptyAt(static_cast<std::size_t>(parts));
  for (int i = 0; i < parts; ++i)
    for (const IndexSet& r : range[i]) emptyAt[i].push_back(r.empty() ? 1 : 0);

  // Each part's group and core digit of the core being visited, as odometers over the parts (the last part
  // varies fastest, in groups as in cores): u = group digit x cores + core digit.
  std::vector<int> groupDigit(static_cast<std::size_t>(parts), 0), coreDigit(groupDigit);
  auto advance = [&](std::vector<int>& digit, auto radix) {
    for (int i = parts - 1; i >= 0; --i) {
      if (++digit[i] < radix(d.parts[i])) return;
      digit[i] = 0;
    }
  };
  std::vector<std::int64_t> u(static_cast<std::size_t>(parts));
  std::vector<const AxisValue*> value(slots.size());
  std::vector<AxisValue> several(slots.size());
  for (int g = 0; g < groupsUsed; ++g, advance(
                                           groupDigit, [](const PartChoice& p) { return p.groups; })) {
    std::fill(coreDigit.begin(), coreDigit.end(), 0);
    for (int c = 0; c < coresPerGroup; ++c, advance(
                                                coreDigit, [](const PartChoice& p) { return p.cores; })) {
      bool idle = false;
      for (int i = 0; i < parts; ++i) {
        u[i] = std::int64_t{groupDigit[i]} * d.parts[i].cores + coreDigit[i];
        idle = idle || emptyAt[i][static_cast<std::size_t>(u[i])] != 0;
      }
      bool loopsSet = false;
      for (std::size_t sl = 0; sl < slots.size(); ++sl) {
        const int part = slotPart[sl];
        if (part != kSeveralParts) {
          value[sl] = &memo[memoBase[sl] + (part == kNoPart ? 0 : static_cast<std::size_t>(u[part]))];
          continue;
        }
        if (!loopsSet) {
          for (int i = 0; i < parts; ++i) {
            const int var = space.representative(i, d.parts[i]).var;
            if (owner[var] == i)
              loops[static_cast<std::size_t>(var)] = range[i][static_cast<std::size_t>(u[i])];
          }
          loopsSet = true;
        }
        several[sl] = unionOver(slots[sl], loops, strategy, scratch);
        value[sl] = &several[sl];
      }
      const std::size_t core = fp.coreIndex(g, c);
      fp.idle[core] = idle ? 1 : 0;
      std::int64_t* box = fp.outputBoxes.data() + core * fp.boxSize;
      for (std::size_t t = 0; t < fp.tensorCount; ++t) {
        std::int64_t e = idle ? 0 : 1;
        for (std::size_t sl = axisBase[t]; sl < axisBase[t + 1]; ++sl) {
          e *= value[sl]->count;
          if (slots[sl].output) *box++ = value[sl]->lo, *box++ = value[sl]->hi;
        }
        fp.elements[core * fp.tensorCount + t] = e;
        fp.paddedElements[t] = std::max(fp.paddedElements[t], e);
      }
    }
  }
  return fp;
}

DraftFootprints footprintsOf(const Kernel& k, const TileMapping& m) {
  DraftFootprints fp = shell(k, m.draft, m.groupsUsed, m.coresPerGroup);
  for (std::size_t core = 0; core < m.cores.size(); ++core) {
    const CoreTile& tile = m.cores[core];
    fp.idle[core] = tile.idle ? 1 : 0;
    std::int64_t* box = fp.outputBoxes.data() + core * fp.boxSize;
    for (std::size_t t = 0; t < fp.tensorCount; ++t) {
      fp.elements[core * fp.tensorCount + t] = tile.tensors[t].elements;
      if (k.tensors[t].role != TensorRole::Output) continue;
      for (const IndexUnion& ax : tile.tensors[t].axes) *box++ = ax.lo(), *box++ = ax.hi();
    }
  }
  fp.paddedElements = m.paddedElements;
  return fp;
}

}  // namespace pim
