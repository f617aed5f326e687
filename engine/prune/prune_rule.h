// SPDX-License-Identifier: Apache-2.0
// DCC's draft pruning rules (section 4.2, stage 3) as separate rule objects. A rule judges one part choice
// [groups, cores, representative] of a draft at the resources still available to that part; the pruner
// applies the rules in order before any costly evaluation (Timeloop's pre-evaluation check) and can explain
// any verdict.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/schedule/draft_space.h"

namespace pim {

class IPruneRule {
 public:
  virtual ~IPruneRule() = default;
  virtual int number() const = 0;  // shown as "rule N": DCC's 1..3, then further rules
  virtual std::string_view name()
      const = 0;  // "redundant", "simd-alignment", ...; unique, stored in sessions
  virtual std::string_view summary() const = 0;  // one line for listings and the GUI
  /// Whether the rule applies to this space at all (rule 2 steps aside when d == 1 or no draft can align).
  virtual bool inForce(const DraftSpace&) const { return true; }
  /// Filter rules: false removes the choice.
  virtual bool keeps(const DraftSpace&, int /*part*/, const PartChoice&) const { return true; }
  /// Equivalence rules: choices of one part at the same available resources, with the same group count and
  /// equal keys, are equivalent; the first in generation order is kept.
  virtual bool hasKey() const { return false; }
  virtual std::uint64_t key(const DraftSpace&, int /*part*/, const PartChoice&) const { return 0; }
  /// For a choice a filter rule removes because it duplicates another: that other choice.
  virtual std::optional<PartChoice> twinOf(const DraftSpace&, int /*part*/, const PartChoice&) const {
    return std::nullopt;
  }
  /// Human reason for removing `choice` of part `part`; `twin` is the choice it duplicates, if any.
  virtual std::string reason(const DraftSpace& space, int part, const PartChoice& choice,
                             const PartChoice* twin) const = 0;
};

/// Rule 1: same data tiles and equivalent representative mappings (same function, same extent).
std::unique_ptr<IPruneRule> makeRedundantRule();
/// Rule 2: per-core size along the SIMD dimension set is not a multiple of d.
std::unique_ptr<IPruneRule> makeSimdAlignmentRule();
/// Rule 3: same groups and same worst per-core partition, ceil(extent / (groups * cores)), for every part.
std::unique_ptr<IPruneRule> makePerformanceEquivalenceRule();

/// The rules a pruner applies, in order. Rules are stateless, so one registry's objects serve every Pruner
/// built on it (the registry must outlive them). Everything that lists rules (counts, check boxes, session
/// files) iterates a registry, so a rule added here shows up everywhere.
class PruneRuleRegistry {
 public:
  /// The built-in rules (registerBuiltinPruneRules), built once.
  static const PruneRuleRegistry& builtin();
  /// Appends a rule; throws InputError when its name or number is already registered.
  void add(std::unique_ptr<IPruneRule> rule);
  std::size_t size() const { return m_rules.size(); }
  const IPruneRule& at(std::size_t i) const { return *m_rules.at(i); }
  /// Position of the rule named `name`, if registered.
  std::optional<std::size_t> find(std::string_view name) const;

 private:
  std::vector<std::unique_ptr<IPruneRule>> m_rules;
};

/// Registers DCC's rules in DCC's order. The one place a new rule is registered.
void registerBuiltinPruneRules(PruneRuleRegistry& r);

}  // namespace pim
