// SPDX-License-Identifier: Apache-2.0
#include "app/cli/map_store.h"

#include <cmath>
#include <iostream>

#include "engine/convmap/mapping_io.h"
#include "engine/convmap/result_text.h"
#include "engine/convmap/store_keys.h"

namespace pim::cli {

using namespace pim::convmap;

StoredCheck checkStored(ResultsStore& store, const ConvLayer& layer, const Hierarchy& h,
                        const ObjectiveSpec& o, const std::string& mapper) {
  StoredCheck c;
  const auto row = store.mapping(hierarchyHash(h), layerKey(layer), objectiveKey(o), mapper);
  if (!row) return c;
  if (row->status != "optimal") {
    c.note =
        "the store holds a " + row->status + " mapping for this layer (not proven optimal): solving again";
    return c;
  }
  const std::string origin = store.path() + ": mapping of " + row->layer;
  MapResult r;
  c.invalid = true;
  try {
    r.mapping = parseMappingJson(nlohmann::json::parse(row->mappingJson), h, origin);
    r.cost = evaluate(layer, h, r.mapping);
  } catch (const std::exception& e) {  // a row another build or a hand edit left unreadable or invalid
    c.note = std::string("the stored mapping cannot be used (") + e.what() + "): solving again";
    return c;
  }
  r.objective = objectiveValue(o, r.cost);
  if (std::abs(r.objective - row->objectiveValue) > 1e-9 * std::max(1.0, std::abs(r.objective))) {
    c.note = "the stored mapping's objective " + num(row->objectiveValue) + " is " + num(r.objective) +
             " under today's model: solving again";
    return c;
  }
  c.invalid = false;
  r.mapper = row->mapper;
  r.status = row->status;
  r.bound = row->bound;
  r.gap = row->gap;
  r.boundSource = row->boundSource;
  r.seconds = row->seconds;
  c.served = std::move(r);
  return c;
}

bool storeMapping(ResultsStore& store, const ConvLayer& layer, const Hierarchy& h, const ObjectiveSpec& o,
                  const std::string& mapper, const MapResult& r, bool replace) {
  StoredMapping m;
  m.hierarchyHash = hierarchyHash(h);
  m.hierarchy = h.name;
  m.layerKey = layerKey(layer);
  m.layer = layer.name;
  m.objective = objectiveKey(o);
  m.mapper = mapper;
  m.mappingJson = mappingJson(h, r.mapping).dump();
  m.objectiveValue = r.objective;
  m.latencyCycles = r.cost.latencyCycles;
  m.energyPj = r.cost.energyPj;
  m.rowActivations = r.cost.rowActs.total();
  m.status = r.status;
  m.bound = r.bound;
  m.gap = r.gap;
  m.boundSource = r.boundSource;
  m.seconds = r.seconds;
  return store.putMapping(m, replace);
}

void registerMappingStoreCommands(CLI::App& app) {
  struct Args {
    std::string db;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("mappings", "list the conv mappings a results store holds (map --db)");
  cmd->add_option("--db", a->db, "results store (SQLite)")->required();
  cmd->add_flag("--json", a->json, "machine-readable output");
  cmd->callback([a] {
    auto store = ResultsStore::open(a->db);
    const auto rows = store.mappings();
    if (a->json) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& m : rows)
        out.push_back({{"hierarchy", m.hierarchy},
                       {"hierarchy_hash", m.hierarchyHash},
                       {"layer", m.layer},
                       {"shape", m.layerKey},
                       {"objective", m.objective},
                       {"mapper", m.mapper},
                       {"objective_value", m.objectiveValue},
                       {"latency_cycles", m.latencyCycles},
                       {"energy_pj", m.energyPj},
                       {"row_activations", m.rowActivations},
                       {"status", m.status},
                       {"bound", m.bound ? nlohmann::json(*m.bound) : nlohmann::json()},
                       {"gap", m.gap ? nlohmann::json(*m.gap) : nlohmann::json()},
                       {"bound_source", m.boundSource},
                       {"seconds", m.seconds},
                       {"created_at", m.createdAt},
                       {"mapping", nlohmann::json::parse(m.mappingJson, nullptr, false)}});
      printJson(out);
      return;
    }
    TextTable t({"hierarchy", "layer", "shape", "objective", "mapper", "latency cycles", "energy nJ",
                 "row acts", "status", "gap"});
    for (const auto& m : rows)
      t.add({m.hierarchy, m.layer, m.layerKey, m.objective, m.mapper, std::to_string(m.latencyCycles),
             num(m.energyPj / 1000), std::to_string(m.rowActivations), m.status, gapText(m.gap)});
    std::cout << rows.size() << " mapping" << (rows.size() == 1 ? "" : "s") << " in " << a->db << "\n"
              << t.str();
  });
}

}  // namespace pim::cli
