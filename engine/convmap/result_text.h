// SPDX-License-Identifier: Apache-2.0
// A mapper's result as people and programs read it: the lines people read first (the CLI's `map` text and
// the window's mapping pane: layer, mapper and proof, mapping, layout, latency, energy, row activations) and
// the JSON `map --json` prints and `map --out` and the window's Save mapping write (`rowtrace --mapping`
// reads it back).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/convmap/mapper.h"

namespace pim::convmap {

/// Seven lines, each ending in '\n': "layer fc (R1 S1 P1 Q1 C256 K128 N1) on pimopt-default", "mapper ilp
/// (cbc): optimal, gap 0 % (bound: MILP (cbc)), 151 branch-and-bound nodes in 1.2 s", "mapping  ...",
/// "layout   ...", "latency  ...", "energy   ...", "row activations  ...". Numbers as %.12g.
std::string resultSummary(const ConvLayer& layer, const Hierarchy& h, const MapResult& r);

/// A proven gap as people read it: "4.48 %" (two decimals), or "unknown".
std::string gapText(const std::optional<double>& gap);

/// The cost (costJson), "layer", "shape", "hierarchy", "mapping", "label", "trace": null and "solver" (name,
/// status, objective, bound, gap, bound_source, nodes, evaluated, seconds, best_so_far).
nlohmann::json resultJson(const ConvLayer& layer, const Hierarchy& h, const MapResult& r);

}  // namespace pim::convmap
