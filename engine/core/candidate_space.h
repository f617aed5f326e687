// SPDX-License-Identifier: Apache-2.0
// A family's space of candidates for one problem (Timeloop's mapspace): dense ids, the kept candidates as a
// stream, any id decoded to a printable candidate, and for a rejected one the rule and the reason. DCC's
// tiling drafts with its prune rules are the default (DraftCandidateSpace); a family with a space of its own
// (a mapping space for an integer program, compiled replication choices) implements the same contract, and
// the explorer, the CLI's `drafts` and `why`, training and the window walk it through ITarget::candidates().
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/kernel_choices.h"
#include "engine/prune/pruner.h"

namespace pim {

/// Candidates are carried as Drafts: `id` is dense in the space that made them; DCC's space also fills
/// `parts` (one [groups, cores, representative] per dimension set), a family's own space may leave them empty
/// and decode the id in its own evaluate() and listing().
class ICandidateSpace {
 public:
  virtual ~ICandidateSpace() = default;
  /// Candidates before any rule: ids are [0, size()) (saturates at UINT64_MAX).
  virtual std::uint64_t size() const = 0;
  /// Ids candidate(), label() and why() accept: size(), and beyond it, in a family with kernel-level choices
  /// (kernel_choices.h), the same candidates with choices other than the backend's, which are searched
  /// (the imtp strategy) but not enumerated by counts() and forEachKept().
  virtual std::uint64_t addressable() const { return size(); }
  /// The candidate with id `id`; throws InputError naming the valid range when it is out of range.
  virtual Draft candidate(std::uint64_t id) const = 0;
  /// One printable line: "[[1, 4, C0^b], [2, 1, A1^i*2]]".
  virtual std::string label(const Draft& d) const = 0;
  /// What a label says, as a column title: DCC's parts by default, a family's own space says its own.
  virtual std::string labelTitle() const { return "Parts [groups, cores, rep]"; }
  /// Generated, removed per rule (every rule the space applies, in order) and remaining.
  virtual PruneCounts counts() const = 0;
  /// Streams the kept candidates with their ids, in no promised order; `fn` returns false to stop.
  virtual void forEachKept(const std::function<bool(const Draft&)>& fn) const = 0;
  /// Whether `id` is kept and, when not, the rule and the reason. Throws InputError out of range.
  virtual Verdict why(std::uint64_t id) const = 0;
};

/// The `limit` kept candidates of `space` with the smallest ids, in id order.
std::vector<Draft> firstKept(const ICandidateSpace& space, std::size_t limit);

/// DCC's space: the problem's tiling drafts (DraftSpace), pruned by the rules of `rules` that `enabled`
/// switches on (empty: all on). Memoises as it goes, so one space serves one thread; `space` and `rules` must
/// outlive it.
class DraftCandidateSpace final : public ICandidateSpace {
 public:
  explicit DraftCandidateSpace(const DraftSpace& space, std::vector<bool> enabled = {},
                               const PruneRuleRegistry& rules = PruneRuleRegistry::builtin());
  std::uint64_t size() const override { return m_space.size(); }
  Draft candidate(std::uint64_t id) const override { return m_space.draft(id); }
  std::string label(const Draft& d) const override { return m_space.label(d); }
  PruneCounts counts() const override { return m_pruner.counts(); }
  void forEachKept(const std::function<bool(const Draft&)>& fn) const override { m_pruner.forEachKept(fn); }
  Verdict why(std::uint64_t id) const override { return m_pruner.why(id); }

 private:
  const DraftSpace& m_space;
  Pruner m_pruner;
};

/// A space of drafts and the kernel-level choices beside them (kernel_choices.h): `drafts` enumerates and
/// prunes the drafts at the backend's own choices; ids up to ids.count() name every draft with every
/// choice. A candidate with other choices has the draft's parts, its own id, and the draft's verdict.
class ChoiceCandidateSpace final : public ICandidateSpace {
 public:
  ChoiceCandidateSpace(std::unique_ptr<ICandidateSpace> drafts, CandidateIds ids);
  std::uint64_t size() const override { return m_drafts->size(); }
  std::uint64_t addressable() const override { return m_ids.count(); }
  Draft candidate(std::uint64_t id) const override;
  std::string label(const Draft& d) const override;
  PruneCounts counts() const override { return m_drafts->counts(); }
  void forEachKept(const std::function<bool(const Draft&)>& fn) const override { m_drafts->forEachKept(fn); }
  Verdict why(std::uint64_t id) const override;
  const CandidateIds& ids() const { return m_ids; }

 private:
  void checkRange(std::uint64_t id) const;
  std::unique_ptr<ICandidateSpace> m_drafts;
  CandidateIds m_ids;
};

}  // namespace pim
