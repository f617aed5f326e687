// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/mapspace.h"

#include <algorithm>

#include "engine/convmap/row_activation.h"

namespace pim::convmap {

std::vector<std::int64_t> primeFactors(std::int64_t n) {
  std::vector<std::int64_t> p;
  for (std::int64_t d = 2; d * d <= n; ++d)
    while (n % d == 0) {
      p.push_back(d);
      n /= d;
    }
  if (n > 1) p.push_back(n);
  return p;
}

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> lo, hi;
  for (std::int64_t d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      lo.push_back(d);
      if (d != n / d) hi.push_back(n / d);
    }
  lo.insert(lo.end(), hi.rbegin(), hi.rend());
  return lo;
}

void setFactor(ConvMapping& m, int level, int slot, int dim, std::int64_t value) {
  auto& l = m.levels[level];
  l.factor[slot][dim] = value;
  if (slot != SlotTemporal) return;
  auto it = std::find(l.order.begin(), l.order.end(), dim);
  if (value > 1 && it == l.order.end()) l.order.insert(l.order.begin(), dim);
  if (value == 1 && it != l.order.end()) l.order.erase(it);
}

namespace {

template <class T>
T pick(T lo, T hi, std::mt19937_64& rng) {  // uniform in [lo, hi]
  return std::uniform_int_distribution<T>(lo, hi)(rng);
}

/// The (level, slot) places a factor may sit: level 0's four slots, the temporal slot above.
std::vector<std::pair<int, int>> places(const ConvMapping& m) {
  std::vector<std::pair<int, int>> p;
  for (int s = 0; s < kSlots; ++s) p.push_back({0, s});
  for (int lv = 1; lv < static_cast<int>(m.levels.size()); ++lv) p.push_back({lv, SlotTemporal});
  return p;
}

bool moveFactor(const ConvLayer& layer, ConvMapping& m, std::mt19937_64& rng, bool temporalOnly) {
  const int d = pick(0, kDims - 1, rng);
  if (layer.bound[d] == 1) return false;
  auto ps = places(m);
  if (temporalOnly) std::erase_if(ps, [](const auto& p) { return p.first == 0 && p.second != SlotTemporal; });
  const auto [fl, fs] = ps[pick<std::size_t>(0, ps.size() - 1, rng)];
  const auto [tl, ts] = ps[pick<std::size_t>(0, ps.size() - 1, rng)];
  const auto from = m.levels[fl].factor[fs][d];
  if (from == 1 || (fl == tl && fs == ts)) return false;
  const auto primes = primeFactors(from);
  const auto p = primes[pick<std::size_t>(0, primes.size() - 1, rng)];
  setFactor(m, fl, fs, d, from / p);
  setFactor(m, tl, ts, d, m.levels[tl].factor[ts][d] * p);
  return true;
}

bool swapLoops(ConvMapping& m, std::mt19937_64& rng) {
  auto& order = m.levels[pick<std::size_t>(0, m.levels.size() - 1, rng)].order;
  if (order.size() < 2) return false;
  const auto a = pick<std::size_t>(0, order.size() - 1, rng), b = pick<std::size_t>(0, order.size() - 1, rng);
  if (a == b) return false;
  std::swap(order[a], order[b]);
  return true;
}

bool toggleKeep(const Hierarchy& h, ConvMapping& m, std::mt19937_64& rng) {
  const int lv = pick(0, h.dramLevel() - 1, rng), t = pick(0, kTensors - 1, rng);
  const auto& decl = h.levels[lv];
  if (!decl.stores[t] || decl.bypassFixed) return false;
  m.levels[lv].keep[t] = !m.levels[lv].keep[t];
  return true;
}

bool changeLayout(const ConvLayer& layer, ConvMapping& m, std::mt19937_64& rng) {
  const int t = pick(0, kTensors - 1, rng);
  if (t != Input) {
    m.layout[t] = m.layout[t] == Layout::Sequential ? Layout::RowAligned : Layout::Sequential;
    return true;
  }
  // The input: sequential, or row-aligned with a block among the divisors of its plane.
  if (m.layout[Input] == Layout::RowAligned && pick(0, 2, rng) == 0) {
    m.layout[Input] = Layout::Sequential;
    m.blockH = m.blockW = 0;
    return true;
  }
  const auto hs = divisors(layer.inputHeight()), ws = divisors(layer.inputWidth());
  m.layout[Input] = Layout::RowAligned;
  m.blockH = hs[pick<std::size_t>(0, hs.size() - 1, rng)];
  m.blockW = ws[pick<std::size_t>(0, ws.size() - 1, rng)];
  return true;
}

}  // namespace

std::vector<ConvMapping> randomValidMappings(const ConvLayer& layer, const Hierarchy& h, int count,
                                             std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ConvMapping> out;
  ConvMapping m = trivialMapping(layer, h);
  std::int64_t validSteps = 0;
  for (std::int64_t step = 0; step < 200 * std::int64_t{count} && static_cast<int>(out.size()) < count;
       ++step) {
    ConvMapping next = m;
    if (!randomMove(layer, h, next, rng) || !isValid(layer, h, next)) continue;
    m = std::move(next);
    if (++validSteps % 25) continue;
    out.push_back(m);
  }
  return out;
}

bool randomMove(const ConvLayer& layer, const Hierarchy& h, ConvMapping& m, std::mt19937_64& rng,
                bool keepSpatial) {
  const int kind = pick(0, 9, rng);  // factor moves most often: they shape everything else
  if (kind < 6) return moveFactor(layer, m, rng, keepSpatial);
  if (kind < 8) return swapLoops(m, rng);
  if (kind < 9) return toggleKeep(h, m, rng);
  return changeLayout(layer, m, rng);
}

void chooseFewestActivationLayouts(const ConvLayer& layer, const Hierarchy& h, ConvMapping& m) {
  for (int t = 0; t < kTensors; ++t) {
    std::vector<ConvMapping> options;
    ConvMapping v = m;
    v.layout[t] = Layout::Sequential;
    if (t == Input) v.blockH = v.blockW = 0;
    options.push_back(v);
    v.layout[t] = Layout::RowAligned;
    if (t != Input) {
      options.push_back(v);
    } else {
      for (auto bh : divisors(layer.inputHeight()))
        for (auto bw : divisors(layer.inputWidth())) {
          v.blockH = bh;
          v.blockW = bw;
          if (isValid(layer, h, v)) options.push_back(v);
        }
    }
    std::int64_t best = -1;
    for (const auto& o : options) {
      const auto acts = rowActivations(layer, h, o).count[t];
      if (best < 0 || acts < best) {
        best = acts;
        m = o;
      }
    }
  }
}

}  // namespace pim::convmap
