// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/milp_solve.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/convmap/mapspace.h"

namespace pim::convmap {

void requireMilp(const MapOptions& o) {
  milp::makeSolver(o.solver);
  if (o.collectFront)
    throw InputError(
        "ilp: a front of the mappings seen needs a search that sees many; the MILP reports one "
        "(use --mapper heuristic or exhaustive with --pareto)");
}

milp::SolveOptions solveOptions(const MapOptions& o, bool exact,
                                const std::function<void(const MapProgress&)>& progress) {
  milp::SolveOptions so;
  so.timeLimitSeconds = o.timeLimitSeconds;
  so.relativeGap = o.gap;
  so.threads = o.threads;
  so.maxNodes = o.maxNodes;
  so.cancel = o.cancel;
  so.onLog = o.solverLog;
  if (progress)
    so.onProgress = [progress, exact, name = "ilp (" + o.solver + ")"](const milp::SolveProgress& p) {
      MapProgress m{0, 0, exact ? p.incumbent : std::nullopt, p.seconds, std::nullopt, p.nodes, name};
      if (std::isfinite(p.bestBound)) m.bound = p.bestBound;
      progress(m);
    };
  return so;
}

std::optional<MapResult> decoded(const MappingMilp& milp, const milp::SolveResult& s, const ConvLayer& layer,
                                 const Hierarchy& h, const MapOptions& o) {
  if (!s.hasSolution()) return std::nullopt;
  MapResult r;
  r.mapping = decodeMapping(milp, s.values);
  chooseFewestActivationLayouts(layer, h, r.mapping);
  r.cost = evaluate(layer, h, r.mapping);
  r.objective = objectiveValue(o.objective, r.cost);
  // An incumbent's auxiliaries need not be at their least (a loop left unspared), so its objective may lie
  // above its mapping's energy, never below: at the optimum the two meet (the exactness test).
  if (milp.exact && r.objective > s.objective + 1e-6 * std::max(1.0, r.objective))
    throw std::logic_error("ilp: the MILP's objective " + std::to_string(s.objective) +
                           " pJ is below the evaluator's " + std::to_string(r.objective) +
                           " pJ for its mapping (a modelling defect)");
  return r;
}

}  // namespace pim::convmap
