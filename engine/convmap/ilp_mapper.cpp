// SPDX-License-Identifier: Apache-2.0
// The `ilp` mapper: the MILP (mapping_milp.h) solved by a registered solver, warm-started from
// MapOptions::start or, without one, from the heuristic's mapping (refineWithMilp, which `auto` shares).
// Its answer is decoded, given the layouts with the fewest row activations (lossless: layouts change no
// energy, and each tensor's activations set only its own DRAM time), and re-evaluated by the evaluator,
// whose figures are reported. Under energy the solver's objective is the evaluator's, so the evaluator's may
// not exceed it (that would be a modelling defect, reported as one); under latency and the blend the MILP is
// a relaxation, so its mapping is kept only if it beats the start, and the result is optimal only when the
// evaluated mapping meets the proven bound. The bound is the solver's, or the analytic one when higher.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapping_milp.h"
#include "engine/convmap/milp_solve.h"

namespace pim::convmap {

namespace {

ConvMapping startOf(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o) {
  if (o.start && isValid(layer, h, *o.start)) return *o.start;
  return trivialMapping(layer, h);
}

/// The MILP alone, from MapOptions::start (or the trivial mapping).
MapResult solveMilp(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                    const std::function<void(const MapProgress&)>& progress) {
  const auto began = std::chrono::steady_clock::now();
  std::optional<CostBound> lb;  // the analytic bound, walked only when needed (it can take a second)
  auto analyticBound = [&]() -> const CostBound& { return lb ? *lb : *(lb = lowerBound(layer, h)); };
  auto milp = buildMappingMilp(layer, h, {o.objective, o.maxLatencyCycles});
  if (milp.latency)  // no mapping is faster than the analytic bound: a cut the relaxation may lack
    milp.model.variables[*milp.latency].lower = double(analyticBound().latencyCycles);
  const auto start = startOf(layer, h, o);
  milp.model.start = mappingValues(milp, start);
  MapOptions timed = o;  // the solver gets what building the model left of the time limit
  timed.timeLimitSeconds =
      std::max(0.1, o.timeLimitSeconds -
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  const auto s = milp::makeSolver(o.solver)->solve(milp.model, solveOptions(timed, milp.exact, progress));
  MapResult r;
  r.cost = evaluate(layer, h, start);
  r.mapping = start;
  r.objective = objectiveValue(o.objective, r.cost);
  const bool startFits = feasible(o, r.cost);
  if (s.status == milp::SolveStatus::Infeasible && startFits)
    throw std::logic_error("ilp: the MILP of layer " + layer.name + " is infeasible though mapping " +
                           mappingLabel(h, start) + " fits (a modelling defect)");
  if (auto m = decoded(milp, s, layer, h, o);
      m && feasible(o, m->cost) && (!startFits || m->objective <= r.objective))
    r = std::move(*m);
  else if (!startFits)
    throw InputError("ilp: no mapping of layer " + layer.name + " found within " +
                     std::to_string(*o.maxLatencyCycles) + " cycles (give a feasible start mapping)");
  r.mapper = "ilp (" + o.solver + ")";
  r.evaluated = r.valid = 1;
  r.nodes = s.nodes;
  r.bestSoFar.push_back(r.objective);
  double bound = s.bestBound;
  r.boundSource = "MILP (" + o.solver + ")";
  const bool solved = milp.exact && s.status == milp::SolveStatus::Optimal;
  if (const double analytic = solved ? bound : objectiveLowerBound(layer, h, o.objective); analytic > bound) {
    bound = analytic;
    r.boundSource = "analytic lower bound";
  }
  const bool proven = solved || r.objective <= bound + 1e-9 * std::max(1.0, r.objective);
  r.status = proven ? "optimal" : "feasible";
  r.bound = proven ? r.objective : std::min(bound, r.objective);
  r.gap = r.objective > 0 ? (r.objective - *r.bound) / r.objective : 0.0;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return r;
}

/// `ilp`: under energy alone from the caller's start, the MILP alone; otherwise the heuristic's mapping first
/// (a share of the time, at most its proposal budget, from the caller's start if any), as the trivial mapping
/// leaves CBC far from anything good on large layers (ResNet-18's 3 x 3: 44 nodes and a 93 % gap in 60 s),
/// and a relaxed MILP's own mappings may break the latency it does not see whole (its row activations).
class IlpMapper final : public IConvMapper {
 public:
  std::string name() const override { return "ilp"; }
  std::string description() const override {
    return "a MILP (CBC) from the heuristic's mapping, exact under energy, a relaxation with a proven bound "
           "under latency: proven optimal, or stopped with a proven gap";
  }
  MapResult solve(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                  const std::function<void(const MapProgress&)>& progress) const override {
    requireFits(layer, h);
    requireMilp(o);
    if (o.start && o.objective.kind == Objective::Energy && !o.maxLatencyCycles)
      return solveMilp(layer, h, o, progress);
    MapOptions first = o;
    first.timeLimitSeconds = o.timeLimitSeconds * kMilpHeuristicShare;
    auto r = makeMapper("heuristic")->solve(layer, h, first, progress);
    const double left = o.timeLimitSeconds - r.seconds;
    return refineWithMilp(std::move(r), layer, h, o, left, progress);
  }
};

}  // namespace

std::unique_ptr<IConvMapper> makeIlpMapper() { return std::make_unique<IlpMapper>(); }

MapResult refineWithMilp(MapResult from, const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                         double seconds, const std::function<void(const MapProgress&)>& progress) {
  return refineWith(std::move(from), o, seconds, progress,
                    [&](const MapOptions& second, const std::function<void(const MapProgress&)>& continued) {
                      return solveMilp(layer, h, second, continued);
                    });
}

}  // namespace pim::convmap
