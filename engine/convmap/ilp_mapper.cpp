// SPDX-License-Identifier: Apache-2.0
// The `ilp` mapper: the energy MILP (energy_milp.h) solved by a registered solver, warm-started from
// MapOptions::start or, without one, from the heuristic's mapping (refineWithMilp, which `auto` shares).
// Its answer is decoded, given the layouts with the fewest row
// activations (lossless: layouts change no energy), and re-evaluated by the evaluator, whose energy is
// reported; it may not exceed the solver's objective (that would be a modelling defect, reported as one).
// The bound is the solver's, or the analytic lower bound when that is higher.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "engine/convmap/energy_milp.h"
#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapspace.h"

namespace pim::convmap {

namespace {

ConvMapping startOf(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o) {
  if (o.start && violations(layer, h, *o.start).empty()) return *o.start;
  return trivialMapping(layer, h);
}

/// Refuses what the MILP does not state, and a solver not built in, naming it.
void requireEnergyMilp(const MapOptions& o) {
  milp::makeSolver(o.solver);
  if (o.collectFront)
    throw InputError(
        "ilp: a front of the mappings seen needs a search that sees many; the MILP reports one "
        "(use --mapper heuristic or exhaustive with --pareto)");
  if (o.objective.kind != Objective::Energy)
    throw InputError(
        "ilp: the MILP states the energy objective only (latency counts DRAM row activations, "
        "which it does not model yet; docs/convmap.md); use --mapper auto, exhaustive or "
        "heuristic for " +
        std::string(objectiveName(o.objective.kind)));
  if (o.maxLatencyCycles)
    throw InputError(
        "ilp: a latency bound (the Pareto sweep) needs latency in the MILP, which it does not "
        "state yet; sweep with --mapper heuristic or exhaustive");
}

/// The MILP alone, from MapOptions::start (or the trivial mapping).
MapResult solveEnergyMilp(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                          const std::function<void(const MapProgress&)>& progress) {
  const auto began = std::chrono::steady_clock::now();
  auto milp = buildEnergyMilp(layer, h);
  const auto start = startOf(layer, h, o);
  milp.model.start = mappingValues(milp, start);
  milp::SolveOptions so;
  so.timeLimitSeconds = o.timeLimitSeconds;
  so.relativeGap = o.gap;
  so.threads = o.threads;
  so.maxNodes = o.maxNodes;
  so.cancel = o.cancel;
  so.onLog = o.solverLog;
  if (progress)
    so.onProgress = [&](const milp::SolveProgress& p) {
      MapProgress m{0, 0, p.incumbent, p.seconds, std::nullopt, p.nodes, "ilp (" + o.solver + ")"};
      if (std::isfinite(p.bestBound)) m.bound = p.bestBound;
      progress(m);
    };
  const auto s = milp::makeSolver(o.solver)->solve(milp.model, so);
  if (s.status == milp::SolveStatus::Infeasible)
    throw std::logic_error("ilp: the MILP of layer " + layer.name +
                           " is infeasible though the trivial "
                           "mapping fits (a modelling defect)");
  MapResult r;
  r.mapper = "ilp (" + o.solver + ")";
  r.mapping = s.hasSolution() ? decodeMapping(milp, s.values) : start;
  chooseFewestActivationLayouts(layer, h, r.mapping);
  r.cost = evaluate(layer, h, r.mapping);
  r.objective = r.cost.energyPj;
  // An incumbent's auxiliaries need not be at their least (a loop left unspared), so its objective may lie
  // above its mapping's energy, never below: at the optimum the two meet (the exactness test).
  if (s.hasSolution() && r.objective > s.objective + 1e-6 * std::max(1.0, r.objective))
    throw std::logic_error("ilp: the MILP's objective " + std::to_string(s.objective) +
                           " pJ is below the evaluator's " + std::to_string(r.objective) +
                           " pJ for its mapping (a modelling defect)");
  r.evaluated = r.valid = 1;
  r.nodes = s.nodes;
  r.bestSoFar.push_back(r.objective);
  r.status = s.status == milp::SolveStatus::Optimal ? "optimal" : "feasible";
  double bound = s.bestBound;
  r.boundSource = "MILP (" + o.solver + ")";
  if (r.status != "optimal") {
    const double analytic = objectiveBound(o.objective, lowerBound(layer, h));
    if (analytic > bound) {
      bound = analytic;
      r.boundSource = "analytic lower bound";
    }
  }
  r.bound = r.status == "optimal" ? r.objective : std::min(bound, r.objective);
  r.gap = r.objective > 0 ? (r.objective - *r.bound) / r.objective : 0.0;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return r;
}

/// `ilp`: from the caller's start, the MILP alone; without one, the heuristic's mapping first (a share of the
/// time, at most its proposal budget), as the trivial mapping leaves CBC far from anything good on large
/// layers (ResNet-18's 3 x 3: 44 nodes and a 93 % gap in 60 s).
class IlpMapper final : public IConvMapper {
 public:
  std::string name() const override { return "ilp"; }
  std::string description() const override {
    return "an exact MILP of the energy objective (CBC) from the heuristic's mapping: proven optimal, or "
           "stopped with a proven gap";
  }
  MapResult solve(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                  const std::function<void(const MapProgress&)>& progress) const override {
    requireFits(layer, h);
    requireEnergyMilp(o);
    if (o.start) return solveEnergyMilp(layer, h, o, progress);
    MapOptions first = o;
    first.timeLimitSeconds = o.timeLimitSeconds * kHeuristicShare;
    auto r = makeMapper("heuristic")->solve(layer, h, first, progress);
    const double left = o.timeLimitSeconds - r.seconds;
    return refineWithMilp(std::move(r), layer, h, o, left, progress);
  }

 private:
  static constexpr double kHeuristicShare = 0.2;
};

}  // namespace

std::unique_ptr<IConvMapper> makeIlpMapper() { return std::make_unique<IlpMapper>(); }

MapResult refineWithMilp(MapResult from, const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                         double seconds, const std::function<void(const MapProgress&)>& progress) {
  if (from.status == "optimal" || seconds < kLeastMilpSeconds || (o.cancel && o.cancel->load())) return from;
  MapOptions second = o;
  second.start = from.mapping;
  second.timeLimitSeconds = seconds;
  // The MILP's reports continue the first stage's: its time after the first's, the better incumbent and
  // the higher bound of the two.
  std::function<void(const MapProgress&)> continued;
  if (progress)
    continued = [&](MapProgress p) {
      p.seconds += from.seconds;
      if (!p.incumbent || from.objective < *p.incumbent) p.incumbent = from.objective;
      if (from.bound && (!p.bound || *from.bound > *p.bound)) p.bound = from.bound;
      progress(p);
    };
  auto exact = solveEnergyMilp(layer, h, second, continued);
  const double bound = std::max(from.bound.value_or(0.0), *exact.bound);
  auto& best = exact.objective < from.objective ? exact : from;
  best.boundSource = bound == *exact.bound ? exact.boundSource : from.boundSource;
  best.bound = bound;
  best.gap = best.objective > 0 ? std::max(0.0, (best.objective - bound) / best.objective) : 0.0;
  if (*best.gap < 1e-12) best.status = "optimal";
  best.seconds = from.seconds + exact.seconds;
  best.evaluated = from.evaluated + 1;
  best.valid = from.valid + 1;
  best.nodes = exact.nodes;
  best.mapper = from.mapper + " + " + exact.mapper;
  return std::move(best);
}

}  // namespace pim::convmap
