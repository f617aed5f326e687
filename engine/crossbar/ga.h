// SPDX-License-Identifier: Apache-2.0
// The crossbar compiler's genetic algorithm: replication and AG-to-core mapping chosen jointly, a strategy
// beside balance/w0h0/uniform (issue 19; ../shared/specs/crossbar.md, "Weight replication", GA paragraph, and
// "AG to core mapping"; tcad VI-A; pimcomp-nn backend/GeneticAlgorithm.cpp).
//
// Usage: partition a network (compilePlan with any method), run runGa on that plan, and build the final plan
// from the best individual with assemblePlan(net, acc, options, best.replicas, best.cores) (compile.h), or
// call compileWithGa for all three steps. A run is deterministic: the same plan, options and seed give the
// same result for any thread count (every random decision is drawn on the calling thread from one
// mt19937_64; worker threads only evaluate fitness, a pure function).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/crossbar/compile.h"
#include "engine/crossbar/ga_fitness.h"
#include "sim/crossbar/xbar_profiler.h"

namespace pim::crossbar {

using ga::GaFitness;

/// Relative weights of the five mutations (PIMCOMP-NN: 0.2 each). Only ratios matter; all zero is an error.
struct GaMutationWeights {
  double addReplica = 1, removeReplica = 1, split = 1, gather = 1, exchange = 1;
};

struct GaOptions {
  int population = 200;  // PIMCOMP-NN population_num
  int iterations = 100;  // PIMCOMP-NN runs 3 (max_iteration), tcad up to 1,000
  std::uint64_t seed = 1;
  GaMutationWeights mutation;
  GaFitness fitness = GaFitness::Fast;
  int threads = 0;        // fitness workers including the caller; 0: all hardware threads
  int kindsPerCore = 32;  // PIMCOMP-NN max_AG_kind_per_core: distinct layers a core may hold
  double keepBest = 0.3;  // PIMCOMP-NN remain_rate: the best fraction always survives selection
  double survival = 0.2;  // PIMCOMP-NN random_select_rate: each other individual survives with it
};

struct GaControl {
  /// Polled at least once per individual created or evaluated; when it reads true the run stops and returns
  /// the best individual evaluated so far (GaResult::cancelled).
  const std::atomic<bool>* cancel = nullptr;
  /// Called on the calling thread after the initial population (iteration 0) and after each iteration.
  std::function<void(int iteration, double bestFitness)> progress;
};

/// One individual in the plan's terms: assemblePlan(net, acc, options, replicas, cores) builds its plan.
struct GaSolution {
  std::vector<std::int64_t> replicas;  // per layer, after the window cap, times AGP (CompilePlan::replicas)
  std::vector<std::int64_t> cores;     // per AG, in arrayGroups(layers, replicas) order
  double fitness = 0;                  // lower is better: ns, per the fitness kind
};

struct GaResult {
  GaSolution best;
  std::vector<GaSolution> population;  // the final population (evaluated individuals), best first
  /// Best fitness after the initial population, then after each completed iteration (a cancelled run's best
  /// may be better than the last entry: it includes the interrupted iteration's evaluated mutants).
  std::vector<double> history;
  /// The deterministic seeds put in the initial population and their fitness: "base" (the input plan's own
  /// layout) and whichever of balance, w0h0, uniform succeed (first-fit layout).
  std::vector<std::pair<std::string, double>> seeds;
  int iterations = 0;  // iterations completed
  bool cancelled = false;
};

/// Runs the GA on a partitioned plan (its layers; its own replicas and layout, when it has them, seed the
/// population). The pipeline mode is basePlan.options.mode. Throws InputError for invalid options or when no
/// legal individual exists, std::invalid_argument for invalid timing parameters. Exceptions thrown while
/// evaluating on a worker thread are rethrown on the caller's.
GaResult runGa(const CompilePlan& basePlan, const GaOptions& options, const xbar::TimingParams& timing,
               const GaControl& control = {});

/// The GA's fitness of an existing plan (e.g. balance's), on the same scale as GaSolution::fitness. Throws
/// InputError when a core of the plan holds more than kindsPerCore layers.
double gaFitness(const CompilePlan& plan, GaFitness kind, const xbar::TimingParams& timing,
                 int kindsPerCore = 32);

/// compilePlan with balance (the partition and the base seed), runGa, then assemblePlan of the best; the
/// returned plan's options.replication is "ga". `details`, when given, receives the GA's result.
CompilePlan compileWithGa(const Network& net, const Accelerator& acc, const CompileOptions& options,
                          const GaOptions& ga, const xbar::TimingParams& timing,
                          const GaControl& control = {}, GaResult* details = nullptr);

}  // namespace pim::crossbar
