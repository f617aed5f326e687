// SPDX-License-Identifier: Apache-2.0
// The GA's random steps (../shared/specs/crossbar.md, "Weight replication", GA paragraph; pimcomp-nn
// GeneticAlgorithm.cpp Init and Mutation): initial individuals and the five mutations. Every random decision
// comes from one GaRng, so a run is a function of its seed.
#pragma once
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "engine/crossbar/ga_chromosome.h"

namespace pim::crossbar::ga {

/// mt19937_64 with its own bounded draws: the std distributions' algorithms are unspecified, so results would
/// differ between standard libraries.
class GaRng {
 public:
  explicit GaRng(std::uint64_t seed) : m_engine(seed) {}
  /// Uniform in [0, n), n >= 1 (rejection sampling, no modulo bias).
  std::uint64_t below(std::uint64_t n);
  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return double(m_engine() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }

 private:
  std::mt19937_64 m_engine;
};

enum class Mutation { AddReplica, RemoveReplica, Split, Gather, Exchange };
inline constexpr int kMutations = 5;

/// Applies one mutation; false, with `c` unchanged, when it found nothing to change. Every success leaves `c`
/// legal if it was (the caller checks legalityError after every step anyway).
///  - AddReplica: a random replicable unit below its windows gets one whole replica on a random core with its
///    crossbars free.
///  - RemoveReplica: a random replicable unit above one replica loses one replica's AGs, taken from its genes
///    starting at a random slot.
///  - Split: on a random core, a gene of >= 2 AGs over a quarter of a core moves 1..n-1 of them to a random
///    other core with room (50 cores x 30 targets tried, as PIMCOMP-NN).
///  - Gather: on a random core, a gene of <= 2 AGs using under 1/24 of a core moves to a random other core
///  that
///    already holds its unit.
///  - Exchange: two genes of different units on different cores trade AGs of about equal crossbars (the
///  smaller
///    gives all, the larger as many as fit in that space).
bool mutate(const GaProblem& p, Chromosome& c, Mutation m, GaRng& rng);

/// PIMCOMP-NN's InitReplicating: balance's heap with a margin of marginFactor x the free crossbars, per unit
/// (replicas before AGP). A unit that reaches its windows leaves the heap.
std::vector<std::int64_t> balanceReplicas(const GaProblem& p, double marginFactor);

/// Places `c.replicas` (genes empty) first fit: each AG in plan order on the lowest core with its crossbars
/// free and a gene for its unit (or a free slot). False when an AG fits nowhere.
bool mapFirstFit(const GaProblem& p, Chromosome& c);
/// PIMCOMP-NN's InitMappingDistributed: per unit a coin decides whether replicas go whole to cores spread by
/// a random cluster size (1..31 replicas a core); the rest are placed AG by AG from a rotating start core.
bool mapDistributed(const GaProblem& p, Chromosome& c, GaRng& rng);

/// One random initial individual: balance with a margin in [0.1, 0.9), mapped distributed or first fit
/// (50/50); nullopt when it is not legal.
std::optional<Chromosome> randomIndividual(const GaProblem& p, GaRng& rng);

}  // namespace pim::crossbar::ga
