// SPDX-License-Identifier: Apache-2.0
// The GA's fitness, lower is better (../shared/specs/crossbar.md, "Weight replication": PIMCOMP-NN's fast
// evaluation and dac23's analytic HT model; pimcomp-nn GeneticAlgorithm.cpp FastEvaluationForBatch,
// FastEvaluationForElement, FastEvaluationInstructionGroupNum). Both kinds are pure functions of a
// chromosome, so individuals can be evaluated on any thread in any order.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/crossbar/ga_chromosome.h"
#include "sim/crossbar/xbar_profiler.h"

namespace pim::crossbar::ga {

/// Fast: a simplified instruction stream through xbar::Profiler. Analytic: dac23's closed form.
enum class GaFitness { Fast, Analytic };

/// One unit's instructions in the fast evaluation.
struct UnitStream {
  std::int64_t loadFull = 0;   // HT LD elements of a gene's first replica: one crossbar height
  std::int64_t loadReuse = 0;  // later replicas on the same core: the part new to a window shifted by stride
  std::int64_t store = 0;      // HT ST elements per replica: the layer's output channels
  int consumerUnit = -1;  // LL: a CONV/FC consumer's first unit: the replica sends to its first AG's core
  int consumerCore = -1;  // LL: a post-node consumer's core (node % cores, PIMCOMP-NN's post_node_map)
};

/// One network node in the LL instruction-group estimate (PIMCOMP-NN's FastEvaluationInstructionGroupNum).
struct LlNode {
  enum class Kind { Input, Layer, Pool, Through } kind = Kind::Through;
  int layer = -1;   // Kind::Layer
  double wait = 0;  // fraction of the producer's output the node waits for before its first output
  std::vector<int> providers, consumers;
};

class FitnessModel {
 public:
  /// `p` must outlive the model. Throws std::invalid_argument for invalid timing parameters.
  FitnessModel(const GaProblem& p, PipelineMode mode, const xbar::TimingParams& timing);

  double evaluate(const Chromosome& c, GaFitness kind) const;

  /// HT fast: two IGs of (LD + MVMUL per AG, ST per replica) per core through the profiler; a core's time is
  /// extrapolated linearly from IG 1 to IG 2 over its IG count (max over its units of
  /// ceil(windows/replicas)); the fitness is the maximum over cores.
  double fastHt(const Chromosome& c) const;
  /// LL fast: one IG of MVMUL per AG plus, for each replica's first AG, SEND/RECV to its consumer's core;
  /// the profiled time times llInstructionGroups.
  double fastLl(const Chromosome& c) const;
  /// dac23 HT: per core, units sorted by windows per AG w; between consecutive w the n AGs still active take
  /// f(n) = n * T_interval if n > T_MVM / T_interval else T_MVM per window; the maximum over cores of the
  /// sum.
  double analyticHt(const Chromosome& c) const;
  /// LL analytic: llInstructionGroups times the slowest core's f(n) for one window of all its AGs.
  double analyticLl(const Chromosome& c) const;
  /// The LL instruction-group estimate: the first layer's ceil(windows / replicas) times the longest path's
  /// whole_time = wait_2 + run_2 * (wait_3 + run_3 * (... * 1)), with run = (1 - wait) * max(1, r_prev / r)
  /// and r a layer's replicas capped by its producers' (a pool inherits them).
  double llInstructionGroups(const std::vector<std::int64_t>& unitReplicas) const;

  /// dac23's f(n) for this model's timing.
  double perWindowNs(std::int64_t activeAgs) const;

 private:
  // The IGs live in a per-thread buffer, valid until the thread's next call.
  const xbar::InstructionGroup& htGroup(const Chromosome& c, std::vector<std::int64_t>& coreIgs) const;
  const xbar::InstructionGroup& llGroup(const Chromosome& c) const;

  const GaProblem* m_problem;
  PipelineMode m_mode;
  xbar::TimingParams m_timing;
  std::vector<UnitStream> m_streams;  // per unit
  std::vector<LlNode> m_nodes;        // per network node
};

}  // namespace pim::crossbar::ga
