// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/result_text.h"

#include <sstream>

#include "engine/common/number_text.h"
#include "engine/convmap/mapping.h"
#include "engine/convmap/mapping_io.h"

namespace pim::convmap {

namespace {

std::string num(double v) { return compactNumber(v); }

}  // namespace

std::string gapText(const std::optional<double>& gap) {
  return gap ? withDecimals(*gap * 100, 2) + " %" : std::string("unknown");
}

std::string resultSummary(const ConvLayer& layer, const Hierarchy& h, const MapResult& r) {
  const auto& c = r.cost;
  const auto& m = r.mapping;
  std::ostringstream out;
  out << "layer " << layer.name << " (" << shapeText(layer) << ") on " << h.name << "\n"
      << "mapper " << r.mapper << ": " << r.status << ", gap " << gapText(r.gap)
      << (r.gap ? " (bound: " + r.boundSource + ")" : std::string()) << ", "
      << (r.nodes ? std::to_string(*r.nodes) + " branch-and-bound nodes"
                  : std::to_string(r.evaluated) + " proposals (" + std::to_string(r.valid) + " valid)")
      << " in " << num(r.seconds) << " s\n"
      << "mapping  " << mappingLabel(h, m) << "\n"
      << "layout   input " << layoutName(m.layout[Input])
      << (m.layout[Input] == Layout::RowAligned
              ? " (block " + std::to_string(m.blockH) + " x " + std::to_string(m.blockW) + ")"
              : std::string())
      << ", weight " << layoutName(m.layout[Weight]) << ", output " << layoutName(m.layout[Output]) << "\n"
      << "latency  " << c.latencyCycles << " cycles (bound by " << c.boundBy << "; compute "
      << c.computeCycles << ")\n"
      << "energy   " << num(c.energyPj / 1000) << " nJ (MACs " << num(c.macEnergyPj / 1000) << " nJ)\n"
      << "row activations  input " << c.rowActs.count[Input] << " (" << c.rowActs.regime[Input]
      << "), weight " << c.rowActs.count[Weight] << " (" << c.rowActs.regime[Weight] << "), output "
      << c.rowActs.count[Output] << " (" << c.rowActs.regime[Output] << "), total " << c.rowActs.total()
      << "\n";
  return out.str();
}

nlohmann::json resultJson(const ConvLayer& layer, const Hierarchy& h, const MapResult& r) {
  auto j = costJson(h, r.cost);
  j["layer"] = layer.name;
  j["shape"] = layerJson(layer);
  j["hierarchy"] = h.name;
  j["mapping"] = mappingJson(h, r.mapping);
  j["label"] = mappingLabel(h, r.mapping);
  j["trace"] = nullptr;
  j["solver"] = {{"name", r.mapper},
                 {"status", r.status},
                 {"objective", r.objective},
                 {"bound", r.bound ? nlohmann::json(*r.bound) : nlohmann::json()},
                 {"gap", r.gap ? nlohmann::json(*r.gap) : nlohmann::json()},
                 {"bound_source", r.boundSource.empty() ? nlohmann::json() : nlohmann::json(r.boundSource)},
                 {"nodes", r.nodes ? nlohmann::json(*r.nodes) : nlohmann::json()},
                 {"evaluated", r.evaluated},
                 {"seconds", r.seconds},
                 {"best_so_far", r.bestSoFar}};
  return j;
}

}  // namespace pim::convmap
