// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/mapping.h"

#include <algorithm>

namespace pim::convmap {

std::string_view layoutName(Layout l) { return l == Layout::Sequential ? "sequential" : "row-aligned"; }

ConvMapping trivialMapping(const ConvLayer& layer, const Hierarchy& h) {
  ConvMapping m;
  m.levels.resize(h.levels.size());
  for (std::size_t lv = 0; lv < h.levels.size(); ++lv) {
    for (auto& f : m.levels[lv].factor) f.fill(1);
    m.levels[lv].keep = h.levels[lv].stores;
  }
  auto& dram = m.levels.back();
  for (int d = 0; d < kDims; ++d) {
    dram.factor[SlotTemporal][d] = layer.bound[d];
    if (layer.bound[d] > 1) dram.order.push_back(d);
  }
  return m;
}

std::vector<NestLoop> temporalLoops(const ConvMapping& m, int aboveLevel) {
  std::vector<NestLoop> loops;
  for (int lv = static_cast<int>(m.levels.size()) - 1; lv >= aboveLevel; --lv) {
    const auto& l = m.levels[lv];
    for (auto it = l.order.rbegin(); it != l.order.rend(); ++it)
      loops.push_back({*it, lv, l.factor[SlotTemporal][*it]});
  }
  return loops;
}

DimFactors tileExtents(const ConvMapping& m, int level, bool perPe) {
  DimFactors e;
  e.fill(1);
  for (int lv = 0; lv <= level; ++lv)
    for (int s = 0; s < kSlots; ++s) {
      if (perPe && lv == 0 && (s == SlotH || s == SlotW)) continue;
      for (int d = 0; d < kDims; ++d) e[d] *= m.levels[lv].factor[s][d];
    }
  return e;
}

std::int64_t tileElements(const ConvLayer& layer, const DimFactors& e, int tensor) {
  switch (tensor) {
    case Input:
      return e[N] * e[C] * ConvLayer::windowExtent(e[Q], e[S], layer.strideH, layer.dilH) *
             ConvLayer::windowExtent(e[P], e[R], layer.strideW, layer.dilW);
    case Weight:
      return e[K] * e[C] * e[S] * e[R];
    default:
      return e[N] * e[K] * e[Q] * e[P];
  }
}

std::array<std::int64_t, kTensors> levelTileBytes(const ConvLayer& layer, const ConvMapping& m, int lv) {
  const auto e = tileExtents(m, lv, lv == 0);
  std::array<std::int64_t, kTensors> out{};
  for (int t = 0; t < kTensors; ++t) out[t] = tileElements(layer, e, t) * layer.elementBytes[t];
  return out;
}

std::int64_t keptBytes(const ConvMapping& m, int lv, const std::array<std::int64_t, kTensors>& tileBytes) {
  std::int64_t bytes = 0;
  for (int t = 0; t < kTensors; ++t)
    if (m.levels[lv].keep[t]) bytes += tileBytes[t];
  return bytes;
}

// fills() and distinctTiles() walk the loops above `level` in place, inner to outer (each level's order is
// listed inner to outer), rather than through temporalLoops(): the mappers ask them of every mapping they
// weigh, and the list cost an allocation each time.
std::int64_t fills(const ConvMapping& m, int level, int tensor) {
  std::int64_t f = 1;
  bool moved = false;  // walking inner to outer: has a relevant loop of bound > 1 been passed?
  for (std::size_t lv = level + 1; lv < m.levels.size(); ++lv)
    for (int d : m.levels[lv].order) {
      const auto bound = m.levels[lv].factor[SlotTemporal][d];
      if (!moved && bound > 1 && relevant(d, tensor)) moved = true;
      if (moved) f *= bound;
    }
  return f;
}

std::int64_t distinctTiles(const ConvMapping& m, int level, int tensor) {
  std::int64_t n = 1;
  for (std::size_t lv = level + 1; lv < m.levels.size(); ++lv)
    for (int d : m.levels[lv].order)
      if (relevant(d, tensor)) n *= m.levels[lv].factor[SlotTemporal][d];
  return n;
}

int dramChild(const ConvMapping& m, int tensor) {
  for (int lv = static_cast<int>(m.levels.size()) - 2; lv >= 0; --lv)
    if (m.levels[lv].keep[tensor]) return lv;
  return -1;
}

int reuseClass(const std::vector<int>& order) {
  if (order.empty()) return 0;
  int sparing = 0;  // the tensor the innermost loop is irrelevant to
  while (relevant(order.front(), sparing)) ++sparing;
  int run = 0;
  for (int d : order) {
    if (relevant(d, sparing)) break;
    run |= 1 << d;
  }
  return run;
}

std::vector<std::vector<int>> ordersOfDistinctReuse(std::vector<int> dims) {
  std::sort(dims.begin(), dims.end());
  std::vector<std::vector<int>> out;
  std::vector<int> seen;
  do {
    const int c = reuseClass(dims);
    if (std::find(seen.begin(), seen.end(), c) != seen.end()) continue;
    seen.push_back(c);
    out.push_back(dims);
  } while (std::next_permutation(dims.begin(), dims.end()));
  return out;
}

bool orderSetsOnlyReuse(const ConvMapping& m, int level) {
  if (level < 1 || level + 1 >= static_cast<int>(m.levels.size())) return false;
  for (int t = 0; t < kTensors; ++t)
    if (dramChild(m, t) < level) return false;
  return true;
}

std::int64_t inputWindowPositions(const ConvLayer& layer, const ConvMapping& m) {
  const auto e = tileExtents(m, std::max(dramChild(m, Input), 0));
  std::int64_t n = 1;
  for (int d : {P, Q, R, S}) n *= layer.bound[d] / e[d];
  return n;
}

double traceIterations(const ConvMapping& m) {
  double n = 1;
  for (const auto& l : temporalLoops(m, 1)) n *= static_cast<double>(l.bound);
  return n;
}

std::int64_t spatialProduct(const ConvMapping& m, int slot) {
  std::int64_t p = 1;
  for (auto f : m.levels.front().factor[slot]) p *= f;
  return p;
}

namespace {

std::string at(const Hierarchy& h, int lv) { return h.levels[lv].name; }

/// Where the checks report a broken limit. violations() keeps every finding with its message; isValid() needs
/// only whether there is one, so it builds no message and stops at the first (the mappers ask it of every
/// candidate, most of which break a limit).
class Findings {
 public:
  explicit Findings(std::vector<LimitViolation>* out) : m_out(out) {}
  template <class Message>
  void add(const char* limit, Message&& message) {
    m_any = true;
    if (m_out) m_out->push_back({limit, message()});
  }
  bool any() const { return m_any; }
  /// The verdict is known and no message is wanted: the remaining checks can be skipped.
  bool settled() const { return m_any && !m_out; }

 private:
  std::vector<LimitViolation>* m_out;
  bool m_any = false;
};

void checkFactors(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m, Findings& out) {
  for (int d = 0; d < kDims && !out.settled(); ++d) {
    std::int64_t product = 1;
    bool bad = false;
    for (std::size_t lv = 0; lv < m.levels.size(); ++lv)
      for (int s = 0; s < kSlots; ++s) {
        const auto f = m.levels[lv].factor[s][d];
        if (f < 1 || f > layer.bound[d]) bad = true;
        if (lv > 0 && s != SlotTemporal && f != 1)
          out.add("spatial", [&] {
            return at(h, static_cast<int>(lv)) + ": dimension " + std::string(kDimNames[d]) +
                   " has a spatial factor " + std::to_string(f) +
                   " above the PE level (only level 0 unrolls)";
          });
        if (!bad) product *= f;
      }
    if (bad || product != layer.bound[d])
      out.add("factorisation", [&] {
        return "dimension " + std::string(kDimNames[d]) + ": factors multiply to " +
               (bad ? std::string("an invalid product") : std::to_string(product)) + ", not its bound " +
               std::to_string(layer.bound[d]);
      });
  }
}

void checkSpatial(const ConvLayer&, const Hierarchy& h, const ConvMapping& m, Findings& out) {
  const auto& pe = m.levels.front();
  for (int d = 0; d < kDims; ++d) {
    int spatial = 0;
    for (int s : {SlotH, SlotW, SlotInternal}) spatial += pe.factor[s][d] > 1;
    if (spatial > 1)
      out.add("spatial", [&] {
        return "dimension " + std::string(kDimNames[d]) +
               " is unrolled in more than one of H, W and Internal (pimopt eq. 13)";
      });
  }
  const std::array<std::int64_t, 3> limit = {h.pe.height, h.pe.width, h.pe.internal};
  for (int s : {SlotH, SlotW, SlotInternal}) {
    const auto p = spatialProduct(m, s);
    if (p > limit[s])
      out.add("PE array", [&] {
        return std::string(kSlotNames[s]) + " unrolls " + std::to_string(p) + " but the array has " +
               std::to_string(limit[s]);
      });
  }
}

/// Each temporal loop with a factor above 1 listed once in the level's order, nothing else.
bool orderListsTheTemporalLoops(const LevelMapping& l) {
  std::array<int, kDims> listed{};
  for (int d : l.order) {
    if (d < 0 || d >= kDims) return false;
    ++listed[d];
  }
  for (int d = 0; d < kDims; ++d)
    if (listed[d] != (l.factor[SlotTemporal][d] > 1 ? 1 : 0)) return false;
  return true;
}

void checkOrderAndKeep(const ConvLayer&, const Hierarchy& h, const ConvMapping& m, Findings& out) {
  for (std::size_t lv = 0; lv < m.levels.size(); ++lv) {
    const auto& l = m.levels[lv];
    const auto name = [&] { return at(h, static_cast<int>(lv)); };
    if (!orderListsTheTemporalLoops(l))
      out.add("order", [&] {
        return name() + ": the loop order must list each temporal loop with a factor above 1 once";
      });
    const auto& decl = h.levels[lv];
    for (int t = 0; t < kTensors; ++t) {
      const bool isDram = lv + 1 == m.levels.size();
      if (l.keep[t] && !decl.stores[t])
        out.add("bypass", [&] { return name() + " cannot store the " + std::string(kTensorNames[t]); });
      else if (!l.keep[t] && (isDram || decl.bypassFixed) && decl.stores[t])
        out.add("bypass", [&] {
          return name() + " must keep the " + std::string(kTensorNames[t]) +
                 (isDram ? " (DRAM holds every tensor)" : " (its bypass is fixed)");
        });
    }
  }
}

/// The PE array reads its operands from a buffer, never from DRAM directly.
void checkKeptBelowDram(const ConvLayer&, const Hierarchy& h, const ConvMapping& m, Findings& out) {
  for (int t = 0; t < kTensors; ++t) {
    bool kept = false;
    for (int lv = 0; lv < h.dramLevel(); ++lv) kept = kept || m.levels[lv].keep[t];
    if (!kept)
      out.add("bypass", [&] {
        return "no level below " + h.dram().name + " keeps the " + std::string(kTensorNames[t]) +
               " (the PEs read operands from a buffer)";
      });
  }
}

void checkCapacity(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m, Findings& out) {
  for (int lv = 0; lv < h.dramLevel() && !out.settled(); ++lv) {
    const auto tensorBytes = levelTileBytes(layer, m, lv);
    const auto bytes = keptBytes(m, lv, tensorBytes);
    const auto cap = h.levels[lv].capacityBytes(h.elementBytes);
    if (bytes > cap)
      out.add("capacity", [&] {
        std::string parts;
        for (int t = 0; t < kTensors; ++t)
          if (m.levels[lv].keep[t])
            parts += (parts.empty() ? "" : " + ") + std::string(kTensorNames[t]) + " " +
                     std::to_string(tensorBytes[t]);
        return at(h, lv) + " holds " + std::to_string(bytes) + " B (" + parts + ") of " +
               std::to_string(cap) + " B" + (lv == 0 ? " per PE" : "");
      });
  }
}

void checkLayout(const ConvLayer& layer, const Hierarchy&, const ConvMapping& m, Findings& out) {
  if (m.layout[Input] == Layout::RowAligned && dramChild(m, Input) >= 0) {
    const auto positions = inputWindowPositions(layer, m);
    if (positions > kMaxWindowPositions)
      out.add("model", [&] {
        return "a row-aligned input with " + std::to_string(positions) +
               " tile positions (the model walks at most " + std::to_string(kMaxWindowPositions) +
               "; larger DRAM tiles or a sequential input)";
      });
  }
  if (m.layout[Input] == Layout::RowAligned) {
    const auto w = layer.inputWidth(), hgt = layer.inputHeight();
    if (m.blockH < 1 || m.blockW < 1 || hgt % m.blockH || w % m.blockW)
      out.add("layout", [&] {
        return "a row-aligned input needs a block dividing its " + std::to_string(hgt) + " x " +
               std::to_string(w) + " plane (got " + std::to_string(m.blockH) + " x " +
               std::to_string(m.blockW) + ")";
      });
  } else if (m.blockH || m.blockW) {
    out.add("layout", [] { return std::string("a block is given for a sequential input"); });
  }
}

void check(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m, Findings& out) {
  if (m.levels.size() != h.levels.size()) {
    out.add("levels", [&] {
      return "the mapping has " + std::to_string(m.levels.size()) + " levels, " + h.name + " has " +
             std::to_string(h.levels.size());
    });
    return;
  }
  checkFactors(layer, h, m, out);
  if (out.any()) return;  // the rest assumes a factorisation
  for (auto step : {&checkSpatial, &checkOrderAndKeep, &checkKeptBelowDram, &checkCapacity, &checkLayout}) {
    if (out.settled()) return;
    step(layer, h, m, out);
  }
}

}  // namespace

std::vector<LimitViolation> violations(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m) {
  std::vector<LimitViolation> out;
  Findings findings(&out);
  check(layer, h, m, findings);
  return out;
}

bool isValid(const ConvLayer& layer, const Hierarchy& h, const ConvMapping& m) {
  Findings findings(nullptr);
  check(layer, h, m, findings);
  return !findings.any();
}

namespace {
std::string factorList(const DimFactors& f, const std::vector<int>& dims) {
  std::string s;
  for (int d : dims)
    if (f[d] > 1) s += (s.empty() ? "" : ",") + std::string(kDimNames[d]) + std::to_string(f[d]);
  return s;
}
std::vector<int> allDims() { return {R, S, P, Q, C, K, N}; }
}  // namespace

std::string mappingLabel(const Hierarchy& h, const ConvMapping& m) {
  std::string s;
  for (int lv = 0; lv < static_cast<int>(m.levels.size()); ++lv) {
    const auto& l = m.levels[lv];
    std::string part;
    if (lv == 0)
      for (int sl : {SlotH, SlotW, SlotInternal}) {
        const auto f = factorList(l.factor[sl], allDims());
        if (!f.empty()) part += std::string(kSlotNames[sl].substr(0, 1)) + " " + f + " ";
      }
    std::vector<int> outer(l.order.rbegin(), l.order.rend());
    const auto t = factorList(l.factor[SlotTemporal], outer);
    if (!t.empty()) part += (lv == 0 && !part.empty() ? "T " : "") + t;
    if (part.empty()) continue;
    if (part.back() == ' ') part.pop_back();
    s += (s.empty() ? "" : " | ") + h.levels[lv].name + ": " + part;
  }
  return s.empty() ? "(one iteration)" : s;
}

std::string loopNestText(const Hierarchy& h, const ConvMapping& m) {
  std::string s, indent;
  for (const auto& l : temporalLoops(m, 1)) {
    s += indent + "for " + std::string(kDimNames[l.dim]) + " in [0, " + std::to_string(l.bound) + ")  # " +
         h.levels[l.level].name + "\n";
    indent += "  ";
  }
  const auto& pe = m.levels.front();
  for (int sl : {SlotH, SlotW, SlotInternal}) {
    const auto f = factorList(pe.factor[sl], allDims());
    if (!f.empty()) s += indent + "parallel-for " + f + "  # PE " + std::string(kSlotNames[sl]) + "\n";
  }
  for (const auto& l : temporalLoops(m, 0))
    if (l.level == 0) {
      s += indent + "for " + std::string(kDimNames[l.dim]) + " in [0, " + std::to_string(l.bound) + ")  # " +
           h.levels[0].name + "\n";
      indent += "  ";
    }
  return s + indent + "MAC\n";
}

}  // namespace pim::convmap
