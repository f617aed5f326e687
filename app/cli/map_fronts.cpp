// SPDX-License-Identifier: Apache-2.0
#include "app/cli/map_fronts.h"

#include <iostream>

#include "app/cli/cli_common.h"
#include "engine/convmap/mapping_io.h"
#include "engine/convmap/result_text.h"

namespace pim::cli {

using namespace pim::convmap;

nlohmann::json frontJson(const Hierarchy& h, const MapResult& r) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.front.points())
    points.push_back({{"latency_cycles", p.latencyCycles},
                      {"energy_pj", p.energyPj},
                      {"row_activations", p.rowActivations},
                      {"label", mappingLabel(h, p.mapping)},
                      {"mapping", mappingJson(h, p.mapping)}});
  return {{"method", "seen"}, {"exact", r.status == "optimal"}, {"points", points}};
}

void printFront(const Hierarchy& h, const MapResult& r) {
  std::cout << "pareto   " << r.front.size()
            << " non-dominated mappings over latency, energy and row activations ("
            << (r.status == "optimal" ? "exact: the whole space walked"
                                      : "among those the search saw; not proven")
            << "):\n";
  TextTable t({"latency cycles", "energy nJ", "row acts", "mapping"});
  for (const auto& p : r.front.points())
    t.add({std::to_string(p.latencyCycles), num(p.energyPj / 1000), std::to_string(p.rowActivations),
           mappingLabel(h, p.mapping)});
  std::cout << t.str();
}

nlohmann::json sweepJson(const Hierarchy& h, const std::vector<SweepPoint>& sweep) {
  nlohmann::json points = nlohmann::json::array();
  bool exact = true;
  for (const auto& p : sweep) {
    const auto& r = p.result;
    exact = exact && r.status == "optimal";
    points.push_back({{"latency_bound", p.latencyBound ? nlohmann::json(*p.latencyBound) : nlohmann::json()},
                      {"latency_cycles", r.cost.latencyCycles},
                      {"energy_pj", r.cost.energyPj},
                      {"row_activations", r.cost.rowActs.total()},
                      {"status", r.status},
                      {"gap", r.gap ? nlohmann::json(*r.gap) : nlohmann::json()},
                      {"bound_source", r.boundSource},
                      {"dominated", p.dominated},
                      {"label", mappingLabel(h, r.mapping)},
                      {"mapping", mappingJson(h, r.mapping)}});
  }
  return {{"method", "epsilon-constraint"}, {"exact", exact}, {"points", points}};
}

void printSweep(const Hierarchy& h, const std::vector<SweepPoint>& sweep) {
  std::cout << "pareto   epsilon-constraint sweep: least energy under each latency bound, from the fastest "
               "latency to the cheapest mapping's (the last row, solved without a bound)"
            << (sweep.size() == 1 ? "; the cheapest mapping found is also the fastest: one point" : "")
            << "\n";
  TextTable t({"latency bound", "latency cycles", "energy nJ", "row acts", "status", "gap", "mapping"});
  for (const auto& p : sweep) {
    const auto& r = p.result;
    t.add({p.latencyBound ? std::to_string(*p.latencyBound) : std::string("-"),
           std::to_string(r.cost.latencyCycles), num(r.cost.energyPj / 1000),
           std::to_string(r.cost.rowActs.total()), r.status + (p.dominated ? " (dominated)" : ""),
           gapText(r.gap), mappingLabel(h, r.mapping)});
  }
  std::cout << t.str();
}

}  // namespace pim::cli
