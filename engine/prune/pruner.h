// SPDX-License-Identifier: Apache-2.0
// Applies prune rules to a draft space without enumerating it: per part and per available resources the rules
// filter the part choices, and a memoised count over those filtered choices gives how many drafts each rule
// removes. A draft is kept iff each of its parts survives at the resources it sees, so the kept drafts stream
// from a depth-first walk over the filtered choices, and any draft's verdict is computed on its own.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/prune/prune_rule.h"

namespace pim {

struct RuleCount {
  int number = 0;
  std::string name;
  bool inForce = false;  // false: disabled by the user or stepped aside (rule 2 with nothing aligned)
  std::uint64_t removed = 0;
  bool operator==(const RuleCount&) const = default;
};

struct PruneCounts {
  std::uint64_t generated = 0;
  std::vector<RuleCount> rules;  // every rule of the pruner's registry, in its order
  std::uint64_t remaining = 0;
};

struct Verdict {
  std::uint64_t draft = 0;
  bool kept = true;
  int rule = 0;  // rule number that removed it, 0 if kept
  std::string ruleName;
  int part = -1;                          // the part that failed
  std::optional<std::uint64_t> twin;      // the draft it duplicates (rules 1 and 3)
  std::optional<std::uint64_t> keptTwin;  // the kept draft it stands for, following twins to one that is kept
  std::string reason;
};

class Pruner {
 public:
  /// `enabled[i]` switches the i-th rule of `rules`; empty means all on, a missing entry off. `rules` must
  /// outlive the pruner.
  explicit Pruner(const DraftSpace& space, std::vector<bool> enabled = {},
                  const PruneRuleRegistry& rules = PruneRuleRegistry::builtin());

  const DraftSpace& space() const { return m_space; }
  PruneCounts counts() const;
  /// Streams the kept drafts (depth-first order, ids attached); `fn` returns false to stop.
  void forEachKept(const std::function<bool(const Draft&)>& fn) const;
  Verdict why(std::uint64_t id) const;
  bool kept(const Draft& d) const { return why(d.id).kept; }

 private:
  struct KeptChoice {
    PartChoice choice;
    std::uint64_t groupOffset = 0, coreOffset = 0;  // this part's share of the draft id
  };
  struct State {
    std::vector<std::uint64_t> count;  // count[L]: drafts from here surviving the first L active rules
    std::vector<KeptChoice> kept;
  };
  // Index of the first active rule that removes each choice (active().size() if none), in generation order.
  template <typename Fn>
  void classify(int part, int groups, int cores, Fn&& onChoice) const;
  const State& state(int part, int groups, int cores) const;
  std::optional<Verdict> judgePart(const Draft& d, int part, int groups, int cores, std::size_t level) const;

  const DraftSpace& m_space;
  std::vector<const IPruneRule*> m_all;     // the registry's rules, in order
  std::vector<bool> m_inForce;              // per rule in m_all
  std::vector<const IPruneRule*> m_active;  // in force, in order
  mutable std::unordered_map<std::uint64_t, State> m_states;
};

}  // namespace pim
