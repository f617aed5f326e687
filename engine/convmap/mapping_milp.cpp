// SPDX-License-Identifier: Apache-2.0
// How each traffic term becomes linear (docs/convmap.md "The MILP"). Between a tensor's keeper c and
// its next keeper p the evaluator moves f(c) x tile(c) bytes out of p, and at c = 0 f x tile-per-PE x PEs
// into the PEs. By the reuse rule f x tile = |t| x U_t(c) for the weight and the output, where U_t(c) is the
// product of the loops above c irrelevant to t that are not spared (outside t's innermost relevant loop of
// bound > 1), and |N C| G_P G_Q U for the input, G_P = (P/eP)(R/eR) (stride (eP - 1) + dil (eR - 1) + 1) at
// c's tile extents. At c = 0 the PE copies add sigma_t, the H and W factors irrelevant to t (K alone for the
// input, whose G then takes the per-PE extents). Each such product is a one-hot choice among its possible
// values: U, sigma and U x sigma among the divisors of the irrelevant bounds' product, linked per prime by
// integer equalities; the input's (G_P, G_Q, U) as a tuple whose marginals are one-hot (exact: a tuple with
// one-hot marginals is their product). An indicator (a pair of consecutive keepers, a level keeping t)
// times a one-hot choice is a vector w <= choice with sum w = indicator: exact for any sign.
#include "engine/convmap/mapping_milp.h"

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <tuple>

#include "engine/convmap/mapspace.h"
#include "engine/convmap/milp_costs.h"
#include "engine/convmap/one_hot.h"

namespace pim::convmap {

namespace {

using milp::Term;
using Expr = LinearExpr;
using Key = ChoiceKey;

class Builder {
 public:
  Builder(const ConvLayer& layer, const Hierarchy& h) : L(layer), H(h), D(h.dramLevel()), oh(out.model) {
    traffic.levels.resize(D + 1);
  }

  MappingMilp build(const MilpGoal& goal) {
    addFactors();
    addKeeps();
    addOrders();
    addCapacities();
    for (int t = 0; t < kTensors; ++t) {
      addOperandTraffic(t);
      addFillTraffic(t);
    }
    const auto& o = goal.objective;
    const bool latency = o.kind != Objective::Energy || goal.maxLatencyCycles;
    if (latency) {
      addLatencyTerms();
      out.latency = addLatency(m(), traffic, L, H);
      out.exact = false;
      if (goal.maxLatencyCycles) m().variables[*out.latency].upper = double(*goal.maxLatencyCycles);
    }
    // Energy in pJ, the MACs' as the constant; blended: both over their references.
    const double energyScale = o.kind == Objective::Latency   ? 0.0
                               : o.kind == Objective::Blended ? (1 - o.alpha) / o.energyRef
                                                              : 1.0;
    if (energyScale != 0) {
      m().objective.constant = energyScale * static_cast<double>(L.macs()) * H.pe.macEnergyPj;
      append(m().objective.terms, energyPj(traffic, H), energyScale);
    }
    if (o.kind != Objective::Energy)
      m().objective.terms.push_back(
          {*out.latency, o.kind == Objective::Latency ? 1.0 : o.alpha / o.latencyRef});
    return std::move(out);
  }

 private:
  const ConvLayer& L;
  const Hierarchy& H;
  const int D;
  MappingMilp out;
  OneHotModel oh;
  MilpTraffic traffic;
  std::map<std::pair<int, int>, std::size_t> factorIndex;  // (dim, place) -> out.factors
  struct Place {
    int level, slot;
  };
  std::vector<Place> places;
  std::map<std::string, Choice> cache;

  milp::MilpModel& m() { return out.model; }

  // ---- factors ---------------------------------------------------------------------------------------

  void addFactors() {
    const std::array<std::int64_t, 3> limit = {H.pe.height, H.pe.width, H.pe.internal};
    for (int s : {SlotH, SlotW, SlotInternal})
      if (limit[s] > 1) places.push_back({0, s});
    for (int lv = 0; lv <= D; ++lv) places.push_back({lv, SlotTemporal});
    for (int d = 0; d < kDims; ++d) {
      if (L.bound[d] == 1) continue;
      for (std::size_t p = 0; p < places.size(); ++p) {
        const auto [lv, s] = places[p];
        MappingMilp::FactorChoice f{d, lv, s, {}};
        Expr one;
        for (auto v : divisors(L.bound[d])) {
          if (s != SlotTemporal && v > limit[s]) continue;
          const auto var = m().addBinary(std::string(kDimNames[d]) + "@" + H.levels[lv].name + "." +
                                         std::string(kSlotNames[s]) + "=" + std::to_string(v));
          f.options.push_back({var, v});
          one.push_back({var, 1});
        }
        m().addRow("factor one-hot", one, 1, 1);
        factorIndex[{d, static_cast<int>(p)}] = out.factors.size();
        out.factors.push_back(std::move(f));
      }
      for (const auto& [prime, n] : primeExponents(L.bound[d])) {
        Expr row;
        for (std::size_t p = 0; p < places.size(); ++p) append(row, exponentOf(d, p, prime));
        m().addRow(std::string(kDimNames[d]) + " factorisation", row, n, n);
      }
      Expr unrolled;  // at most one spatial slot per dimension: sum of (1 - [factor 1]) <= 1
      double slots = 0;
      for (std::size_t p = 0; p < places.size(); ++p)
        if (places[p].slot != SlotTemporal) {
          unrolled.push_back({isOne(d, p), -1});
          ++slots;
        }
      if (slots > 1)
        m().addRow(std::string(kDimNames[d]) + " one spatial slot", unrolled, -milp::kInf, 1 - slots);
    }
    for (std::size_t p = 0; p < places.size(); ++p) {
      if (places[p].slot == SlotTemporal) continue;
      // log(product) <= log(limit) + margin: the next integer above the limit lies beyond the margin.
      const auto lim = static_cast<double>(limit[places[p].slot]);
      Expr row;
      for (int d = 0; d < kDims; ++d)
        if (auto it = factorIndex.find({d, static_cast<int>(p)}); it != factorIndex.end())
          for (const auto& [var, v] : out.factors[it->second].options)
            row.push_back({var, std::log(double(v))});
      m().addRow("PE array limit", row, -milp::kInf, std::log(lim) + 0.5 * std::log1p(1 / lim));
    }
  }

  /// The exponent of `prime` in the factor of d at place p (empty for a bound of 1).
  Expr exponentOf(int d, std::size_t p, std::int64_t prime) const {
    Expr e;
    auto it = factorIndex.find({d, static_cast<int>(p)});
    if (it == factorIndex.end()) return e;
    for (const auto& [var, v] : out.factors[it->second].options)
      if (auto x = primeExponents(v); x.count(prime)) e.push_back({var, double(x[prime])});
    return e;
  }
  std::size_t isOne(int d, std::size_t p) const {
    return out.factors.at(factorIndex.at({d, static_cast<int>(p)})).options.front().first;  // divisor 1 first
  }
  std::size_t temporalPlace(int lv) const {
    for (std::size_t p = 0; p < places.size(); ++p)
      if (places[p].level == lv && places[p].slot == SlotTemporal) return p;
    return 0;
  }

  /// Exponents of the product of the factors of `dims` at the places `take` accepts.
  PrimeExprs exponentsOver(const std::vector<int>& dims,
                           const std::function<bool(const Place&)>& take) const {
    PrimeExprs e;
    for (int d : dims)
      for (const auto& [prime, n] : primeExponents(L.bound[d]))
        for (std::size_t p = 0; p < places.size(); ++p)
          if (take(places[p])) append(e[prime], exponentOf(d, p, prime));
    return e;
  }
  std::int64_t productOf(const std::vector<int>& dims) const {
    std::int64_t v = 1;
    for (int d : dims) v *= L.bound[d];
    return v;
  }

  /// Tile extent of d at `level` (perPe: level 0 without the H and W slots), cached.
  const Choice& extent(int d, int level, bool perPe) {
    const auto name =
        "extent " + std::string(kDimNames[d]) + "@" + std::to_string(level) + (perPe ? "pe" : "");
    if (auto it = cache.find(name); it != cache.end()) return it->second;
    auto take = [&](const Place& p) {
      return p.level <= level && !(perPe && (p.slot == SlotH || p.slot == SlotW));
    };
    return cache[name] = oh.divisorChoice(name, L.bound[d], exponentsOver({d}, take));
  }

  /// (outputs, kernel) extents of one direction at a tile: P with R, or Q with S.
  const Choice& windowPair(int out, int kernel, int level, bool perPe) {
    const auto name =
        "window " + std::string(kDimNames[out]) + "@" + std::to_string(level) + (perPe ? "pe" : "");
    if (auto it = cache.find(name); it != cache.end()) return it->second;
    const auto& a = extent(out, level, perPe);
    const auto& b = extent(kernel, level, perPe);
    return cache[name] = oh.tupleChoice(name, {&a, &b});
  }

  std::vector<int> dimsOf(int t, bool rel) const {
    std::vector<int> v;
    for (int d = 0; d < kDims; ++d)
      if (relevant(d, t) == rel) v.push_back(d);
    return v;
  }

  // ---- keeps, orders ---------------------------------------------------------------------------------

  std::array<std::vector<std::size_t>, kTensors> lowest;        // [t][c]: c is t's lowest keeper
  std::map<std::tuple<int, int, int>, std::size_t> pairs;       // (t, c, p): p is the next keeper above c
  std::map<std::tuple<int, int, int>, std::size_t> precedence;  // (level, a < b): a inside b

  std::size_t keep(int lv, int t) const { return out.keep[lv][t]; }

  void addKeeps() {
    out.keep.resize(D + 1);
    for (int lv = 0; lv <= D; ++lv)
      for (int t = 0; t < kTensors; ++t) {
        const auto& decl = H.levels[lv];
        const auto name = "keep " + std::string(kTensorNames[t]) + "@" + decl.name;
        out.keep[lv][t] = !decl.stores[t]               ? oh.fixed(name, 0)
                          : lv == D || decl.bypassFixed ? oh.fixed(name, 1)
                                                        : m().addBinary(name);
      }
    for (int t = 0; t < kTensors; ++t) {
      Expr one;  // exactly one lowest keeper below DRAM: the first level that keeps t
      for (int c = 0; c < D; ++c) {
        const auto v = m().addVariable("lowest", 0, 1);
        Expr atLeast{{v, 1}, {keep(c, t), -1}};
        m().addRow("lowest keeps", {{v, 1}, {keep(c, t), -1}}, -milp::kInf, 0);
        for (int j = 0; j < c; ++j) {
          m().addRow("lowest: none below", {{v, 1}, {keep(j, t), 1}}, -milp::kInf, 1);
          atLeast.push_back({keep(j, t), 1});
        }
        m().addRow("lowest: the first keeper", atLeast, 0, milp::kInf);
        lowest[t].push_back(v);
        one.push_back({v, 1});
      }
      m().addRow("one lowest keeper", one, 1, 1);
      for (int c = 0; c < D; ++c)
        for (int p = c + 1; p <= D; ++p) {
          if (!H.levels[c].stores[t] || !H.levels[p].stores[t]) continue;
          const auto v = m().addVariable("pair", 0, 1);
          Expr atLeast{{v, 1}, {keep(c, t), -1}, {keep(p, t), -1}};
          m().addRow("pair: child keeps", {{v, 1}, {keep(c, t), -1}}, -milp::kInf, 0);
          m().addRow("pair: parent keeps", {{v, 1}, {keep(p, t), -1}}, -milp::kInf, 0);
          for (int j = c + 1; j < p; ++j) {
            m().addRow("pair: none between", {{v, 1}, {keep(j, t), 1}}, -milp::kInf, 1);
            atLeast.push_back({keep(j, t), 1});
          }
          m().addRow("pair: consecutive keepers", atLeast, -1, milp::kInf);
          pairs[{t, c, p}] = v;
        }
    }
  }

  /// [a inside b at level lv] = expression + constant.
  std::pair<Expr, double> inside(int lv, int a, int b) const {
    if (a < b) return {{{precedence.at({lv, a, b}), 1}}, 0};
    return {{{precedence.at({lv, b, a}), -1}}, 1};
  }

  void addOrders() {
    std::vector<int> dims;
    for (int d = 0; d < kDims; ++d)
      if (L.bound[d] > 1) dims.push_back(d);
    for (int lv = 1; lv <= D; ++lv) {
      for (std::size_t i = 0; i < dims.size(); ++i)
        for (std::size_t j = i + 1; j < dims.size(); ++j) {
          const auto v = m().addBinary("order@" + H.levels[lv].name);
          precedence[{lv, dims[i], dims[j]}] = v;
          out.precedences.push_back({lv, dims[i], dims[j], v});
        }
      for (std::size_t i = 0; i < dims.size(); ++i)
        for (std::size_t j = i + 1; j < dims.size(); ++j) addCanonicalOrder(lv, dims[i], dims[j]);
      for (int a : dims)  // transitive: a inside b inside c => a inside c
        for (int b : dims)
          for (int c : dims) {
            if (a == b || b == c || a == c) continue;
            auto [e1, k1] = inside(lv, a, b);
            auto [e2, k2] = inside(lv, b, c);
            auto [e3, k3] = inside(lv, a, c);
            append(e1, e2);
            append(e1, e3, -1);
            m().addRow("order transitive", e1, -milp::kInf, 1 - k1 - k2 + k3);
          }
    }
  }

  /// Loops of bound 1 change nothing, so they lie outermost, in dimension order (a < b: a inside b): one
  /// order per distinct nest, not one per placement of its trivial loops.
  void addCanonicalOrder(int lv, int a, int b) {
    const auto o = precedence.at({lv, a, b});
    const auto oneA = isOne(a, temporalPlace(lv)), oneB = isOne(b, temporalPlace(lv));
    m().addRow("trivial loops outside", {{o, 1}, {oneA, 1}, {oneB, -1}}, -milp::kInf, 1);
    m().addRow("trivial loops outside", {{o, 1}, {oneA, 1}, {oneB, -1}}, 0, milp::kInf);
    m().addRow("trivial loops in order", {{o, 1}, {oneA, -1}, {oneB, -1}}, -1, milp::kInf);
  }

  // ---- reuse -----------------------------------------------------------------------------------------

  std::map<std::pair<int, int>, PrimeExprs> unsparedCache;

  /// Exponents of U_t(c): the loops above c irrelevant to t and outside its innermost relevant loop of bound
  /// > 1. A loop is spared only if no relevant loop of bound > 1 lies inside it (lower levels above c, or
  /// inside it at its level); the objective rises with U, so the optimum spares every loop it may.
  const PrimeExprs& unspared(int t, int c) {
    if (auto it = unsparedCache.find({t, c}); it != unsparedCache.end()) return it->second;
    PrimeExprs e;
    for (int lv = c + 1; lv <= D; ++lv)
      for (int d : dimsOf(t, false)) {
        if (L.bound[d] == 1) continue;
        const auto sp = m().addVariable("spared", 0, 1);
        for (int below = c + 1; below <= lv; ++below)
          for (int r : dimsOf(t, true)) {
            if (L.bound[r] == 1) continue;
            Expr row{{sp, 1}, {isOne(r, temporalPlace(below)), -1}};
            double upper = 0;
            if (below == lv) {
              auto [in, k] = inside(lv, r, d);
              append(row, in);
              upper = 1 - k;
            }
            m().addRow("spared only inside no relevant loop", row, -milp::kInf, upper);
          }
        for (const auto& [prime, n] : primeExponents(L.bound[d])) {
          const auto g = m().addVariable("unspared exponent", 0, n);
          Expr row{{g, 1}, {sp, double(n)}};
          append(row, exponentOf(d, temporalPlace(lv), prime), -1);
          m().addRow("unspared exponent", row, 0, milp::kInf);
          e[prime].push_back({g, 1});
        }
      }
    return unsparedCache[{t, c}] = std::move(e);
  }

  bool spatialHW(const Place& p) const { return p.level == 0 && (p.slot == SlotH || p.slot == SlotW); }

  /// A named divisor choice over the product of the bounds irrelevant to t, cached.
  const Choice& irrelevantChoice(const std::string& what, int t, const std::function<PrimeExprs()>& exprs) {
    const auto name = what + " " + std::string(kTensorNames[t]);
    if (auto it = cache.find(name); it != cache.end()) return it->second;
    return cache[name] = oh.divisorChoice(name, productOf(dimsOf(t, false)), exprs());
  }
  const Choice& uChoice(int t, int c) {
    return irrelevantChoice("U@" + std::to_string(c), t, [&] { return unspared(t, c); });
  }
  /// U_t(0) x sigma_t: the PE copies' H and W factors irrelevant to t.
  const Choice& uSigmaChoice(int t) {
    return irrelevantChoice("U sigma", t, [&] {
      auto e = unspared(t, 0);
      for (auto& [p, x] : exponentsOver(dimsOf(t, false), [&](const Place& q) { return spatialHW(q); }))
        append(e[p], x);
      return e;
    });
  }
  const Choice& sigmaChoice(int t) {
    return irrelevantChoice("sigma", t, [&] {
      return exponentsOver(dimsOf(t, false), [&](const Place& q) { return spatialHW(q); });
    });
  }
  /// The operand sharing of t's lowest keeper: its Internal lanes at level 0, the whole array above.
  const Choice& sharedChoice(int t, bool pe) {
    return irrelevantChoice(pe ? "shared pe" : "shared array", t, [&] {
      return exponentsOver(dimsOf(t, false), [&](const Place& q) {
        return q.level == 0 && q.slot != SlotTemporal && !(pe && q.slot != SlotInternal);
      });
    });
  }

  // ---- traffic and capacity --------------------------------------------------------------------------

  TrafficTerms& at(int level, int t) { return traffic.levels[level][t]; }

  /// Input columns a window of the given extents reads in one direction, times how many such windows the
  /// layer has there: (outputs / xOut) (kernel / xK) (stride (xOut - 1) + dil (xK - 1) + 1).
  double windowTraffic(int outDim, int kernelDim, std::int64_t xOut, std::int64_t xK) const {
    const bool w = outDim == P;
    return double(L.bound[outDim] / xOut) * double(L.bound[kernelDim] / xK) *
           double(ConvLayer::windowExtent(xOut, xK, w ? L.strideW : L.strideH, w ? L.dilW : L.dilH));
  }
  /// The input's (P-window, Q-window, factor) tuple at a tile: keys {xP, xR, xQ, xS, factor}.
  Choice inputTuple(int level, bool pe, const Choice& factor) {
    const auto& wp = windowPair(P, R, level, pe);
    const auto& wq = windowPair(Q, S, level, pe);
    return oh.tupleChoice("input tuple", {&wp, &wq, &factor});
  }
  double inputBytes(const Key& k) const {
    return double(L.bound[N] * L.bound[C] * L.elementBytes[Input]) * windowTraffic(P, R, k[0], k[1]) *
           windowTraffic(Q, S, k[2], k[3]) * double(k[4]);
  }

  /// MAC operands at t's lowest keeper c: MACs x element bytes / the sharing there (an output's partial sums
  /// read and written).
  void addOperandTraffic(int t) {
    const double perMac = double(L.macs()) * double(L.elementBytes[t]);
    for (int c = 0; c < D; ++c) {
      if (!H.levels[c].stores[t]) continue;
      const auto bytes = oh.indicatorProduct(sharedChoice(t, c == 0), lowest[t][c],
                                             [&](const Key& v) { return perMac / double(v[0]); });
      append(at(c, t).operandRead, bytes);
      if (t == Output) append(at(c, t).operandWritten, bytes);
    }
  }

  /// Between consecutive keepers c < p, f x tile bytes out of p and into c (above the PEs; into the PE
  /// buffers: addPeFillTraffic); an output's f - (distinct tiles) fills are read back out of p and all f
  /// written back, i.e. |t| (U - 1) and |t| U.
  void addFillTraffic(int t) {
    const double bytes = double(L.bytes(t));
    for (int c = 0; c < D; ++c) {
      if (!H.levels[c].stores[t]) continue;
      for (int p = c + 1; p <= D; ++p) {
        auto it = pairs.find({t, c, p});
        if (it == pairs.end()) continue;
        if (t == Output) {
          const auto& u = uChoice(t, c);
          const auto w = oh.indicatorWeights(u, it->second);
          const auto refills = weighted(u, w, [&](const Key& v) { return bytes * (double(v[0]) - 1); });
          const auto all = weighted(u, w, [&](const Key& v) { return bytes * double(v[0]); });
          append(at(p, t).fillRead, refills);
          append(at(p, t).fillWritten, all);
          if (c > 0) {
            append(at(c, t).fillWritten, refills);
            append(at(c, t).fillRead, all);
          }
          continue;
        }
        const auto moved = t == Input ? oh.indicatorProduct(inputTuple(c, false, uChoice(t, c)), it->second,
                                                            [&](const Key& v) { return inputBytes(v); })
                                      : oh.indicatorProduct(uChoice(t, c), it->second, [&](const Key& v) {
                                          return bytes * double(v[0]);
                                        });
        append(at(p, t).fillRead, moved);
        if (c > 0) append(at(c, t).fillWritten, moved);
      }
    }
    if (H.levels[0].stores[t]) addPeFillTraffic(t, bytes);
  }

  /// Into the PE buffers, over every PE: f x tile-per-PE x PEs = |t| U sigma (an output's first fill of each
  /// tile, |t| sigma, is not read back); the input's from its tuple at per-PE extents.
  void addPeFillTraffic(int t, double bytes) {
    auto& pe = at(0, t);
    if (t == Input) {
      append(pe.fillWritten, oh.indicatorProduct(inputTuple(0, true, uSigmaChoice(t)), keep(0, t),
                                                 [&](const Key& v) { return inputBytes(v); }));
      return;
    }
    const auto copies =
        oh.indicatorProduct(uSigmaChoice(t), keep(0, t), [&](const Key& v) { return bytes * double(v[0]); });
    append(pe.fillWritten, copies);
    if (t != Output) return;
    append(pe.fillRead, copies);
    append(pe.fillWritten, oh.indicatorProduct(sigmaChoice(t), keep(0, t),
                                               [&](const Key& v) { return -bytes * double(v[0]); }));
  }

  /// What latency reads beyond the traffic: compute cycles from the PEs and lanes in use, and a PE's own
  /// operand bytes (its share of the array's, by the H and W factors in use and its lanes' sharing).
  void addLatencyTerms() {
    std::vector<int> all;
    for (int d = 0; d < kDims; ++d) all.push_back(d);
    const double macs = double(L.macs());
    const auto lanes = oh.divisorChoice("PEs x lanes", productOf(all), exponentsOver(all, [](const Place& p) {
                                          return p.level == 0 && p.slot != SlotTemporal;
                                        }));
    traffic.computeCycles = weighted(lanes, lanes.vars, [&](const Key& v) { return macs / double(v[0]); });
    for (int t = 0; t < kTensors; ++t) {
      if (!H.levels[0].stores[t]) continue;
      auto e = exponentsOver(all, [&](const Place& p) { return spatialHW(p); });
      for (auto& [prime, x] : exponentsOver(
               dimsOf(t, false), [](const Place& p) { return p.level == 0 && p.slot == SlotInternal; }))
        append(e[prime], x);
      const auto share = oh.divisorChoice("PE share " + std::string(kTensorNames[t]), productOf(all), e);
      const double perMac = macs * double(L.elementBytes[t]);
      traffic.peOperandBytes[t] =
          oh.indicatorProduct(share, lowest[t][0], [&](const Key& v) { return perMac / double(v[0]); });
    }
  }

  void addCapacities() {
    for (int lv = 0; lv < D; ++lv) {
      const bool pe = lv == 0;
      auto take = [&](const Place& q) { return q.level <= lv && !(pe && spatialHW(q)); };
      Expr row;
      for (int t = 0; t < kTensors; ++t) {
        if (!H.levels[lv].stores[t]) continue;
        const double b = double(L.elementBytes[t]);
        const auto name = "tile " + std::string(kTensorNames[t]) + "@" + H.levels[lv].name;
        if (t == Input) {
          const auto nc =
              oh.divisorChoice(name + " NC", L.bound[N] * L.bound[C], exponentsOver({N, C}, take));
          const auto& wp = windowPair(P, R, lv, pe);
          const auto& wq = windowPair(Q, S, lv, pe);
          const auto tuple = oh.tupleChoice(name, {&nc, &wp, &wq});
          append(row, oh.indicatorProduct(tuple, keep(lv, t), [&](const Key& k) {
            return b * double(k[0]) *
                   double(ConvLayer::windowExtent(k[1], k[2], L.strideW, L.dilW) *
                          ConvLayer::windowExtent(k[3], k[4], L.strideH, L.dilH));
          }));
        } else {
          const auto dims = dimsOf(t, true);
          const auto tile = oh.divisorChoice(name, productOf(dims), exponentsOver(dims, take));
          append(row, oh.indicatorProduct(tile, keep(lv, t), [&](const Key& k) { return b * double(k[0]); }));
        }
      }
      m().addRow("capacity " + H.levels[lv].name, row, -milp::kInf,
                 double(H.levels[lv].capacityBytes(H.elementBytes)));
    }
  }
};

}  // namespace

MappingMilp buildMappingMilp(const ConvLayer& layer, const Hierarchy& h, const MilpGoal& goal) {
  return Builder(layer, h).build(goal);
}

}  // namespace pim::convmap
