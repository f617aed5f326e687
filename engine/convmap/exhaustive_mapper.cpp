// SPDX-License-Identifier: Apache-2.0
// The exhaustive mapper: every distinct valid mapping, up to two equivalences that cannot change any number
// the model reports (docs/convmap.md "Mappers"):
//  - level 0's temporal order: no level lies below the PE buffers, so no fill depends on it, and the trace
//  and
//    the row activations read only the loops of levels >= 1 (one canonical order, ascending dims);
//  - layouts: a tensor's layout and the input's block change only that tensor's row activations, which enter
//    the objective only through that tensor's own DRAM time, a term of a maximum (latency) or nothing
//    (energy): each tensor takes its layout with the fewest activations (ties: sequential first, then smaller
//    blocks).
// Factors, loop orders of levels >= 1 and bypass are enumerated whole. A completed walk is optimal with gap
// 0; one stopped by the time limit or Ctrl-C reports its incumbent with its gap to the analytic lower bound,
// and one whose incumbent comes within MapOptions::gap of that bound stops there.
#include <algorithm>
#include <chrono>

#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapspace.h"

namespace pim::convmap {

namespace {

/// A (level, slot) place a factor may sit in.
struct Place {
  int level, slot;
};

std::vector<Place> placesOf(const Hierarchy& h) {
  std::vector<Place> p;
  const std::array<std::int64_t, 3> limit = {h.pe.height, h.pe.width, h.pe.internal};
  for (int s : {SlotH, SlotW, SlotInternal})
    if (limit[s] > 1) p.push_back({0, s});
  for (int lv = 0; lv < static_cast<int>(h.levels.size()); ++lv) p.push_back({lv, SlotTemporal});
  return p;
}

/// Every ordered factorisation of n into `k` factors.
void factorisations(std::int64_t n, std::size_t k, std::vector<std::int64_t>& cur,
                    std::vector<std::vector<std::int64_t>>& out) {
  if (cur.size() + 1 == k) {
    cur.push_back(n);
    out.push_back(cur);
    cur.pop_back();
    return;
  }
  for (auto d : divisors(n)) {
    cur.push_back(d);
    factorisations(n / d, k, cur, out);
    cur.pop_back();
  }
}

std::int64_t factorial(std::int64_t n) { return n <= 1 ? 1 : n * factorial(n - 1); }

class Walk {
 public:
  Walk(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
       const std::function<void(const MapProgress&)>& progress)
      : m_layer(layer), m_h(h), m_o(o), m_progress(progress), m_places(placesOf(h)), m_start(clock::now()) {
    for (int d = 0; d < kDims; ++d) {
      std::vector<std::int64_t> cur;
      factorisations(layer.bound[d], m_places.size(), cur, m_options[d]);
    }
    for (int lv = 0; lv < h.dramLevel(); ++lv)
      for (int t = 0; t < kTensors; ++t)
        if (h.levels[lv].stores[t] && !h.levels[lv].bypassFixed) m_optionalKeeps.push_back({lv, t});
  }

  /// Mappings the walk visits (factor choices x orders of levels >= 1 x bypass choices), counted without
  /// evaluating any; the count stops once it passes `limit` (counting a large space is itself long).
  double size(double limit) {
    const double keeps = static_cast<double>(std::int64_t{1} << m_optionalKeeps.size());
    double total = 0;
    forEachFactorChoice([&](const ConvMapping& m) {
      double orders = 1;
      for (std::size_t lv = 1; lv < m.levels.size(); ++lv)
        orders *= static_cast<double>(factorial(static_cast<std::int64_t>(m.levels[lv].order.size())));
      total += orders * keeps;
      if (total > limit) m_stop = true;
    });
    m_stop = false;
    return total;
  }

  MapResult run(const std::string& name) {
    m_result.mapper = name;
    m_bound = objectiveLowerBound(m_layer, m_h, m_o.objective);
    if (m_o.start && isValid(m_layer, m_h, *m_o.start)) offer(*m_o.start);
    forEachFactorChoice([&](ConvMapping& m) {
      if (!stopped()) forEachOrder(m, 1);
    });
    m_result.seconds = seconds();
    if (m_result.valid == 0) throw InputError("layer " + m_layer.name + ": no valid mapping on " + m_h.name);
    if (!m_best)
      throw InputError("layer " + m_layer.name + ": no valid mapping on " + m_h.name + " within " +
                       std::to_string(m_o.maxLatencyCycles.value_or(0)) + " cycles");
    m_result.status = stopped() ? "feasible" : "optimal";
    if (!stopped()) {
      m_result.bound = m_result.objective;
      m_result.gap = 0.0;
      m_result.boundSource = "exhaustive walk";
    } else {
      applyAnalyticBound(m_result, m_layer, m_h, m_o.objective);
    }
    return m_result;
  }

 private:
  using clock = std::chrono::steady_clock;

  double seconds() const { return std::chrono::duration<double>(clock::now() - m_start).count(); }
  bool stopped() const { return m_stop || (m_o.cancel && m_o.cancel->load()); }

  /// Calls f on every choice of factors that respects the PE array's slots (a dim spatial in one slot at
  /// most).
  template <class F>
  void forEachFactorChoice(F&& f) {
    ConvMapping m = trivialMapping(m_layer, m_h);
    for (auto& l : m.levels) {
      for (auto& s : l.factor) s.fill(1);
      l.order.clear();
    }
    chooseDim(0, m, f);
  }

  template <class F>
  void chooseDim(int d, ConvMapping& m, F& f) {
    if (d == kDims) {
      for (std::size_t lv = 0; lv < m.levels.size(); ++lv) {
        auto& l = m.levels[lv];
        l.order.clear();
        for (int x = 0; x < kDims; ++x)
          if (l.factor[SlotTemporal][x] > 1) l.order.push_back(x);
      }
      f(m);
      return;
    }
    for (const auto& choice : m_options[d]) {
      int spatial = 0;
      for (std::size_t i = 0; i < m_places.size(); ++i) {
        m.levels[m_places[i].level].factor[m_places[i].slot][d] = choice[i];
        spatial += m_places[i].slot != SlotTemporal && choice[i] > 1;
      }
      if (spatial <= 1 && spatialFits(m) && !m_stop) chooseDim(d + 1, m, f);
    }
    for (const auto& p : m_places) m.levels[p.level].factor[p.slot][d] = 1;
  }

  bool spatialFits(const ConvMapping& m) const {
    return spatialProduct(m, SlotH) <= m_h.pe.height && spatialProduct(m, SlotW) <= m_h.pe.width &&
           spatialProduct(m, SlotInternal) <= m_h.pe.internal;
  }

  void forEachOrder(ConvMapping& m, std::size_t lv) {
    if (lv == m.levels.size()) {
      forEachKeep(m, 0);
      return;
    }
    auto& order = m.levels[lv].order;
    std::sort(order.begin(), order.end());
    do {
      forEachOrder(m, lv + 1);
    } while (!stopped() && std::next_permutation(order.begin(), order.end()));
  }

  void forEachKeep(ConvMapping& m, std::size_t i) {
    if (i == m_optionalKeeps.size()) {
      visit(m);
      return;
    }
    const auto [lv, t] = m_optionalKeeps[i];
    for (bool keep : {true, false}) {
      m.levels[lv].keep[t] = keep;
      forEachKeep(m, i + 1);
    }
    m.levels[lv].keep[t] = true;
  }

  void visit(const ConvMapping& candidate) {
    ++m_result.evaluated;
    if ((m_result.evaluated & 1023) == 0) {
      if (seconds() > m_o.timeLimitSeconds) m_stop = true;
      if (m_progress)
        m_progress({m_result.evaluated, m_result.valid, m_best, seconds(), std::nullopt, std::nullopt,
                    "exhaustive"});
    }
    if (!isValid(m_layer, m_h, candidate)) return;
    ConvMapping m = candidate;  // copied only when valid: most candidates are not
    chooseFewestActivationLayouts(m_layer, m_h, m);
    offer(m);
  }

  /// Evaluates a valid mapping and keeps it when it is feasible and the best so far.
  void offer(const ConvMapping& m) {
    ConvCost c;
    try {
      c = evaluateValid(m_layer, m_h, m);
    } catch (const InputError&) {  // a count past int64: not a mapping to keep
      return;
    }
    ++m_result.valid;
    if (m_o.collectFront) m_result.front.add({c.latencyCycles, c.energyPj, c.rowActs.total(), m});
    if (!feasible(m_o, c)) return;
    const double obj = objectiveValue(m_o.objective, c);
    if (!m_best || obj < *m_best) {
      m_best = obj;
      m_result.objective = obj;
      m_result.mapping = m;
      m_result.cost = std::move(c);
      m_result.bestSoFar.push_back(obj);
      if (withinGap(m_o, obj, m_bound)) m_stop = true;  // proven close enough: the rest cannot matter
    }
  }

  const ConvLayer& m_layer;
  const Hierarchy& m_h;
  const MapOptions& m_o;
  const std::function<void(const MapProgress&)>& m_progress;
  std::vector<Place> m_places;
  std::array<std::vector<std::vector<std::int64_t>>, kDims> m_options;
  std::vector<std::pair<int, int>> m_optionalKeeps;
  clock::time_point m_start;
  MapResult m_result;
  std::optional<double> m_best;
  double m_bound = 0;  // the analytic lower bound of the objective
  bool m_stop = false;
};

class ExhaustiveMapper final : public IConvMapper {
 public:
  std::string name() const override { return "exhaustive"; }
  std::string description() const override {
    return "every distinct valid mapping (level 0's order and each tensor's layout by proven dominance); "
           "optimal "
           "when it completes";
  }
  MapResult solve(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                  const std::function<void(const MapProgress&)>& progress) const override {
    requireFits(layer, h);
    Walk walk(layer, h, o, progress);
    if (walk.size(static_cast<double>(kMaxExhaustiveMappings)) > static_cast<double>(kMaxExhaustiveMappings))
      throw InputError("exhaustive: layer " + layer.name + " (" + shapeText(layer) + ") has more than " +
                       std::to_string(kMaxExhaustiveMappings) + " mappings to walk on " + h.name +
                       "; use --mapper heuristic or auto");
    return walk.run(name());
  }
};

}  // namespace

std::unique_ptr<IConvMapper> makeExhaustiveMapper() { return std::make_unique<ExhaustiveMapper>(); }

double exhaustiveSize(const ConvLayer& layer, const Hierarchy& h, double limit) {
  static const std::function<void(const MapProgress&)> none;
  const MapOptions o;
  return Walk(layer, h, o, none).size(limit);
}

}  // namespace pim::convmap
