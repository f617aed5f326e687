// SPDX-License-Identifier: Apache-2.0
// The heuristic mapper: seeded simulated annealing over the mapspace. A move shifts one prime factor of a
// dimension between (level, slot) places, swaps two loops of a level's order, toggles a bypass the hierarchy
// allows, or changes a layout or the input's block; a proposal the verifier refuses is skipped. It first
// sweeps around the spatial assignments the lower bound ranks least (their array use fixed), then restarts
// from the best mapping whenever the temperature is spent. It proves nothing itself: its gap is to the
// analytic lower bound.
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <random>
#include <vector>

#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapspace.h"

namespace pim::convmap {

namespace {

/// Spatial assignments the search starts from before it anneals freely (docs/knobs.md).
constexpr std::size_t kSpatialStarts = 8;

/// The trivial mapping with level 0's spatial factors `s` taken out of the DRAM loops: where the lower bound
/// says the array can be used best, with everything else left to the search.
ConvMapping spatialStart(const ConvLayer& layer, const Hierarchy& h, const SpatialFactors& s) {
  ConvMapping m = trivialMapping(layer, h);
  const int dram = h.dramLevel();
  for (int d = 0; d < kDims; ++d) {
    std::int64_t spatial = 1;
    for (int slot = 0; slot < 3; ++slot) {
      setFactor(m, 0, slot, d, s[slot][d]);
      spatial *= s[slot][d];
    }
    setFactor(m, dram, SlotTemporal, d, layer.bound[d] / spatial);
  }
  return m;
}

/// One annealing run: the incumbent, the evaluation count and the walk's state.
class Annealing {
 public:
  Annealing(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o, MapResult& r)
      : m_layer(layer), m_h(h), m_o(o), m_r(r), m_rng(o.seed) {}

  /// The mapping's objective and cost when it is valid and within the options' constraints; counts it.
  std::optional<std::pair<double, ConvCost>> score(const ConvMapping& m) {
    ++m_r.evaluated;
    if (!isValid(m_layer, m_h, m)) return std::nullopt;
    ++m_r.valid;
    try {
      auto c = evaluateValid(m_layer, m_h, m);
      if (m_o.collectFront) m_r.front.add({c.latencyCycles, c.energyPj, c.rowActs.total(), m});
      if (!feasible(m_o, c)) return std::nullopt;  // outside the epsilon-constraint: never an incumbent
      return std::pair{objectiveValue(m_o.objective, c), std::move(c)};
    } catch (const InputError&) {  // a count past int64 (an absurd tile): not a mapping to keep
      return std::nullopt;
    }
  }

  /// Offers a start: it becomes the incumbent when it is feasible and better. True when feasible.
  bool offer(const ConvMapping& m) {
    auto s = score(m);
    if (!s) return false;
    if (!m_started || s->first < m_r.objective) improve(m, std::move(*s));
    m_started = true;
    return true;
  }
  bool started() const { return m_started; }

  /// The better of two bypass choices of `spread` (every tensor kept where the hierarchy lets it, and each
  /// kept only at the lowest level that may keep it: the smallest tiles that fit), or nullopt (neither
  /// feasible, or `stop` said so first). The search toggles the rest: trying every combination (512 on
  /// pimopt-default) found no better ResNet-18 mapping and left no time for the search on VGG-16's layers.
  std::optional<ConvMapping> bestBypassOf(const ConvMapping& spread, const std::function<bool()>& stop) {
    std::optional<ConvMapping> best;
    double bestObj = 0;
    for (int variant = 0; variant < 2 && !stop(); ++variant) {
      ConvMapping m = spread;
      if (variant == 1) keepLowestOnly(m);
      if (auto s = score(m); s && (!best || s->first < bestObj)) {
        bestObj = s->first;
        best = std::move(m);
        if (s->first < m_r.objective || !m_started) improve(*best, std::move(*s));
        m_started = true;
      }
    }
    return best;
  }

  /// Keeps each tensor only at the lowest level below DRAM that may keep it (and where it must be kept).
  void keepLowestOnly(ConvMapping& m) const {
    for (int t = 0; t < kTensors; ++t) {
      bool kept = false;
      for (int lv = 0; lv < m_h.dramLevel(); ++lv) {
        const auto& l = m_h.levels[lv];
        m.levels[lv].keep[t] = l.stores[t] && (l.bypassFixed || !kept);
        kept = kept || m.levels[lv].keep[t];
      }
    }
  }

  /// `proposals` annealing steps from `from` at a temperature falling from 0.3 to 0, or until `stop` says so.
  void sweep(ConvMapping from, std::int64_t proposals, bool keepSpatial, const std::function<bool()>& stop) {
    if (stop()) return;
    ConvMapping current = std::move(from);
    auto first = score(current);
    if (!first) return;
    double currentObj = first->first;
    for (std::int64_t i = 0; i < proposals && !stop(); ++i) {
      const double temperature = 0.3 * (1.0 - static_cast<double>(i) / static_cast<double>(proposals)) + 1e-4;
      ConvMapping next = current;
      if (!randomMove(m_layer, m_h, next, m_rng, keepSpatial)) {
        ++m_r.evaluated;  // a proposal with no possible move still counts, so a one-point space ends
        continue;
      }
      auto s = score(next);
      if (!s) continue;
      const double delta = std::log(s->first + 1) - std::log(currentObj + 1);
      if (delta <= 0 || std::uniform_real_distribution<>(0, 1)(m_rng) < std::exp(-delta / temperature)) {
        current = std::move(next);
        currentObj = s->first;
        if (currentObj < m_r.objective) improve(current, std::move(*s));
      }
    }
  }

 private:
  void improve(const ConvMapping& m, std::pair<double, ConvCost> s) {
    m_r.mapping = m;
    m_r.cost = std::move(s.second);
    m_r.objective = s.first;
    m_r.bestSoFar.push_back(s.first);
  }

  const ConvLayer& m_layer;
  const Hierarchy& m_h;
  const MapOptions& m_o;
  MapResult& m_r;
  std::mt19937_64 m_rng;
  bool m_started = false;
};

/// Proposals per temperature schedule, then a restart from the best (or from the next spatial start).
constexpr std::int64_t kSweep = 4000;

class HeuristicMapper final : public IConvMapper {
 public:
  std::string name() const override { return "heuristic"; }
  std::string description() const override {
    return "seeded simulated annealing over factors, loop orders, bypass and layout, first around the array "
           "uses the lower bound ranks best (its gap is to the analytic lower bound)";
  }

  MapResult solve(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                  const std::function<void(const MapProgress&)>& progress) const override {
    requireFits(layer, h);
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    MapResult r;
    r.mapper = name();
    Annealing walk(layer, h, o, r);
    const double bound = objectiveLowerBound(layer, h, o.objective);
    double lastReport = 0;
    auto stop = [&] {
      if (progress && elapsed() - lastReport > 0.1) {
        lastReport = elapsed();
        const auto best = walk.started() ? std::optional<double>(r.objective) : std::nullopt;  // none yet
        progress({r.evaluated, r.valid, best, lastReport, bound, std::nullopt, name()});
      }
      return r.evaluated >= o.maxEvaluations || elapsed() >= o.timeLimitSeconds ||
             (o.cancel && o.cancel->load()) || (walk.started() && withinGap(o, r.objective, bound));
    };
    // Starts: the warm start when feasible, else the trivial mapping, and the array uses the bound ranks
    // least for this objective (each with its best bypass choice).
    if (!(o.start && walk.offer(*o.start))) walk.offer(trivialMapping(layer, h));
    struct Start {
      ConvMapping mapping;
      double bound;  // the least objective any mapping with its spatial assignment may have
    };
    std::vector<Start> starts;
    if (!o.start)
      for (const auto& s : leastBoundSpatials(layer, h, o.objective, kSpatialStarts))
        if (auto m = walk.bestBypassOf(spatialStart(layer, h, s.factors), stop))
          starts.push_back({std::move(*m), s.bound});
    if (!walk.started())
      throw InputError("layer " + layer.name + ": no start mapping within " +
                       (o.maxLatencyCycles ? std::to_string(*o.maxLatencyCycles) + " cycles" : "the limits") +
                       " (give a feasible start mapping)");
    // First one sweep around each spatial start with its array use fixed (a better array use is often worse
    // until the loops around it are rearranged, which a free walk rarely waits for), then sweeps from the
    // best, every other one with the array use fixed.
    walk.sweep(r.mapping, kSweep, false, stop);  // the trivial (or warm) start's own neighbourhood first
    for (const auto& s : starts) walk.sweep(s.mapping, kSweep, true, stop);
    // Every third sweep starts again from a spatial start whose own bound is below the best mapping (in
    // turn): one unlucky walk around the best assignment would otherwise leave the rest of the search
    // around a worse one.
    std::size_t next = 0;
    for (std::int64_t i = 0; !stop(); ++i) {
      if (i % 3 == 2) {
        std::size_t k = 0;
        while (k < starts.size() && !(starts[(next + k) % starts.size()].bound < r.objective)) ++k;
        if (k < starts.size()) {
          walk.sweep(starts[(next + k) % starts.size()].mapping, kSweep, true, stop);
          next = (next + k + 1) % starts.size();
          continue;
        }
      }
      walk.sweep(r.mapping, kSweep, i % 2 == 1, stop);
    }
    r.status = "feasible";
    applyAnalyticBound(r, layer, h, o.objective);
    r.seconds = elapsed();
    // Where it ended, whenever it ended: a search shorter than the reporting interval is seen too (the
    // stage after it, the MILP, starts from here).
    if (progress) progress({r.evaluated, r.valid, r.objective, r.seconds, bound, std::nullopt, name()});
    return r;
  }
};

}  // namespace

std::unique_ptr<IConvMapper> makeHeuristicMapper() { return std::make_unique<HeuristicMapper>(); }

}  // namespace pim::convmap
