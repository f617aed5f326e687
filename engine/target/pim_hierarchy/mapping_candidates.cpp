// SPDX-License-Identifier: Apache-2.0
#include "engine/target/pim_hierarchy/mapping_candidates.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "engine/common/error.h"
#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/store_keys.h"
#include "engine/target/conv_recognition.h"
#include "engine/target/list_space.h"
#include "engine/target/pim_hierarchy/hierarchy_backend.h"

namespace pim {
namespace {

namespace cm = convmap;

/// Thrown out of candidateList() when its control's cancel flag is set: the list is not made.
struct ListCancelled {};

/// One line on a search of the list, the figures first: "mapping the layer (latency, 1 of 3): best 464,128
/// cycles, bound 451,584 cycles, gap 2.7 % · 12,000 of 20,000 mappings evaluated · 0.4 s".
std::string searchLine(const cm::ObjectiveSpec& o, int index, cm::MapProgress p) {
  p.stage.clear();  // the heuristic's, always
  return "mapping the layer (" + std::string(cm::objectiveName(o.kind)) + ", " + std::to_string(index + 1) +
         " of 3): " + cm::progressText(o, p, kCandidateProposals);
}

/// The non-dominated mappings of the fixed searches, trivial mapping first. Throws ListCancelled.
std::vector<cm::ConvMapping> candidateList(const cm::ConvLayer& layer, const cm::Hierarchy& h,
                                           const PrepareControl& control) {
  cm::ParetoFront front;
  auto merge = [&](const cm::MapResult& r) {
    if (control.cancel && control.cancel->load()) throw ListCancelled{};  // a search cut short lists less
    for (const auto& point : r.front.points()) front.add(point);
  };
  cm::MapOptions o;
  o.timeLimitSeconds = 1e12;  // never the limit: the proposal count is, so every run lists the same
  o.seed = kCandidateSeed;
  o.maxEvaluations = kCandidateProposals;
  o.collectFront = true;
  o.cancel = control.cancel;
  int index = 0;
  for (const auto kind : {cm::Objective::Latency, cm::Objective::Energy, cm::Objective::Blended}) {
    o.objective = cm::normalised({kind}, layer, h);
    std::function<void(const cm::MapProgress&)> progress;
    if (control.report)
      progress = [&, index](const cm::MapProgress& p) { control.report(searchLine(o.objective, index, p)); };
    merge(cm::makeMapper("heuristic")->solve(layer, h, o, progress));
    ++index;
  }
  if (cm::exhaustiveFits(layer, h, kCandidateExhaustiveMappings)) {
    if (control.report) control.report("mapping the layer: walking its whole mapspace for the exact front");
    o.objective = {cm::Objective::Latency};
    merge(cm::makeMapper("exhaustive")->solve(layer, h, o, {}));
  }
  std::vector<cm::ConvMapping> out = {cm::trivialMapping(layer, h)};
  for (const auto& point : front.points())
    if (point.mapping != out.front()) out.push_back(point.mapping);
  return out;
}

/// candidateList(), made once per process for each (hierarchy, layer): the window estimates a run on one
/// problem and runs it on another, and a list takes seconds on large layers. The last kCachedLists stay.
std::vector<cm::ConvMapping> sharedCandidateList(const cm::ConvLayer& layer, const cm::Hierarchy& h,
                                                 const PrepareControl& control) {
  struct Entry {
    std::once_flag once;
    std::vector<cm::ConvMapping> list;
  };
  constexpr std::size_t kCachedLists = 16;
  static std::mutex mutex;
  static std::deque<std::pair<std::string, std::shared_ptr<Entry>>> cache;  // oldest first
  const std::string key = cm::hierarchyHash(h) + "/" + cm::layerKey(layer);
  std::shared_ptr<Entry> entry;
  {
    std::lock_guard lock(mutex);
    for (const auto& [k, e] : cache)
      if (k == key) entry = e;
    if (!entry) {
      entry = std::make_shared<Entry>();
      cache.emplace_back(key, entry);
      if (cache.size() > kCachedLists) cache.pop_front();
    }
  }
  // A second caller waits for the first one's list; an exception (a cancel among them) leaves the flag unset,
  // and the next caller makes the list.
  std::call_once(entry->once, [&] { entry->list = candidateList(layer, h, control); });
  return entry->list;
}

std::string layoutText(const cm::ConvMapping& m, int t) {
  if (m.layout[t] == cm::Layout::Sequential) return "seq";
  if (t != cm::Input) return "rows";
  return "rows " + std::to_string(m.blockH) + "x" + std::to_string(m.blockW);
}

}  // namespace

HierarchyContext::HierarchyContext(const Problem& p) : m_hierarchy(hierarchyOf(p.backend())) {
  const auto pattern = recogniseConv(p.kernel());
  if (const auto* why = std::get_if<std::string>(&pattern)) {
    m_reasons.push_back(*why);
    return;
  }
  try {
    m_layer = convLayerOf(p.kernel(), std::get<ConvPattern>(pattern), p.shape());
    cm::requireFits(*m_layer, m_hierarchy);
  } catch (const InputError& e) {
    m_layer.reset();
    m_reasons.push_back(e.what());
  }
}

const cm::ConvLayer& HierarchyContext::layer() const {
  if (!m_layer) throw InputError(m_reasons.empty() ? "no layer" : m_reasons.front());
  return *m_layer;
}

const std::vector<cm::ConvMapping>& HierarchyContext::mappings() const {
  const cm::ConvLayer& l = layer();
  std::call_once(m_once, [&] { m_mappings = sharedCandidateList(l, m_hierarchy, {}); });
  return m_mappings;
}

bool HierarchyContext::prepare(const PrepareControl& control) const {
  if (!m_layer) return true;
  try {
    (void)sharedCandidateList(*m_layer, m_hierarchy, control);
    return true;
  } catch (const ListCancelled&) {
    return false;
  }
}

const cm::ConvMapping& HierarchyContext::mapping(std::uint64_t id) const {
  const auto& all = mappings();
  if (id >= all.size())
    throw InputError("mapping " + std::to_string(id) + ": out of range (the candidate list of " +
                     m_layer->name + " on " + m_hierarchy.name + " has ids 0.." +
                     std::to_string(all.size() - 1) + ")");
  return all[id];
}

const HierarchyContext& hierarchyContext(const Problem& p) {
  return static_cast<const HierarchyContext&>(
      p.targetContext([&] { return std::make_unique<HierarchyContext>(p); }));
}

std::string mappingText(const cm::Hierarchy& h, const cm::ConvMapping& m) {
  return cm::mappingLabel(h, m) + " | layout I " + layoutText(m, cm::Input) + ", W " +
         layoutText(m, cm::Weight) + ", O " + layoutText(m, cm::Output);
}

std::unique_ptr<ICandidateSpace> makeMappingSpace(const Problem& p, const PruneRuleRegistry& rules) {
  const HierarchyContext& c = hierarchyContext(p);
  return makeListSpace(
      {.size = [&c] { return static_cast<std::uint64_t>(c.mappings().size()); },
       .label = [&c](std::uint64_t id) { return mappingText(c.hierarchy(), c.mapping(id)); },
       .labelTitle = "Mapping | layout",
       .reason =
           "a mapping of the candidate list (every one is kept: each is valid and none dominates another)"},
      rules);
}

}  // namespace pim
