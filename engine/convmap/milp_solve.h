// SPDX-License-Identifier: Apache-2.0
// What the mappers that solve the MILP (`ilp`, `ilp-spatial`) share: the refusal of what the MILP does not
// do, the solver's options from the mapper's, and a solution decoded into a mapping with the evaluator's
// cost.
#pragma once
#include <functional>
#include <optional>

#include "engine/convmap/mapper.h"
#include "engine/convmap/mapping_milp.h"

namespace pim::convmap {

/// Refuses what the MILP does not do (a front of the mappings seen), and a solver not built in, naming it.
void requireMilp(const MapOptions& o);

/// The solver's limits from the mapper's. `exact`: the solver's incumbents are objectives of the evaluator;
/// in a relaxation they are not, so only the bound is reported (the caller's incumbent stands).
milp::SolveOptions solveOptions(const MapOptions& o, bool exact,
                                const std::function<void(const MapProgress&)>& progress);

/// The mapping the solution decodes to, with its layouts and the evaluator's cost; none without a solution.
/// std::logic_error when an exact model's objective lies below the evaluator's (a modelling defect).
std::optional<MapResult> decoded(const MappingMilp& milp, const milp::SolveResult& s, const ConvLayer& layer,
                                 const Hierarchy& h, const MapOptions& o);

}  // namespace pim::convmap
