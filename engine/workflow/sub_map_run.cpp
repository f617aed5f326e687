// SPDX-License-Identifier: Apache-2.0
#include "engine/workflow/sub_map_run.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/common/error.h"
#include "engine/mapping/tile_mapping.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"
#include "engine/workflow/mapping_schedule.h"

namespace pim {
namespace {

constexpr const char* kMergeRate = "pim.hostMergeGops";

// The shape at which `k`'s loops run over the box's extents: each sub-map is mapped on its own, so it
// costs what the same kernel of that size costs with its data in its own layout. Every loop the box cuts
// must run over [0, d) of one kernel dimension d (checkBox then checks every loop's extent).
Shape boxShape(const Kernel& k, const Shape& full, const DimensionSets& sets, const SubMapBox& box,
               const MappingMap& map) {
  Shape out = full;
  for (std::size_t j = 0; j < k.loops.size(); ++j) {
    if (box.extent[j] == sets.loopHi[j] - sets.loopLo[j]) continue;
    const Loop& l = k.loops[j];
    if (!(l.lower == AffineExpr::ofConst(0) && l.upper.isSingleVar() && l.upper.terms.front().second == 1 &&
          l.upper.constant == 0))
      throw InputError(map.at.str() + ": " + map.name + " cuts loop " + l.var +
                       ", whose range is not [0, d) " + "of one dimension d of " + k.name +
                       "; a sub-map runs as the kernel at a smaller size");
    out.values[static_cast<std::size_t>(l.upper.terms.front().first)] = box.extent[j];
  }
  return out;
}

// The sub-problem's loops run over exactly the box (loops sharing a dimension are cut alike).
void checkBox(const Problem& sub, const SubMapBox& box, const MappingMap& map) {
  const DimensionSets& sets = sub.space().sets();
  for (std::size_t j = 0; j < box.extent.size(); ++j)
    if (sets.loopHi[j] - sets.loopLo[j] != box.extent[j])
      throw InputError(map.at.str() + ": " + map.name + " gives loop " + sub.kernel().loops[j].var + " " +
                       std::to_string(box.extent[j]) + " iterations, but cutting the loops that share its " +
                       "dimension leaves it " + std::to_string(sets.loopHi[j] - sets.loopLo[j]));
}

// Per output tensor, the range along each axis a box writes (covering ranges over every reference).
using Footprint = std::vector<IndexSet>;
std::vector<Footprint> outputFootprints(const Kernel& k, const DimensionSets& sets, const SubMapBox& box) {
  std::vector<IndexSet> loops;
  for (std::size_t j = 0; j < k.loops.size(); ++j)
    loops.push_back(IndexSet::range(sets.loopLo[j] + box.lo[j], sets.loopLo[j] + box.lo[j] + box.extent[j]));
  std::vector<Footprint> out(k.tensors.size());
  for (const auto& [statement, ref] : k.references()) {
    const auto t = static_cast<std::size_t>(ref.tensor);
    if (k.tensors[t].role != TensorRole::Output) continue;
    Footprint f;
    for (const AffineExpr& e : ref.index) f.push_back(evaluateOver(e, loops).expanded());
    if (out[t].empty()) {
      out[t] = f;
      continue;
    }
    for (std::size_t a = 0; a < f.size(); ++a)
      out[t][a] = IndexSet::range(std::min(out[t][a].lo(), f[a].lo()), std::max(out[t][a].hi(), f[a].hi()));
  }
  return out;
}

std::int64_t volume(const Footprint& f) {
  std::int64_t v = 1;
  for (const IndexSet& s : f) v *= s.count;
  return v;
}

// Elements of the union of boxes `fs` (all of one tensor), by inclusion and exclusion over the (at most
// kMaxSubMaps) boxes, a branch dropped as soon as its intersection is empty: exact whatever the tensor's
// rank.
std::int64_t unionVolume(const std::vector<Footprint>& fs, std::size_t from = 0,
                         const Footprint* common = nullptr, int sign = -1) {
  std::int64_t total = 0;
  for (std::size_t i = from; i < fs.size(); ++i) {
    Footprint both = fs[i];
    bool empty = false;
    for (std::size_t a = 0; common && a < both.size(); ++a) {
      both[a] = IndexSet::range(std::max(both[a].lo(), (*common)[a].lo()),
                                std::min(both[a].hi(), (*common)[a].hi()));
      empty |= both[a].empty();
    }
    if (empty) continue;
    total += -sign * volume(both) + unionVolume(fs, i + 1, &both, -sign);
  }
  return total;
}

// Partial results the host adds: per output tensor, what the sub-maps write beyond the elements written.
std::int64_t partialsLeft(const Kernel& k, const DimensionSets& sets, const std::vector<SubMapBox>& boxes) {
  std::vector<std::vector<Footprint>> byTensor(k.tensors.size());
  for (const SubMapBox& b : boxes) {
    const std::vector<Footprint> f = outputFootprints(k, sets, b);
    for (std::size_t t = 0; t < f.size(); ++t)
      if (!f[t].empty()) byTensor[t].push_back(f[t]);
  }
  std::int64_t partials = 0;
  for (const auto& fs : byTensor) {
    std::int64_t written = 0;
    for (const Footprint& f : fs) written += volume(f);
    partials += written - unionVolume(fs);
  }
  return partials;
}

// Adds `e` (run after what `into` holds) to `into`: times, energies, statistics and counts add; the units in
// use and the family's machine-describing facts take the larger; bus utilisation is weighted by time.
void addRun(Evaluation& into, const Evaluation& e, const ITarget& target) {
  const double before = static_cast<double>(into.totalCycles), added = static_cast<double>(e.totalCycles);
  for (std::size_t i = 0; i < into.cycles.size(); ++i) into.cycles[i] += e.cycles[i];
  into.totalCycles += e.totalCycles;
  into.subCycles.resize(std::max(into.subCycles.size(), e.subCycles.size()), 0);
  for (std::size_t i = 0; i < e.subCycles.size(); ++i) into.subCycles[i] += e.subCycles[i];
  into.tCKns = e.tCKns;
  into.timeNs += e.timeNs;
  into.energy.add(e.energy);
  into.energy.sources = e.energy.sources;
  into.energyPj = into.energy.total_pJ();
  UnitStatistics& s = into.unitStats;
  if (!e.unitStats.empty()) {
    s.statCount = e.unitStats.statCount;
    s.values.resize(std::max(s.values.size(), e.unitStats.values.size()), 0.0);
    for (std::size_t i = 0; i < e.unitStats.values.size(); ++i) s.values[i] += e.unitStats.values[i];
  }
  auto& bus = into.commandBusUtilisation;
  bus.resize(std::max(bus.size(), e.commandBusUtilisation.size()), 0.0);
  for (std::size_t g = 0; g < bus.size(); ++g) {
    const double u = g < e.commandBusUtilisation.size() ? e.commandBusUtilisation[g] : 0.0;
    bus[g] = before + added > 0 ? (bus[g] * before + u * added) / (before + added) : 0.0;
  }
  into.unitsUsed = std::max(into.unitsUsed, e.unitsUsed);
  into.placedBytes += e.placedBytes;
  into.paddingBytes += e.paddingBytes;
  into.commands += e.commands;
  into.serialSegments += e.serialSegments;
  if (e.preloadCycles) into.preloadCycles = into.preloadCycles.value_or(0) + *e.preloadCycles;
  for (const auto& fact : e.facts) {
    auto it = std::find_if(into.facts.begin(), into.facts.end(),
                           [&](const auto& f) { return f.first == fact.first; });
    if (it == into.facts.end())
      into.facts.push_back(fact);
    else
      it->second =
          target.factAddsOverRuns(fact.first) ? it->second + fact.second : std::max(it->second, fact.second);
  }
}

// The merge's cycles, added to the output rearrangement and to the family's last sub-phase of it.
void addMerge(MappingRun& run, const Problem& full) {
  if (run.mergedPartials <= 0) return;
  const Parameter* rate = full.backend().param(kMergeRate);
  if (!rate || !(rate->value > 0)) {
    std::string names;
    for (const SubMapRun& s : run.subMaps) names += (names.empty() ? "" : ", ") + s.name;
    throw InputError("mapping: sub-maps " + names + " leave " + std::to_string(run.mergedPartials) +
                     " partial results of " + full.kernel().name +
                     "'s outputs (a reduction split across sub-maps), and backend " + full.backend().name +
                     " declares no host merge rate (" + kMergeRate + ") to add them; split only loops that " +
                     "write distinct outputs across its sub-maps");
  }
  Evaluation& t = run.total;
  const double ns = static_cast<double>(run.mergedPartials) / rate->value;
  run.mergeCycles = std::llround(ns / t.tCKns);
  t.cycles[2] += run.mergeCycles;
  t.totalCycles += run.mergeCycles;
  t.timeNs += ns;
  const auto& subs = targetOf(full.backend()).subPhases();
  for (std::size_t i = subs.size(); i-- > 0;)
    if (subs[i].phase == 2 && i < t.subCycles.size()) {
      t.subCycles[i] += run.mergeCycles;
      break;
    }
}

}  // namespace

std::vector<std::string> subMapLines(const MappingRun& run) {
  std::vector<std::string> lines;
  for (const SubMapRun& r : run.subMaps) {
    char time[96];
    std::snprintf(time, sizeof time, ": %lld cycles (%.1f us)",
                  static_cast<long long>(r.evaluation.totalCycles), r.evaluation.timeNs / 1e3);
    std::string settings;
    for (const auto& [key, value] : r.settings) {
      char v[32];
      std::snprintf(v, sizeof v, "%g", value);
      settings += std::string(settings.empty() ? ", " : " ") + key + "=" + v;
    }
    lines.push_back(r.name + " over " + boxText(r.box) + " (" +
                    shapeString(r.problem->kernel(), r.problem->shape()) + settings + "), draft " +
                    r.draftLabel + time);
  }
  if (run.mergedPartials > 0)
    lines.push_back("host merge of " + std::to_string(run.mergedPartials) +
                    " partial results the sub-maps leave: " + std::to_string(run.mergeCycles) + " cycles");
  return lines;
}

MappingRun runSubMaps(const MappingSpec& m, const Problem& full, const EvalOptions& o) {
  const Kernel& k = full.kernel();
  const DimensionSets& sets = full.space().sets();
  std::vector<std::int64_t> extents;
  std::vector<std::string> names;
  for (std::size_t j = 0; j < k.loops.size(); ++j) {
    extents.push_back(sets.loopHi[j] - sets.loopLo[j]);
    names.push_back(k.loops[j].var);
  }
  const std::vector<SubMapBox> boxes = placeSubMaps(m, extents, names);
  const ITarget& target = targetOf(full.backend());
  MappingRun run;
  for (const SubMapBox& box : boxes) {
    MappingSpec one = m;
    one.maps = {m.maps[box.map]};  // mappedSchedule and mappingSettings read a file of one map
    Backend b = full.backend();
    SubMapRun s;
    s.settings = mappingSettings(one, b);
    b.setParameters(s.settings);
    s.name = one.maps.front().name;
    s.box = box;
    const MappingMap& map = m.maps[box.map];
    s.problem = std::make_unique<Problem>(std::move(b), k, boxShape(k, full.shape(), sets, box, map),
                                          full.residency());
    checkBox(*s.problem, box, map);
    const MappedSchedule mapped = mappedSchedule(one, *s.problem);
    s.draft = mapped.draft;
    s.notes = mapped.notes;
    s.draftLabel = target.candidates(*s.problem)->label(s.draft);
    s.evaluation = evaluateDraft(*s.problem, s.draft, o);
    addRun(run.total, s.evaluation, target);
    run.subMaps.push_back(std::move(s));
  }
  run.mergedPartials = partialsLeft(k, sets, boxes);
  addMerge(run, full);
  return run;
}

}  // namespace pim
