// SPDX-License-Identifier: Apache-2.0
// The heuristic mapper: seeded simulated annealing over the mapspace. A move shifts one prime factor of a
// dimension between (level, slot) places, swaps two loops of a level's order, toggles a bypass the hierarchy
// allows, or changes a layout or the input's block; a proposal the verifier refuses is skipped. Restarts from
// the best mapping when the temperature is spent. It proves nothing: its result says "gap unknown".
#include <chrono>
#include <cmath>
#include <random>

#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapspace.h"

namespace pim::convmap {

namespace {

class HeuristicMapper final : public IConvMapper {
 public:
  std::string name() const override { return "heuristic"; }
  std::string description() const override {
    return "seeded simulated annealing over factors, loop orders, bypass and layout (its gap is to the "
           "analytic lower bound)";
  }

  MapResult solve(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                  const std::function<void(const MapProgress&)>& progress) const override {
    requireFits(layer, h);
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    std::mt19937_64 rng(o.seed);
    MapResult r;
    r.mapper = name();
    auto score = [&](const ConvMapping& m) -> std::optional<std::pair<double, ConvCost>> {
      ++r.evaluated;
      if (!violations(layer, h, m).empty()) return std::nullopt;
      ++r.valid;
      try {
        auto c = evaluateValid(layer, h, m);
        if (o.collectFront) r.front.add({c.latencyCycles, c.energyPj, c.rowActs.total(), m});
        if (!feasible(o, c)) return std::nullopt;  // outside the epsilon-constraint: never an incumbent
        return std::pair{objectiveValue(o.objective, c), std::move(c)};
      } catch (const InputError&) {  // a count past int64 (an absurd tile): not a mapping to keep
        return std::nullopt;
      }
    };
    // The walk stays among feasible mappings: it starts from the warm start when that one is feasible.
    ConvMapping current = o.start ? *o.start : trivialMapping(layer, h);
    auto first = score(current);
    if (!first && o.start) first = score(current = trivialMapping(layer, h));
    if (!first)
      throw InputError("layer " + layer.name + ": no start mapping within " +
                       (o.maxLatencyCycles ? std::to_string(*o.maxLatencyCycles) + " cycles" : "the limits") +
                       " (give a feasible start mapping)");
    double currentObj = first->first;
    r.mapping = current;
    r.cost = first->second;
    r.objective = currentObj;
    r.bestSoFar.push_back(currentObj);
    const std::int64_t sweep = 4000;  // proposals per temperature schedule, then restart from the best
    const double bound = objectiveBound(o.objective, lowerBound(layer, h));
    double lastReport = 0;
    while (r.evaluated < o.maxEvaluations && elapsed() < o.timeLimitSeconds &&
           !(o.cancel && o.cancel->load()) && !withinGap(o, r.objective, bound)) {
      const double progressInSweep = static_cast<double>(r.evaluated % sweep) / sweep;
      if (r.evaluated % sweep == 0) {
        current = r.mapping;
        currentObj = r.objective;
      }
      const double temperature = 0.3 * (1.0 - progressInSweep) + 1e-4;
      ConvMapping next = current;
      if (!randomMove(layer, h, next, rng)) {
        ++r.evaluated;  // a proposal with no possible move still counts, so a one-point space ends
        continue;
      }
      const auto s = score(next);
      if (!s) continue;
      const double delta = std::log(s->first + 1) - std::log(currentObj + 1);
      if (delta <= 0 || std::uniform_real_distribution<>(0, 1)(rng) < std::exp(-delta / temperature)) {
        current = std::move(next);
        currentObj = s->first;
        if (currentObj < r.objective) {
          r.mapping = current;
          r.cost = s->second;
          r.objective = currentObj;
          r.bestSoFar.push_back(currentObj);
        }
      }
      if (progress && elapsed() - lastReport > 0.1) {
        lastReport = elapsed();
        progress({r.evaluated, r.valid, r.objective, lastReport});
      }
    }
    r.status = "feasible";
    applyAnalyticBound(r, layer, h, o.objective);
    r.seconds = elapsed();
    return r;
  }
};

}  // namespace

std::unique_ptr<IConvMapper> makeHeuristicMapper() { return std::make_unique<HeuristicMapper>(); }

}  // namespace pim::convmap
