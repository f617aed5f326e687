// SPDX-License-Identifier: Apache-2.0
// The exhaustive mapper: every distinct valid mapping, up to three equivalences that cannot change any
// number the model reports (docs/convmap.md "Mappers"):
//  - level 0's temporal order: no level lies below the PE buffers, so no fill depends on it, and the trace
//    and the row activations read only the loops of levels >= 1 (one canonical order, ascending dims);
//  - the order of a level between the PE buffers and DRAM at or below every tensor's DRAM child: the model
//    reads it only through the loops it spares (mapping.h: orderSetsOnlyReuse, reuseClass), so one order per
//    reuse class;
//  - layouts: a tensor's layout and the input's block change only that tensor's row activations, which enter
//    the objective only through that tensor's own DRAM time, a term of a maximum (latency) or nothing
//    (energy): each tensor takes its layout with the fewest activations (ties: sequential first, then smaller
//    blocks).
// Factors and bypass are enumerated whole, and the other orders of levels >= 1. A completed walk is optimal
// with gap 0; one stopped by the time limit or Ctrl-C reports its incumbent with its gap to the analytic
// lower bound, and one whose incumbent comes within MapOptions::gap of that bound stops there.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

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

  /// Whether the walk visits at most `limit` mappings (factor choices x bypass choices x orders of levels >=
  /// 1, one per reuse class where orderSetsOnlyReuse), counted without evaluating any. Every order of every
  /// level is counted first, which is cheap; only a space above the limit by that count is counted exactly
  /// (each bypass choice, then each level's reuse classes: 9 % of a small walk's time when always done). The
  /// exact count stops once it passes the limit (counting a large space is itself long).
  bool fits(double limit) {
    const double keeps = std::ldexp(1.0, static_cast<int>(m_optionalKeeps.size()));
    if (count(limit, [&](ConvMapping& m) { return keeps * orderCount(m, false); }) <= limit) return true;
    return count(limit, [&](ConvMapping& m) {
             double n = 0;
             forEachKeep(m, 0, [&](ConvMapping& k) { n += orderCount(k, true); });
             return n;
           }) <= limit;
  }

  MapResult run(const std::string& name) {
    m_result.mapper = name;
    m_bound = objectiveLowerBound(m_layer, m_h, m_o.objective);
    if (m_o.start && isValid(m_layer, m_h, *m_o.start)) offer(*m_o.start);
    forEachFactorChoice([&](ConvMapping& m) {
      forEachKeep(m, 0, [&](ConvMapping& k) {
        if (!stopped()) forEachOrder(k, 1);
      });
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

  /// The sum of `perChoice` over the factor choices, stopped once it passes `limit`.
  template <class F>
  double count(double limit, F&& perChoice) {
    double total = 0;
    forEachFactorChoice([&](ConvMapping& m) {
      total += perChoice(m);
      if (total > limit) m_stop = true;
    });
    m_stop = false;
    return total;
  }

  /// The orders of levels >= 1 the walk visits for `m`: every order of each, or (`byReuse`) ordersAt's.
  double orderCount(const ConvMapping& m, bool byReuse) {
    double n = 1;
    for (std::size_t lv = 1; lv < m.levels.size(); ++lv)
      n *= byReuse ? static_cast<double>(ordersAt(m, lv).size())
                   : std::tgamma(static_cast<double>(m.levels[lv].order.size()) + 1);
    return n;
  }

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

  /// The orders level `lv` takes: every order of its loops, or one per reuse class where the model reads
  /// nothing else of it (orderSetsOnlyReuse).
  const std::vector<std::vector<int>>& ordersAt(const ConvMapping& m, std::size_t lv) {
    int mask = 0;
    for (int d : m.levels[lv].order) mask |= 1 << d;
    const bool reuseOnly = orderSetsOnlyReuse(m, static_cast<int>(lv));
    auto& cached = m_orders[reuseOnly][mask];
    if (!cached) {
      std::vector<int> dims;
      for (int d = 0; d < kDims; ++d)
        if (mask >> d & 1) dims.push_back(d);
      if (reuseOnly) {
        cached = ordersOfDistinctReuse(dims);
      } else {
        cached.emplace();
        do cached->push_back(dims);
        while (std::next_permutation(dims.begin(), dims.end()));
      }
    }
    return *cached;
  }

  void forEachOrder(ConvMapping& m, std::size_t lv) {
    if (lv == m.levels.size()) {
      visit(m);
      return;
    }
    const std::vector<int> own = m.levels[lv].order;
    for (const auto& order : ordersAt(m, lv)) {
      if (stopped()) break;
      m.levels[lv].order = order;
      forEachOrder(m, lv + 1);
    }
    m.levels[lv].order = own;
  }

  /// Calls f on every bypass choice the hierarchy allows (the keeps decide which levels' orders matter).
  template <class F>
  void forEachKeep(ConvMapping& m, std::size_t i, F&& f) {
    if (i == m_optionalKeeps.size()) {
      f(m);
      return;
    }
    const auto [lv, t] = m_optionalKeeps[i];
    for (bool keep : {true, false}) {
      m.levels[lv].keep[t] = keep;
      forEachKeep(m, i + 1, f);
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
  // ordersAt's lists per (reuse class only, set of dimensions as a bit mask)
  std::array<std::array<std::optional<std::vector<std::vector<int>>>, 1 << kDims>, 2> m_orders;
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
    return "every distinct valid mapping (level 0's order, the orders that change only the reuse, and each "
           "tensor's layout by proven dominance); optimal when it completes";
  }
  MapResult solve(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                  const std::function<void(const MapProgress&)>& progress) const override {
    requireFits(layer, h);
    Walk walk(layer, h, o, progress);
    if (!walk.fits(static_cast<double>(kMaxExhaustiveMappings)))
      throw InputError("exhaustive: layer " + layer.name + " (" + shapeText(layer) + ") has more than " +
                       std::to_string(kMaxExhaustiveMappings) + " mappings to walk on " + h.name +
                       "; use --mapper heuristic or auto");
    return walk.run(name());
  }
};

}  // namespace

std::unique_ptr<IConvMapper> makeExhaustiveMapper() { return std::make_unique<ExhaustiveMapper>(); }

bool exhaustiveFits(const ConvLayer& layer, const Hierarchy& h, double limit) {
  static const std::function<void(const MapProgress&)> none;
  const MapOptions o;
  return Walk(layer, h, o, none).fits(limit);
}

}  // namespace pim::convmap
