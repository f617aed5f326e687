// SPDX-License-Identifier: Apache-2.0
// Candidates drawn at random from a problem's space: a kept draft and a value of every kernel-level choice
// axis (engine/core/kernel_choices.h), the same sequence for the same seed.
#pragma once
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "engine/target/registry.h"

namespace pim::test {

class RandomCandidates {
 public:
  /// Draws from the first `keptLimit` kept drafts of `p`'s space.
  RandomCandidates(const Problem& p, std::uint64_t seed, std::size_t keptLimit = SIZE_MAX)
      : m_space(targetOf(p.backend()).candidates(p)),
        m_ids(targetOf(p.backend()).candidateIds(p)),
        m_rng(seed) {
    m_space->forEachKept([&](const Draft& d) {
      m_kept.push_back(d.id);
      return m_kept.size() < keptLimit;
    });
  }
  Draft next() {
    std::vector<int> choice;
    for (const ChoiceAxis& a : m_ids.axes())
      choice.push_back(std::uniform_int_distribution<int>(0, static_cast<int>(a.values.size()) - 1)(m_rng));
    const std::uint64_t draft =
        m_kept[std::uniform_int_distribution<std::size_t>(0, m_kept.size() - 1)(m_rng)];
    return m_space->candidate(m_ids.id(draft, choice));
  }

 private:
  std::unique_ptr<ICandidateSpace> m_space;
  CandidateIds m_ids;
  std::mt19937_64 m_rng;
  std::vector<std::uint64_t> m_kept;
};

}  // namespace pim::test
