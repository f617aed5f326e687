// SPDX-License-Identifier: Apache-2.0
// Conv mappings in the results store (schema v4, docs/store.md): one row per (hierarchy hash, layer,
// objective, mapper), the best the mapper has found for that key.
#include "engine/store/store_impl.h"

namespace pim {
namespace {

using store_detail::Impl;
using store_detail::Stmt;

constexpr std::string_view kMappingColumns =
    "hierarchy_hash, hierarchy, layer_key, layer, objective, mapper, mapping_json, objective_value, "
    "latency_cycles, energy_pj, row_activations, status, bound, gap, bound_source, seconds, created_at";

std::optional<double> optionalReal(const Stmt& s, int c) {
  return s.isNull(c) ? std::nullopt : std::optional<double>(s.f64(c));
}

StoredMapping readMapping(const Stmt& s) {
  StoredMapping m;
  m.hierarchyHash = s.text(0);
  m.hierarchy = s.text(1);
  m.layerKey = s.text(2);
  m.layer = s.text(3);
  m.objective = s.text(4);
  m.mapper = s.text(5);
  m.mappingJson = s.text(6);
  m.objectiveValue = s.f64(7);
  m.latencyCycles = s.i64(8);
  m.energyPj = s.f64(9);
  m.rowActivations = s.i64(10);
  m.status = s.text(11);
  m.bound = optionalReal(s, 12);
  m.gap = optionalReal(s, 13);
  m.boundSource = s.text(14);
  m.seconds = s.f64(15);
  m.createdAt = s.i64(16);
  return m;
}

}  // namespace

bool ResultsStore::putMapping(const StoredMapping& m, bool replace) {
  // The WHERE of the upsert keeps a better stored row (unless `replace`): the new one must have a lower
  // objective, or the same with a smaller gap (a known gap beats an unknown one).
  static const std::string sql =
      "INSERT INTO mappings(" + std::string(kMappingColumns) +
      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT(hierarchy_hash, layer_key, objective, mapper) DO UPDATE SET "
      "hierarchy = excluded.hierarchy, layer = excluded.layer, mapping_json = excluded.mapping_json, "
      "objective_value = excluded.objective_value, latency_cycles = excluded.latency_cycles, "
      "energy_pj = excluded.energy_pj, row_activations = excluded.row_activations, status = excluded.status, "
      "bound = excluded.bound, gap = excluded.gap, bound_source = excluded.bound_source, seconds = "
      "excluded.seconds, created_at = "
      "excluded.created_at "
      "WHERE ? OR " +
      std::string(store_detail::kBetterMapping);
  Stmt s(impl(), sql, "putMapping");
  s.bind(m.hierarchyHash).bind(m.hierarchy).bind(m.layerKey).bind(m.layer).bind(m.objective).bind(m.mapper);
  s.bind(m.mappingJson).bind(m.objectiveValue).bind(m.latencyCycles).bind(m.energyPj).bind(m.rowActivations);
  s.bind(m.status).bind(m.bound).bind(m.gap).bind(m.boundSource).bind(m.seconds);
  s.bind(m.createdAt ? m.createdAt : store_detail::nowSeconds()).bind(std::int64_t{replace});
  s.run();
  return sqlite3_changes(impl().db()) > 0;
}

std::optional<StoredMapping> ResultsStore::mapping(std::string_view hierarchyHash, std::string_view layerKey,
                                                   std::string_view objective, std::string_view mapper) {
  static const std::string sql =
      "SELECT " + std::string(kMappingColumns) +
      " FROM mappings WHERE hierarchy_hash = ? AND layer_key = ? AND objective = ? "
      "AND mapper = ?";
  Stmt s(impl(), sql, "mapping");
  s.bind(hierarchyHash).bind(layerKey).bind(objective).bind(mapper);
  if (!s.step()) return std::nullopt;
  return readMapping(s);
}

std::vector<StoredMapping> ResultsStore::mappings() {
  static const std::string sql = "SELECT " + std::string(kMappingColumns) +
                                 " FROM mappings ORDER BY hierarchy, layer, objective, mapper";
  Stmt s(impl(), sql, "mappings");
  std::vector<StoredMapping> out;
  while (s.step()) out.push_back(readMapping(s));
  return out;
}

}  // namespace pim
