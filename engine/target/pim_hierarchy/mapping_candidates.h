// SPDX-License-Identifier: Apache-2.0
// The pim-hierarchy target's per-problem state and its candidate space. A layer's mapspace has 10^20 and
// more mappings and cannot be listed densely, so the candidates are a fixed list of valid mappings, the
// same on every run (docs/convmap.md "The pim-hierarchy target"): the trivial mapping (id 0, every loop in
// DRAM), then the non-dominated mappings over (latency, energy, row activations) that the heuristic mapper
// sees in a fixed number of proposals from a fixed seed under each objective, merged with the exact front
// of the exhaustive walk when the layer's space is small.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/convmap/evaluator.h"
#include "engine/convmap/hierarchy.h"
#include "engine/core/candidate_space.h"
#include "engine/core/problem.h"
#include "engine/target/target.h"

namespace pim {

/// Proposals of the heuristic mapper per objective (latency, energy, blended) when listing candidates: a
/// count, not a time, so the list does not depend on the machine (docs/knobs.md).
inline constexpr std::int64_t kCandidateProposals = 20'000;
/// Largest exhaustive space whose exact front joins the candidates (docs/knobs.md).
inline constexpr double kCandidateExhaustiveMappings = 100'000;
/// Seed of the candidate list's heuristic searches.
inline constexpr std::uint64_t kCandidateSeed = 1;

/// What the target prepares once per problem (Problem::targetContext): the hierarchy with the backend's
/// parameters, the layer the kernel computes at the shape (or why it is none) and, on first use, the list.
class HierarchyContext final : public ITargetContext {
 public:
  explicit HierarchyContext(const Problem& p);
  const convmap::Hierarchy& hierarchy() const { return m_hierarchy; }
  /// Every reason the problem is not a layer this hierarchy can map; empty when it is.
  const std::vector<std::string>& reasons() const { return m_reasons; }
  /// The layer; throws InputError with the reasons when there is none.
  const convmap::ConvLayer& layer() const;
  /// The candidate list, made on the first call (thread-safe). Throws InputError as layer() does.
  const std::vector<convmap::ConvMapping>& mappings() const;
  /// Makes the list now, reporting each search's progress (proposals, best, bound, gap); false when
  /// `control.cancel` stopped it (nothing kept). True at once when there is no layer (mappings() says why).
  bool prepare(const PrepareControl& control) const;
  /// Mapping `id` of the list; InputError naming the valid range.
  const convmap::ConvMapping& mapping(std::uint64_t id) const;

 private:
  convmap::Hierarchy m_hierarchy;
  std::optional<convmap::ConvLayer> m_layer;
  std::vector<std::string> m_reasons;
  mutable std::once_flag m_once;
  mutable std::vector<convmap::ConvMapping> m_mappings;
};

const HierarchyContext& hierarchyContext(const Problem& p);

/// One line for tables: the loop nest's label and each tensor's layout ("... | layout I rows 4x16, W seq,
/// O seq").
std::string mappingText(const convmap::Hierarchy& h, const convmap::ConvMapping& m);

/// The list as a candidate space: ids index it, every candidate is kept, and DCC's rules, which prune
/// tiling drafts, are listed as not in force.
std::unique_ptr<ICandidateSpace> makeMappingSpace(const Problem& p, const PruneRuleRegistry& rules);

}  // namespace pim
