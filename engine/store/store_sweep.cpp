// SPDX-License-Identifier: Apache-2.0
// Completed units of distributed labelling sweeps in the results store (schema v5, docs/store.md).
#include "engine/store/store_impl.h"

namespace pim {

using store_detail::Stmt;

void ResultsStore::putSweepUnit(const SweepUnitRecord& r) {
  // The first completion wins: a unit finished twice (a retried process) keeps the row written first.
  Stmt s(impl(),
         "INSERT INTO sweep_units(plan, unit, drafts, labelled, seconds, rank, created_at) "
         "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(plan, unit) DO NOTHING",
         "putSweepUnit");
  s.bind(r.plan).bind(r.unit).bind(r.drafts).bind(r.labelled).bind(r.seconds).bind(r.rank);
  s.bind(r.createdAt ? r.createdAt : store_detail::nowSeconds()).run();
}

std::vector<SweepUnitRecord> ResultsStore::sweepUnits(std::string_view plan) {
  Stmt s(impl(),
         "SELECT unit, drafts, labelled, seconds, rank, created_at FROM sweep_units WHERE plan = ? "
         "ORDER BY unit",
         "sweepUnits");
  s.bind(plan);
  std::vector<SweepUnitRecord> out;
  while (s.step())
    out.push_back({std::string(plan), s.i64(0), s.i64(1), s.i64(2), s.f64(3), s.i64(4), s.i64(5)});
  return out;
}

}  // namespace pim
