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
// Factors and bypass are enumerated whole, and the other orders of levels >= 1, except where a bound
// (mapping_bound.h; spatial assignments by lower_bound.h's, least first) shows no mapping there can beat the
// incumbent, break the latency bound, or join the front being collected. A completed walk is optimal with gap
// 0; one stopped by the time limit or Ctrl-C reports its incumbent with its gap to the analytic lower bound,
// and one whose incumbent comes within MapOptions::gap of that bound stops there.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapping_bound.h"
#include "engine/convmap/mapspace.h"

namespace pim::convmap {

namespace {

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

/// A bound the walk may pass over a part of the space by: an improvement smaller than this share of the
/// incumbent is not looked for (the bound's and the evaluator's energies are sums in different orders).
constexpr double kPruneTolerance = 1e-12;

class Walk {
 public:
  Walk(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
       const std::function<void(const MapProgress&)>& progress)
      : m_layer(layer), m_h(h), m_o(o), m_progress(progress), m_bound(layer, h), m_start(clock::now()) {
    for (int lv = 0; lv < h.dramLevel(); ++lv)
      for (int t = 0; t < kTensors; ++t)
        if (h.levels[lv].stores[t] && !h.levels[lv].bypassFixed) m_optionalKeeps.push_back({lv, t});
  }

  /// Whether the space holds at most `limit` mappings (factor choices x bypass choices x orders of levels >=
  /// 1, one per reuse class where orderSetsOnlyReuse), counted without evaluating any or bounding any part.
  /// Every order of every level is counted first, which is cheap; only a space above the limit by that count
  /// is counted exactly (each bypass choice, then each level's reuse classes: 9 % of a small walk's time
  /// when always done). The exact count stops once it passes the limit (counting a large space is itself
  /// long).
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
    m_objectiveBound = objectiveLowerBound(m_layer, m_h, m_o.objective);
    if (m_o.start && isValid(m_layer, m_h, *m_o.start)) offer(*m_o.start);
    // Walked least bound first, every assignment before the one being walked is done: a walk stopped there
    // proves no mapping beats the lesser of its incumbent and that assignment's bound.
    double openBound = -std::numeric_limits<double>::infinity();  // none: no bound
    std::size_t done = 0;
    for (const auto& s : spatialsLeastBoundFirst()) {
      if (stopped()) break;
      openBound = s.objectiveBound;
      if (!s.bounded || (!overLatencyBound(s.cost.latencyCycles) && mayImprove(s.cost, openBound))) {
        ConvMapping m = blankMapping(s.factors);
        chooseTemporal(0, m, true, [&](ConvMapping& full) { leaf(full); });
      } else if (!m_o.collectFront && !overLatencyBound(s.cost.latencyCycles)) {
        break;  // its objective bound reaches the incumbent, and every later one's is no less
      }
      if (!stopped()) ++done;
    }
    m_result.seconds = seconds();
    if (!m_best) {
      const bool overBound = m_o.maxLatencyCycles && (m_result.valid > 0 || m_overLatencyBound);
      throw InputError("layer " + m_layer.name + ": no valid mapping on " + m_h.name +
                       (overBound ? " within " + std::to_string(*m_o.maxLatencyCycles) + " cycles" : ""));
    }
    m_result.status = stopped() ? "feasible" : "optimal";
    if (!stopped()) {
      m_result.bound = m_result.objective;
      m_result.gap = 0.0;
      m_result.boundSource = "exhaustive walk";
    } else {
      applyAnalyticBound(m_result, m_layer, m_h, m_o.objective);
      if (std::min(openBound, m_result.objective) > *m_result.bound) {
        m_result.bound = std::min(openBound, m_result.objective);
        m_result.boundSource =
            "exhaustive walk of the " + std::to_string(done) + " array uses of least bound";
        m_result.gap = std::max(0.0, (m_result.objective - *m_result.bound) / m_result.objective);
        if (*m_result.gap < 1e-12) m_result.status = "optimal";
      }
    }
    return m_result;
  }

 private:
  using clock = std::chrono::steady_clock;

  /// A spatial assignment, with what its mappings cost at least when the bound could walk every one.
  struct Spatial {
    SpatialFactors factors;
    bool bounded = false;
    CostBound cost;
    double objectiveBound = -std::numeric_limits<double>::infinity();  // of `cost` (none: unbounded)
  };

  double seconds() const { return std::chrono::duration<double>(clock::now() - m_start).count(); }
  bool stopped() const { return m_stop || (m_o.cancel && m_o.cancel->load()); }

  /// About every thousandth step of the walk: the time limit and a progress report.
  void tick() {
    if ((++m_ticks & 1023) != 0) return;
    if (seconds() > m_o.timeLimitSeconds) m_stop = true;
    if (m_progress)
      m_progress(
          {m_result.evaluated, m_result.valid, m_best, seconds(), std::nullopt, std::nullopt, "exhaustive"});
  }

  /// Every spatial assignment a valid mapping may have, least objective bound first (lower_bound.h); when
  /// they are too many to bound, every assignment the array allows, unbounded.
  std::vector<Spatial> spatialsLeastBoundFirst() const {
    std::vector<Spatial> out;
    const bool bounded = forEachSpatialBound(m_layer, m_h, [&](const SpatialFactors& f, const CostBound& b) {
      out.push_back({f, true, b, objectiveBound(m_o.objective, b)});
    });
    if (bounded) {
      std::stable_sort(out.begin(), out.end(), [](const Spatial& a, const Spatial& b) {
        return a.objectiveBound < b.objectiveBound;
      });
      return out;
    }
    out.clear();
    forEachSpatial(m_layer, m_h, std::numeric_limits<std::int64_t>::max(), [&](const SpatialFactors& f) {
      out.push_back({f, false, {}, -std::numeric_limits<double>::infinity()});
    });
    return out;
  }

  /// Whether mappings of at least this latency all break the latency bound (noted when they do).
  bool overLatencyBound(std::int64_t leastLatency) {
    if (!m_o.pruneByBounds || !m_o.maxLatencyCycles || leastLatency <= *m_o.maxLatencyCycles) return false;
    m_overLatencyBound = true;
    return true;
  }
  /// Whether mappings costing at least `least` (whose objective is at least `objective`) may still matter:
  /// within the latency bound, and below the incumbent or, collecting a front, not covered by it.
  bool mayImprove(const CostPair& least, double objective) {
    if (!m_o.pruneByBounds) return true;
    if (overLatencyBound(least.latencyCycles)) return false;
    if (m_o.collectFront)
      return !m_result.front.covers(least.latencyCycles, least.energyPj, m_bound.leastRowActivations());
    return !m_best || objective < *m_best * (1 - kPruneTolerance);
  }
  bool mayImprove(const CostBound& least, double objective) {
    return mayImprove(CostPair{least.latencyCycles, least.energyPj}, objective);
  }
  bool mayImprove(const CostPair& least) {
    ConvCost c;
    c.latencyCycles = least.latencyCycles;
    c.energyPj = least.energyPj;
    return mayImprove(least, objectiveValue(m_o.objective, c));
  }

  /// The sum of `perChoice` over the factor choices, stopped once it passes `limit`.
  template <class F>
  double count(double limit, F&& perChoice) {
    double total = 0;
    forEachSpatial(m_layer, m_h, std::numeric_limits<std::int64_t>::max(), [&](const SpatialFactors& s) {
      if (m_stop) return;
      ConvMapping m = blankMapping(s);
      chooseTemporal(0, m, false, [&](ConvMapping& full) {
        total += perChoice(full);
        if (total > limit) m_stop = true;
      });
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

  /// Level 0's spatial factors `spatial`, every other factor 1, keeps as the hierarchy stores, no loops.
  ConvMapping blankMapping(const SpatialFactors& spatial) const {
    ConvMapping m = trivialMapping(m_layer, m_h);
    for (auto& l : m.levels) {
      for (auto& s : l.factor) s.fill(1);
      l.order.clear();
    }
    for (int slot : {SlotH, SlotW, SlotInternal}) m.levels.front().factor[slot] = spatial[slot];
    return m;
  }

  /// Calls f on every choice of temporal factors completing m's spatial ones (each dimension's quotient
  /// over the levels), with each level's loops in canonical order. `walking` (not counting): stops on a
  /// cancel, and passes over a partial choice no keeps can fit (tiles only grow as dimensions are chosen).
  template <class F>
  void chooseTemporal(int d, ConvMapping& m, bool walking, F&& f) {
    if (d == kDims) {
      for (auto& l : m.levels) {
        l.order.clear();
        for (int x = 0; x < kDims; ++x)
          if (l.factor[SlotTemporal][x] > 1) l.order.push_back(x);
      }
      f(m);
      return;
    }
    auto& level0 = m.levels.front().factor;
    const auto quotient = m_layer.bound[d] / (level0[SlotH][d] * level0[SlotW][d] * level0[SlotInternal][d]);
    for (const auto& choice : temporalChoices(quotient)) {
      if (m_stop || (walking && stopped())) break;
      for (std::size_t lv = 0; lv < m.levels.size(); ++lv) m.levels[lv].factor[SlotTemporal][d] = choice[lv];
      if (!walking || !m_o.pruneByBounds || m_bound.mayFit(m)) chooseTemporal(d + 1, m, walking, f);
    }
    for (auto& l : m.levels) l.factor[SlotTemporal][d] = 1;
  }

  /// Every ordered factorisation of n over the levels' temporal slots (cached per n).
  const std::vector<std::vector<std::int64_t>>& temporalChoices(std::int64_t n) {
    auto& cached = m_temporal[n];
    if (cached.empty()) {
      std::vector<std::int64_t> cur;
      factorisations(n, m_h.levels.size(), cur, cached);
    }
    return cached;
  }

  /// A choice of every factor: its keeps and orders unless the factors' bound shows they cannot matter.
  void leaf(ConvMapping& m) {
    tick();
    if (!mayImprove(m_bound.ofFactors(m))) return;
    const auto bytes = tileBytes(m);
    forEachKeep(
        m, 0,
        [&](ConvMapping& k) {
          tick();
          if (stopped() || !isValid(m_layer, m_h, k)) return;  // validity does not depend on the orders
          if (mayImprove(m_bound.ofKeeps(k))) forEachOrder(k, 1);
        },
        &bytes);
  }

  /// Each tensor's tile bytes per level below DRAM at m's factors, which its keep choices share.
  using TileBytes = std::vector<std::array<std::int64_t, kTensors>>;
  TileBytes tileBytes(const ConvMapping& m) const {
    TileBytes out(m_h.dramLevel());
    for (int lv = 0; lv < m_h.dramLevel(); ++lv) out[lv] = levelTileBytes(m_layer, m, lv);
    return out;
  }

  /// Whether level lv holds the tiles m keeps there (false: m breaks the capacity limit, so it is invalid).
  bool holds(const ConvMapping& m, const TileBytes& bytes, int lv) const {
    return keptBytes(m, lv, bytes[lv]) <= m_h.levels[lv].capacityBytes(m_h.elementBytes);
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

  /// Calls f on every bypass choice the hierarchy allows (the keeps decide which levels' orders matter). With
  /// `fit`, passes over the choices that overflow a level as soon as that level's keeps are chosen (the
  /// optional keeps are listed level by level; a level with none is checked first): the walk's leaves, where
  /// most of the 2^9 choices of a three-buffer hierarchy break the capacity limit.
  template <class F>
  void forEachKeep(ConvMapping& m, std::size_t i, F&& f, const TileBytes* fit = nullptr) {
    if (fit && i == 0)
      for (int lv = 0; lv < m_h.dramLevel(); ++lv)
        if (!hasOptionalKeeps(lv) && !holds(m, *fit, lv)) return;
    if (fit && i > 0 &&
        (i == m_optionalKeeps.size() || m_optionalKeeps[i].first != m_optionalKeeps[i - 1].first) &&
        !holds(m, *fit, m_optionalKeeps[i - 1].first))
      return;
    if (i == m_optionalKeeps.size()) {
      f(m);
      return;
    }
    const auto [lv, t] = m_optionalKeeps[i];
    for (bool keep : {true, false}) {
      m.levels[lv].keep[t] = keep;
      forEachKeep(m, i + 1, f, fit);
    }
    m.levels[lv].keep[t] = true;
  }

  bool hasOptionalKeeps(int lv) const {
    return std::any_of(m_optionalKeeps.begin(), m_optionalKeeps.end(),
                       [&](const auto& k) { return k.first == lv; });
  }

  /// A valid mapping (its factors, keeps and orders): evaluated with each tensor's best layout unless its
  /// cost without its row activations shows it cannot matter (under energy it is its cost).
  void visit(const ConvMapping& candidate) {
    tick();
    if (!mayImprove(m_bound.ofOrders(candidate))) return;
    ConvMapping m = candidate;
    chooseFewestActivationLayouts(m_layer, m_h, m);
    offer(m);
  }

  /// Evaluates a valid mapping and keeps it when it is feasible and the best so far.
  void offer(const ConvMapping& m) {
    ++m_result.evaluated;  // every mapping the walk reaches is valid (checked before its orders)
    ++m_result.valid;
    ConvCost c;
    try {
      c = evaluateValid(m_layer, m_h, m);
    } catch (const InputError&) {  // a count past int64: not a mapping to keep
      return;
    }
    if (m_o.collectFront) m_result.front.add({c.latencyCycles, c.energyPj, c.rowActs.total(), m});
    if (!feasible(m_o, c)) return;
    const double obj = objectiveValue(m_o.objective, c);
    if (!m_best || obj < *m_best) {
      m_best = obj;
      m_result.objective = obj;
      m_result.mapping = m;
      m_result.cost = std::move(c);
      m_result.bestSoFar.push_back(obj);
      if (withinGap(m_o, obj, m_objectiveBound))
        m_stop = true;  // proven close enough: the rest cannot matter
    }
  }

  const ConvLayer& m_layer;
  const Hierarchy& m_h;
  const MapOptions& m_o;
  const std::function<void(const MapProgress&)>& m_progress;
  MappingBound m_bound;
  std::vector<std::pair<int, int>> m_optionalKeeps;
  std::map<std::int64_t, std::vector<std::vector<std::int64_t>>> m_temporal;
  // ordersAt's lists per (reuse class only, set of dimensions as a bit mask)
  std::array<std::array<std::optional<std::vector<std::vector<int>>>, 1 << kDims>, 2> m_orders;
  clock::time_point m_start;
  MapResult m_result;
  std::optional<double> m_best;
  double m_objectiveBound = 0;  // the analytic lower bound of the objective
  std::int64_t m_ticks = 0;
  bool m_stop = false;
  bool m_overLatencyBound = false;  // a part of the space was passed over for its latency alone
};

/// Ways to spread e equal prime factors over k places: C(e + k - 1, k - 1).
double spreads(std::int64_t e, std::size_t k) {
  double n = 1;
  for (std::int64_t i = 1; i <= e; ++i) n = n * static_cast<double>(static_cast<std::int64_t>(k) - 1 + i) / i;
  return n;
}

/// No fewer than the choices of factors the walk may visit: per dimension its ordered factorisations over
/// level 0's H, W and Internal slots (those above 1) and every level's temporal slot, multiplied.
double factorChoicesAtMost(const ConvLayer& layer, const Hierarchy& h) {
  std::size_t places = h.levels.size();
  for (auto limit : {h.pe.height, h.pe.width, h.pe.internal}) places += limit > 1;
  double n = 1;
  for (int d = 0; d < kDims; ++d) {
    const auto primes = primeFactors(layer.bound[d]);
    for (std::size_t i = 0; i < primes.size();) {
      std::size_t j = i;
      while (j < primes.size() && primes[j] == primes[i]) ++j;
      n *= spreads(static_cast<std::int64_t>(j - i), places);
      i = j;
    }
  }
  return n;
}

class ExhaustiveMapper final : public IConvMapper {
 public:
  std::string name() const override { return "exhaustive"; }
  std::string description() const override {
    return "every distinct valid mapping (level 0's order, the orders that change only the reuse, and each "
           "tensor's layout by proven dominance), passing over the parts whose bound cannot beat the best "
           "mapping found; optimal when it completes";
  }
  MapResult solve(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                  const std::function<void(const MapProgress&)>& progress) const override {
    requireFits(layer, h);
    Walk walk(layer, h, o, progress);
    if (o.pruneByBounds ? !exhaustiveTakesOn(layer, h)
                        : !walk.fits(static_cast<double>(kMaxExhaustiveMappings)))
      throw InputError("exhaustive: layer " + layer.name + " (" + shapeText(layer) + ") has more than " +
                       (o.pruneByBounds ? "10^9 choices of factors"
                                        : std::to_string(kMaxExhaustiveMappings) + " mappings") +
                       " to walk on " + h.name + "; use --mapper heuristic or auto");
    return walk.run(name());
  }
};

}  // namespace

std::unique_ptr<IConvMapper> makeExhaustiveMapper() { return std::make_unique<ExhaustiveMapper>(); }

bool exhaustiveTakesOn(const ConvLayer& layer, const Hierarchy& h) {
  return factorChoicesAtMost(layer, h) <= kMaxExhaustiveFactorChoices;
}

bool exhaustiveFits(const ConvLayer& layer, const Hierarchy& h, double limit) {
  static const std::function<void(const MapProgress&)> none;
  const MapOptions o;
  return Walk(layer, h, o, none).fits(limit);
}

}  // namespace pim::convmap
