// SPDX-License-Identifier: Apache-2.0
// `map --pareto`: the front a mapper saw, or an epsilon-constraint sweep (engine/convmap/epsilon_sweep), as
// JSON and as a table.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/convmap/epsilon_sweep.h"

namespace pim::cli {

nlohmann::json frontJson(const convmap::Hierarchy& h, const convmap::MapResult& r);
void printFront(const convmap::Hierarchy& h, const convmap::MapResult& r);
nlohmann::json sweepJson(const convmap::Hierarchy& h, const std::vector<convmap::SweepPoint>& sweep);
void printSweep(const convmap::Hierarchy& h, const std::vector<convmap::SweepPoint>& sweep);

}  // namespace pim::cli
