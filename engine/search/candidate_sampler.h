// SPDX-License-Identifier: Apache-2.0
// Random candidates of a problem's space and their neighbours, for searches that sample the space instead
// of walking its kept list (imtp). A candidate is a kept draft with one value per kernel-level choice axis
// (engine/core/kernel_choices.h); its genes are each part's groups, cores and representative, and each
// choice. Everything is deterministic given the random engine.
#pragma once
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "engine/core/candidate_space.h"
#include "engine/core/problem.h"

namespace pim {

class CandidateSampler {
 public:
  /// `space` is the target's space of `p` (ITarget::candidates), `ids` its candidate ids; both must outlive
  /// the sampler. Lists the kept drafts once.
  CandidateSampler(const Problem& p, const ICandidateSpace& space, const CandidateIds& ids);

  /// Kept drafts times choices: how many distinct candidates there are to sample.
  std::uint64_t size() const { return m_kept.size() * m_ids.choices(); }
  /// A kept draft, uniformly, with a uniform value on every axis. Throws InputError when nothing is kept.
  std::uint64_t random(std::mt19937_64& rng) const;
  /// `id` with one gene changed at random (a part's groups or cores, later parts shrunk to what is left,
  /// its representative, or one choice), as the kept candidate it stands for; nullopt when the neighbour
  /// is pruned with no kept twin.
  std::optional<std::uint64_t> mutate(std::uint64_t id, std::mt19937_64& rng) const;
  /// IMTP's rfactor: the candidate splits a reduction (a loop variable no statement's target uses) over
  /// units, so its partial results are merged afterwards.
  bool splitsReduction(std::uint64_t id) const;
  /// What the cost model reads: per part log2 groups, log2 cores, log2 of its per-core extent and the
  /// representative; log2 units used; each choice's value; the rfactor flag.
  std::vector<float> features(std::uint64_t id) const;
  std::size_t featureCount() const;

 private:
  const Problem& m_problem;
  const ICandidateSpace& m_space;
  const CandidateIds& m_ids;
  std::vector<std::uint64_t> m_kept;  // kept draft ids, in id order
  std::vector<bool> m_reducingPart;   // per part: its set holds a reduction variable
};

}  // namespace pim
