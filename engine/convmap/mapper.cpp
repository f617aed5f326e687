// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/mapper.h"

#include <algorithm>
#include <limits>
#include <mutex>

#include "engine/convmap/lower_bound.h"
#include "engine/milp/milp.h"

namespace pim::convmap {

std::unique_ptr<IConvMapper> makeHeuristicMapper();
std::unique_ptr<IConvMapper> makeExhaustiveMapper();
std::unique_ptr<IConvMapper> makeIlpMapper();
std::unique_ptr<IConvMapper> makeIlpSpatialMapper();

namespace {

/// Less time than this left is not worth another heuristic run (its spatial starts alone take a few tenths).
constexpr double kLeastRerunSeconds = 0.5;
/// Under the blend, the further seeds the heuristic gets before the MILP, and the share of the time its first
/// run leaves that they may take (docs/convmap.md "Latency and the blend").
constexpr std::uint64_t kBlendReruns = 3;
constexpr double kBlendRerunShare = 0.5;

/// `auto` under latency alone (and, at most `maxReruns` times, under the blend): while the heuristic spends
/// its proposal budget before the time limit without meeting the bound, it runs again from scratch with the
/// next seed in the time left (its first sweeps, around the spatial starts, decide most: on ResNet-18's
/// stage-4 shortcut seeds 2, 3, 4 and 8 reach the optimum within 100,000 proposals, seeds 1, 5, 6 and 7 not
/// within 200,000). The best mapping is kept; each run reports its own proposals, as "heuristic, seed S".
MapResult rerunHeuristic(MapResult best, const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                         const std::function<void(const MapProgress&)>& progress,
                         std::uint64_t maxReruns = std::numeric_limits<std::uint64_t>::max()) {
  MapOptions next = o;
  for (std::uint64_t k = 1; k <= maxReruns; ++k) {
    const double left = o.timeLimitSeconds - best.seconds;
    const bool budgetSpent = best.evaluated >= o.maxEvaluations * static_cast<std::int64_t>(k);
    if (!budgetSpent || left < kLeastRerunSeconds || (o.cancel && o.cancel->load()) ||
        (best.bound && withinGap(o, best.objective, *best.bound)))
      return best;
    next.seed = o.seed + k;
    next.timeLimitSeconds = left;
    std::function<void(const MapProgress&)> relay;
    if (progress)
      relay = [&, before = best.seconds,
               stage = "heuristic, seed " + std::to_string(next.seed)](const MapProgress& p) {
        MapProgress q = p;
        q.seconds += before;
        q.stage = stage;
        if (!q.incumbent || best.objective < *q.incumbent) q.incumbent = best.objective;
        progress(q);
      };
    auto again = makeHeuristicMapper()->solve(layer, h, next, relay);
    best.evaluated += again.evaluated;
    best.valid += again.valid;
    best.seconds += again.seconds;
    for (double v : again.bestSoFar)
      if (best.bestSoFar.empty() || v < best.bestSoFar.back()) best.bestSoFar.push_back(v);
    if (again.objective < best.objective) {
      best.mapping = std::move(again.mapping);
      best.cost = std::move(again.cost);
      best.objective = again.objective;
      best.status = again.status;
      best.bound = again.bound;
      best.gap = again.gap;
    }
  }
  return best;
}

/// `auto`: the exhaustive walk when the space is small enough; else the heuristic, and, when it stops before
/// the time limit (its proposal budget spent) without proving its mapping optimal, the MILP warm-started
/// from that mapping for the time left (usesMilp; under the blend after up to kBlendReruns more seeds in
/// half that time, then instead of the MILP the exhaustive walk from the best mapping where it takes the
/// layer on), or under latency alone the heuristic again with the next seed (rerunHeuristic): the
/// better mapping and the higher bound are kept. The heuristic's own budget is never cut for it.
class AutoMapper final : public IConvMapper {
 public:
  std::string name() const override { return "auto"; }
  std::string description() const override {
    const auto reruns = std::to_string(kBlendReruns);
    return "exhaustive up to " + std::to_string(kMaxExhaustiveMappings) +
           " mappings, else heuristic, then in the time left the MILP from its mapping (under the blend "
           "after up to " +
           reruns +
           " more seeds and the exhaustive walk from the best; under latency alone: the heuristic "
           "again with the next seed)";
  }
  MapResult solve(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                  const std::function<void(const MapProgress&)>& progress) const override {
    const auto cap = static_cast<double>(kMaxExhaustiveMappings);
    if (exhaustiveFits(layer, h, cap)) return named(makeExhaustiveMapper()->solve(layer, h, o, progress));
    const bool milp = usesMilp(name(), o.objective.kind) && !o.collectFront;
    if (milp) milp::makeSolver(o.solver);  // a solver not built in is refused before any search
    auto r = makeHeuristicMapper()->solve(layer, h, o, progress);
    if (!milp)
      return named(o.collectFront ? std::move(r) : rerunHeuristic(std::move(r), layer, h, o, progress));
    if (o.objective.kind == Objective::Blended) {
      // Under the blend the MILP is a relaxation: it may tighten the bound but seldom beats the mapping of
      // another seed (on ResNet-18's FC layer seeds 1-6 end 11.4-26.8 % above the bound), so a few seeds
      // run first, in part of the time.
      MapOptions seeds = o;
      seeds.timeLimitSeconds = r.seconds + kBlendRerunShare * (o.timeLimitSeconds - r.seconds);
      r = rerunHeuristic(std::move(r), layer, h, seeds, progress, kBlendReruns);
      // Then, where it takes the layer on, the exhaustive walk from the best mapping for the rest, which
      // proves what it has walked (on ResNet-18's FC layer 0.05 % in 10 s where the MILP leaves 11.4 %).
      if (exhaustiveTakesOn(layer, h))
        return named(
            refineWith(std::move(r), o, o.timeLimitSeconds - r.seconds, progress,
                       [&](const MapOptions& walk, const std::function<void(const MapProgress&)>& relay) {
                         return makeExhaustiveMapper()->solve(layer, h, walk, relay);
                       }));
    }
    const double left = o.timeLimitSeconds - r.seconds;
    return named(refineWithMilp(std::move(r), layer, h, o, left, progress));
  }

 private:
  MapResult named(MapResult r) const {
    r.mapper = "auto (" + r.mapper + ")";
    return r;
  }
};

std::unique_ptr<IConvMapper> makeAutoMapper() { return std::make_unique<AutoMapper>(); }

}  // namespace

bool usesMilp(const std::string& mapper, Objective objective) {
  // `auto`: under latency alone the heuristic meets the analytic bound on all but the layers whose row
  // activations set the latency, which the MILP relaxes (its bound is then the analytic one; docs/convmap.md
  // "Latency and the blend"), so the time would buy nothing.
  if (mapper == "auto") return objective != Objective::Latency;
  return mapper.starts_with("ilp");
}

namespace {
using Factory = std::unique_ptr<IConvMapper> (*)();
std::vector<std::pair<std::string, Factory>>& registry() {
  static std::vector<std::pair<std::string, Factory>> r;
  return r;
}
}  // namespace

void registerBuiltinMappers() {
  static std::once_flag once;
  std::call_once(once, [] {
    registry().push_back({"auto", &makeAutoMapper});
    registry().push_back({"exhaustive", &makeExhaustiveMapper});
    registry().push_back({"heuristic", &makeHeuristicMapper});
    registry().push_back({"ilp", &makeIlpMapper});
    registry().push_back({"ilp-spatial", &makeIlpSpatialMapper});
  });
}

std::vector<std::string> mapperNames() {
  registerBuiltinMappers();
  std::vector<std::string> names;
  for (const auto& [n, f] : registry()) names.push_back(n);
  return names;
}

std::unique_ptr<IConvMapper> makeMapper(const std::string& name) {
  registerBuiltinMappers();
  for (const auto& [n, f] : registry())
    if (n == name) return f();
  std::string known;
  for (const auto& n : mapperNames()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("mapper '" + name + "': unknown (built in: " + known + ")");
}

bool feasible(const MapOptions& o, const ConvCost& c) {
  return !o.maxLatencyCycles || c.latencyCycles <= *o.maxLatencyCycles;
}

bool withinGap(const MapOptions& o, double objective, double bound) {
  if (o.collectFront) return false;
  return objective <= 0 || (objective - bound) / objective <= o.gap + 1e-12;
}

MapResult refineWith(MapResult from, const MapOptions& o, double seconds,
                     const std::function<void(const MapProgress&)>& progress, const SecondStage& second) {
  // A mapping already proven within the gap asked for (MapOptions::gap) needs no second stage.
  if (from.status == "optimal" || (from.bound && withinGap(o, from.objective, *from.bound)) ||
      seconds < kLeastMilpSeconds || (o.cancel && o.cancel->load()))
    return from;
  MapOptions options = o;
  options.start = from.mapping;
  options.timeLimitSeconds = seconds;
  // The second stage's reports continue the first's: its time after the first's, the better incumbent and
  // the higher bound of the two.
  std::function<void(const MapProgress&)> continued;
  if (progress)
    continued = [&](MapProgress p) {
      p.seconds += from.seconds;
      if (!p.incumbent || from.objective < *p.incumbent) p.incumbent = from.objective;
      if (from.bound && (!p.bound || *from.bound > *p.bound)) p.bound = from.bound;
      progress(p);
    };
  auto next = second(options, continued);
  const double bound = std::max(from.bound.value_or(0.0), *next.bound);
  auto& best = next.objective < from.objective ? next : from;
  best.boundSource = bound == *next.bound ? next.boundSource : from.boundSource;
  best.bound = bound;
  best.gap = best.objective > 0 ? std::max(0.0, (best.objective - bound) / best.objective) : 0.0;
  if (*best.gap < 1e-12) best.status = "optimal";
  best.seconds = from.seconds + next.seconds;
  best.evaluated = from.evaluated + next.evaluated;
  best.valid = from.valid + next.valid;
  best.nodes = next.nodes;
  best.mapper = from.mapper + " + " + next.mapper;
  return std::move(best);
}

void applyAnalyticBound(MapResult& r, const ConvLayer& layer, const Hierarchy& h, const ObjectiveSpec& o) {
  if (r.gap) return;
  r.bound = objectiveLowerBound(layer, h, o);
  r.boundSource = "analytic lower bound";
  r.gap = r.objective > 0 ? std::max(0.0, (r.objective - *r.bound) / r.objective) : 0.0;
  if (*r.gap < 1e-12) r.status = "optimal";  // the mapping meets a bound no mapping can beat
}

void requireFits(const ConvLayer& layer, const Hierarchy& h) {
  // The trivial mapping keeps one element of each stored tensor per level: if it breaks a limit, so does
  // every mapping (tiles only grow), so say which.
  const auto v = violations(layer, h, trivialMapping(layer, h));
  if (!v.empty())
    throw InputError("layer " + layer.name + " (" + shapeText(layer) + ") fits no mapping on " + h.name +
                     ": " + LimitError(v).what());
}

}  // namespace pim::convmap
