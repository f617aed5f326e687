// SPDX-License-Identifier: Apache-2.0
// The GA's main loop: seeded initial population, selection, mutation refill and parallel fitness
// (../shared/specs/crossbar.md, "Weight replication", GA paragraph; pimcomp-nn GeneticAlgorithm.cpp
// GeneticAlgorithmOptimizing, Init, Select, Mutation).
#include "engine/crossbar/ga.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include "engine/common/error.h"
#include "engine/common/threads.h"
#include "engine/crossbar/ga_operators.h"
#include "engine/crossbar/replication.h"

namespace pim::crossbar {
namespace {

using ga::Chromosome;
using ga::FitnessModel;
using ga::GaProblem;
using ga::GaRng;

struct Individual {
  Chromosome genome;
  double fitness = 0;
  bool evaluated = false;
};

bool cancelled(const GaControl& control) { return control.cancel && control.cancel->load(); }

void checkOptions(const GaOptions& o) {
  const GaMutationWeights& w = o.mutation;
  const double weights[] = {w.addReplica, w.removeReplica, w.split, w.gather, w.exchange};
  double total = 0;
  for (double x : weights) {
    if (!(x >= 0)) throw InputError("GA: mutation weights must not be negative");
    total += x;
  }
  if (!(total > 0)) throw InputError("GA: at least one mutation weight must be positive");
  if (o.population < 1) throw InputError("GA: population must be at least 1");
  if (o.iterations < 0) throw InputError("GA: iterations must not be negative");
  if (o.threads < 0) throw InputError("GA: threads must not be negative (0: all hardware threads)");
  if (!(o.keepBest > 0 && o.keepBest <= 1)) throw InputError("GA: keepBest must be in (0, 1]");
  if (!(o.survival >= 0 && o.survival <= 1)) throw InputError("GA: survival must be in [0, 1]");
}

ga::Mutation pickMutation(const GaMutationWeights& w, GaRng& rng) {
  const double weights[ga::kMutations] = {w.addReplica, w.removeReplica, w.split, w.gather, w.exchange};
  double total = 0;
  for (double x : weights) total += x;
  double r = rng.unit() * total;
  for (int i = 0; i < ga::kMutations; ++i) {
    if (r < weights[i]) return static_cast<ga::Mutation>(i);
    r -= weights[i];
  }
  for (int i = ga::kMutations - 1; i >= 0; --i)  // rounding left r just above the total
    if (weights[i] > 0) return static_cast<ga::Mutation>(i);
  return ga::Mutation::Exchange;
}

// Evaluates every individual not yet evaluated, on `threads` threads including the caller's. Each worker
// takes the next index from a shared counter; the results do not depend on which thread computed them.
void evaluateAll(std::vector<Individual>& pop, const FitnessModel& model, GaFitness kind, int threads,
                 const GaControl& control) {
  std::vector<Individual*> todo;
  for (Individual& i : pop)
    if (!i.evaluated) todo.push_back(&i);
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex errorMutex;
  auto work = [&](std::size_t) {
    while (!cancelled(control)) {
      const std::size_t i = next.fetch_add(1);
      if (i >= todo.size()) return;
      try {
        todo[i]->fitness = model.evaluate(todo[i]->genome, kind);
        todo[i]->evaluated = true;
      } catch (...) {
        std::lock_guard lock(errorMutex);
        if (!error) error = std::current_exception();
        next.store(todo.size());
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  const std::size_t helpers = std::min<std::size_t>(std::size_t(threads - 1), todo.size());
  const std::size_t started = startThreads(pool, helpers, work);
  work(started);
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// The deterministic methods' layouts (and the input plan's), as legal chromosomes, with their names.
std::vector<std::pair<std::string, Chromosome>> seedChromosomes(const CompilePlan& plan, const GaProblem& p) {
  std::vector<std::pair<std::string, Chromosome>> seeds;
  auto add = [&](const std::string& name, const std::vector<std::int64_t>& replicas,
                 const std::vector<std::int64_t>& cores) {
    try {
      Chromosome c = ga::encode(p, replicas, cores);
      if (ga::legalityError(p, c).empty()) seeds.push_back({name, std::move(c)});
    } catch (const InputError&) {  // more layers on a core than genes: not a GA individual
    }
  };
  if (plan.replicas.size() == plan.layers.size() && !plan.layout.ags.empty()) {
    std::vector<std::int64_t> cores;
    for (const ArrayGroup& ag : plan.layout.ags) cores.push_back(ag.core);
    add("base", plan.replicas, cores);
  }
  for (const char* method : {"balance", "w0h0", "uniform"}) {
    try {
      const std::vector<std::int64_t> reps =
          replicate(method, {plan.layers, plan.accelerator, plan.networkName});
      const Layout l = placeFirstFit(arrayGroups(plan.layers, reps, plan.accelerator), plan.layers,
                                     plan.accelerator, plan.networkName);
      std::vector<std::int64_t> cores;
      for (const ArrayGroup& ag : l.ags) cores.push_back(ag.core);
      add(method, reps, cores);
    } catch (const InputError&) {  // the method fails on this network: no seed from it
    }
  }
  return seeds;
}

// Seeds first, then random legal individuals (PIMCOMP-NN's Init) up to the population size. Gives up on
// random ones after 20 x population illegal draws, so a network with no random legal layout still runs.
std::vector<Individual> initialPopulation(const GaProblem& p, const std::vector<Chromosome>& seeds,
                                          int population, GaRng& rng, const GaControl& control) {
  std::vector<Individual> pop;
  for (const Chromosome& c : seeds)
    if (int(pop.size()) < population) pop.push_back({c});
  for (int draws = 0; int(pop.size()) < population && draws < 20 * population && !cancelled(control);
       ++draws) {
    if (std::optional<Chromosome> c = ga::randomIndividual(p, rng)) pop.push_back({std::move(*c)});
  }
  if (pop.empty()) throw InputError(p.plan->networkName + ": GA: no legal initial individual");
  return pop;
}

// PIMCOMP-NN's Select on a population sorted best first: the best keepBest always stay, every other one
// with probability `survival`.
std::vector<Individual> select(std::vector<Individual>& pop, const GaOptions& o, GaRng& rng) {
  const auto keep = std::size_t(std::ceil(double(o.population) * o.keepBest));
  std::vector<Individual> survivors;
  for (std::size_t i = 0; i < pop.size(); ++i)
    if (i < keep || rng.chance(o.survival)) survivors.push_back(std::move(pop[i]));
  return survivors;
}

// PIMCOMP-NN's Mutation: refills the population with mutants of random survivors; a mutant enters only when
// the operator changed something and the result is legal. After 1,000 failures per missing individual a
// copy of its parent enters instead (PIMCOMP-NN would loop forever).
void refill(std::vector<Individual>& pop, const GaProblem& p, const GaOptions& o, GaRng& rng,
            const GaControl& control) {
  const std::size_t parents = pop.size();
  while (int(pop.size()) < o.population && !cancelled(control)) {
    bool added = false;
    for (int attempt = 0; attempt < 1000 && !added; ++attempt) {
      const Individual& parent = pop[rng.below(parents)];
      Chromosome child = parent.genome;
      const ga::Mutation m = pickMutation(o.mutation, rng);
      if (ga::mutate(p, child, m, rng) && ga::legalityError(p, child).empty()) {
        pop.push_back({std::move(child)});
        added = true;
      }
    }
    if (!added) pop.push_back(pop[rng.below(parents)]);
  }
}

void sortBestFirst(std::vector<Individual>& pop) {
  // Unevaluated individuals (a cancelled evaluation) are dropped. Ties go to the later individual (mutants
  // come after their parents): PIMCOMP-NN's random jitter below 0.1 ns lets an equally fit mutant displace
  // its parent, and a max-over-cores fitness has wide plateaus that the search must be able to drift along;
  // this does the same without randomness.
  std::erase_if(pop, [](const Individual& i) { return !i.evaluated; });
  std::reverse(pop.begin(), pop.end());
  std::stable_sort(pop.begin(), pop.end(),
                   [](const Individual& a, const Individual& b) { return a.fitness < b.fitness; });
}

GaSolution solution(const GaProblem& p, const Individual& i) {
  ga::Decoded d = ga::decode(p, i.genome);
  return {std::move(d.replicas), std::move(d.cores), i.fitness};
}

int workerCount(int requested) {
  if (requested > 0) return requested;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace

GaResult runGa(const CompilePlan& basePlan, const GaOptions& options, const xbar::TimingParams& timing,
               const GaControl& control) {
  checkOptions(options);
  const GaProblem problem = ga::makeProblem(basePlan, options.kindsPerCore);
  const FitnessModel model(problem, basePlan.options.mode, timing);
  const int threads = workerCount(options.threads);
  GaRng rng(options.seed);
  GaResult result;

  const auto seeds = seedChromosomes(basePlan, problem);
  std::vector<Chromosome> seedGenomes;
  for (const auto& [name, c] : seeds) seedGenomes.push_back(c);
  std::vector<Individual> pop = initialPopulation(problem, seedGenomes, options.population, rng, control);
  evaluateAll(pop, model, options.fitness, threads, control);
  if (!pop[0].evaluated) {  // cancelled at once: the first individual still gives a result (about 1 ms)
    pop[0].fitness = model.evaluate(pop[0].genome, options.fitness);
    pop[0].evaluated = true;
  }
  for (std::size_t i = 0; i < seeds.size() && i < pop.size(); ++i)
    if (pop[i].evaluated) result.seeds.push_back({seeds[i].first, pop[i].fitness});
  sortBestFirst(pop);
  result.history.push_back(pop[0].fitness);
  if (control.progress) control.progress(0, pop[0].fitness);
  for (int it = 1; it <= options.iterations && !cancelled(control); ++it) {
    pop = select(pop, options, rng);  // pop[0], the best, is always kept: elitism
    refill(pop, problem, options, rng, control);
    evaluateAll(pop, model, options.fitness, threads, control);
    sortBestFirst(pop);
    if (cancelled(control)) break;  // a partly evaluated iteration does not count
    result.iterations = it;
    result.history.push_back(pop[0].fitness);
    if (control.progress) control.progress(it, pop[0].fitness);
  }
  result.cancelled = cancelled(control);
  result.best = solution(problem, pop[0]);
  for (const Individual& i : pop) result.population.push_back(solution(problem, i));
  return result;
}

double gaFitness(const CompilePlan& plan, GaFitness kind, const xbar::TimingParams& timing,
                 int kindsPerCore) {
  const GaProblem problem = ga::makeProblem(plan, kindsPerCore);
  std::vector<std::int64_t> cores;
  for (const ArrayGroup& ag : plan.layout.ags) cores.push_back(ag.core);
  return FitnessModel(problem, plan.options.mode, timing)
      .evaluate(ga::encode(problem, plan.replicas, cores), kind);
}

CompilePlan compileWithGa(const Network& net, const Accelerator& acc, const CompileOptions& options,
                          const GaOptions& gaOptions, const xbar::TimingParams& timing,
                          const GaControl& control, GaResult* details) {
  CompileOptions base = options;
  base.replication = "balance";
  const CompilePlan plan = compilePlan(net, acc, base);
  GaResult r = runGa(plan, gaOptions, timing, control);
  CompileOptions chosen = options;
  chosen.replication = "ga";
  CompilePlan out = assemblePlan(net, acc, chosen, r.best.replicas, r.best.cores);
  if (details) *details = std::move(r);
  return out;
}

}  // namespace pim::crossbar
