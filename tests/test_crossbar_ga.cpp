// SPDX-License-Identifier: Apache-2.0
// The crossbar compiler's GA (engine/crossbar/ga.h) against ../shared/specs/crossbar.md ("Weight
// replication", GA paragraph and dac23's analytic HT fitness; "AG to core mapping"): determinism across
// thread counts, never worse than its seeds, legality checked through the plan (not the GA's own checker),
// every mutation, the chromosome encoding, cancellation and a hand-worked analytic fitness.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/common/error.h"
#include "engine/crossbar/ga.h"
#include "engine/crossbar/ga_operators.h"
#include "tests/crossbar_tiny_network.h"

namespace pim::crossbar {
// Named, not anonymous: the unity build may put this file beside another test with helpers of the same names.
namespace ga_tests {

using ga::Chromosome;
using ga::GaProblem;

// The hand-worked network of tests/crossbar_tiny_network.h with c1 plain (no bias, no ReLU). On 64 x 16
// arrays (layer: AGs per replica x crossbars per AG, windows): c1 1 x 1, 64; c2 3 x 2, 16; c3 1 x 1, 4;
// fc 1 x 1, 1.
Network tinyNetwork() { return compile_tests::tinyNetwork(true); }

Accelerator tinyAccelerator(std::int64_t cores = 2, std::int64_t perCore = 16) {
  return compile_tests::tinyAccelerator(cores, cores, perCore);
}

using compile_tests::defaultAccelerator;

CompilePlan planOf(const Network& net, const Accelerator& acc, PipelineMode mode) {
  CompileOptions o;
  o.mode = mode;
  return compilePlan(net, acc, o);
}

// Legality from the plan's side, without the GA's checker: assemblePlan checks the replica counts (a
// multiple of AGP, at least one replica, at most windows), one core per AG of arrayGroups (so every layer
// has replicas x AGs per replica AGs) and every core's crossbars; the AG kinds per core are counted here.
std::string planLegality(const CompilePlan& base, const GaSolution& s, int kinds = 32) {
  try {
    const CompilePlan p = assemblePlan(base.network, base.accelerator, base.options, s.replicas, s.cores);
    for (const std::vector<int>& agsOfCore : p.layout.coreAgs) {
      std::set<int> layers;
      for (int ag : agsOfCore) layers.insert(p.layout.ags[std::size_t(ag)].layer);
      if (static_cast<int>(layers.size()) > kinds) return "a core holds " + std::to_string(layers.size());
    }
    for (std::int64_t used : p.layout.usedCrossbars)
      if (used > p.accelerator.crossbarsPerCore) return "a core over capacity";
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

GaSolution asSolution(const GaProblem& p, const Chromosome& c) {
  ga::Decoded d = ga::decode(p, c);
  return {d.replicas, d.cores, 0};
}

// ---------------------------------------------------------------------------------------------------------
// Chromosome
// ---------------------------------------------------------------------------------------------------------

TEST(CrossbarGa, EncodingRoundTrip) {
  const CompilePlan plan = planOf(tinyNetwork(), tinyAccelerator(), PipelineMode::Ht);
  const GaProblem p = ga::makeProblem(plan, 32);
  ASSERT_EQ(p.units.size(), 4u);
  std::vector<std::int64_t> cores;
  for (const ArrayGroup& ag : plan.layout.ags) cores.push_back(ag.core);
  const Chromosome c = ga::encode(p, plan.replicas, cores);
  EXPECT_EQ(ga::legalityError(p, c), "");
  // Gene values are unit x 10000 + AG count, in slot core x 32 + k.
  for (int core = 0; core < p.cores; ++core) {
    std::int64_t used = 0;
    for (int s = 0; s < c.kinds[std::size_t(core)]; ++s) {
      const std::int32_t g = c.genes[std::size_t(core * 32 + s)];
      used += (g % 10000) * p.units[std::size_t(g / 10000)].crossbarsPerAg;
    }
    EXPECT_EQ(used, plan.layout.usedCrossbars[std::size_t(core)]);
  }
  // First fit fills each layer's cores in increasing order, the order decode fills genes: exact round trip.
  const ga::Decoded d = ga::decode(p, c);
  EXPECT_EQ(d.replicas, plan.replicas);
  EXPECT_EQ(d.cores, cores);
  // A hand-made chromosome: c1 x 4 replicas split 3 + 1 over cores 2 and 0.
  Chromosome h = ga::emptyChromosome(p);
  h.replicas = {4, 1, 1, 1};
  ASSERT_TRUE(ga::addAgs(p, h, 2, 0, 3));
  ASSERT_TRUE(ga::addAgs(p, h, 0, 0, 1));
  ASSERT_TRUE(ga::addAgs(p, h, 1, 1, 3));
  ASSERT_TRUE(ga::addAgs(p, h, 3, 2, 1));
  ASSERT_TRUE(ga::addAgs(p, h, 3, 3, 1));
  EXPECT_EQ(h.genes[2 * 32], 3);  // unit 0, 3 AGs
  EXPECT_EQ(h.genes[1 * 32], 10003);
  EXPECT_EQ(h.genes[3 * 32 + 1], 30001);
  EXPECT_EQ(ga::legalityError(p, h), "");
  const ga::Decoded hd = ga::decode(p, h);
  EXPECT_EQ(hd.replicas, (std::vector<std::int64_t>{4, 1, 1, 1}));
  EXPECT_EQ(hd.cores, (std::vector<std::int64_t>{0, 2, 2, 2, 1, 1, 1, 3, 3}));
  EXPECT_EQ(ga::encode(p, hd.replicas, hd.cores).genes[2 * 32], 3);
  EXPECT_EQ(ga::decode(p, ga::encode(p, hd.replicas, hd.cores)).cores, hd.cores);
  // Illegal: one AG short, and a core over its crossbars.
  Chromosome shortOne = h;
  ga::removeAgs(p, shortOne, 2 * 32, 1);
  EXPECT_NE(ga::legalityError(p, shortOne), "");
  Chromosome full = h;
  full.replicas[0] = 20;
  ga::addAgs(p, full, 2, 0, 16);
  EXPECT_NE(ga::legalityError(p, full).find("crossbars of 16"), std::string::npos);
}

TEST(CrossbarGa, EveryMutationKeepsLegality) {
  // 48 crossbars a core: PIMCOMP-NN's thresholds let split move genes over 12 crossbars and gather genes
  // under 2; at most 3 layers a core, so the kinds limit binds too.
  const CompilePlan plan = planOf(tinyNetwork(), tinyAccelerator(2, 48), PipelineMode::Ht);
  const GaProblem p = ga::makeProblem(plan, 3);
  ga::GaRng rng(7);
  std::vector<Chromosome> pool;
  for (int i = 0; i < 200 && pool.size() < 20; ++i)
    if (auto c = ga::randomIndividual(p, rng)) pool.push_back(*c);
  ASSERT_FALSE(pool.empty());
  for (int m = 0; m < ga::kMutations; ++m) {
    SCOPED_TRACE("mutation " + std::to_string(m));
    int changed = 0;
    for (int step = 0; step < 300; ++step) {
      Chromosome& c = pool[std::size_t(step) % pool.size()];
      const Chromosome before = c;
      if (!ga::mutate(p, c, static_cast<ga::Mutation>(m), rng)) {
        EXPECT_EQ(c, before);  // a mutation that finds nothing leaves the individual alone
        continue;
      }
      ++changed;
      ASSERT_EQ(ga::legalityError(p, c), "");
      ASSERT_EQ(planLegality(plan, asSolution(p, c), 3), "");
    }
    EXPECT_GT(changed, 0);
  }
}

TEST(CrossbarGa, AnalyticFitnessHandWorked) {
  const CompilePlan plan = planOf(tinyNetwork(), tinyAccelerator(), PipelineMode::Ht);
  const GaProblem p = ga::makeProblem(plan, 32);
  // c1 x 4 replicas (16 windows per AG), c3 and fc on core 0; c2 (3 AGs, 16 windows) on core 1.
  const Chromosome c = ga::encode(p, {4, 1, 1, 1}, {0, 0, 0, 0, 1, 1, 1, 0, 0});
  const ga::FitnessModel model(p, PipelineMode::Ht, xbar::TimingParams{});  // 800 ns MVM, 200 ns issue
  // Core 0, 6 AGs sorted by windows fc 1, c3 4, c1 16: 1 x f(6) + 3 x f(5) + 12 x f(4), f(n) = 200n if
  // n > 800/200 else 800: 1,200 + 3,000 + 9,600 = 13,800. Core 1: 16 x f(3) = 12,800.
  EXPECT_DOUBLE_EQ(model.perWindowNs(5), 1000.0);
  EXPECT_DOUBLE_EQ(model.perWindowNs(4), 800.0);
  EXPECT_DOUBLE_EQ(model.analyticHt(c), 13800.0);
  const CompilePlan assembled =
      assemblePlan(plan.network, plan.accelerator, plan.options, {4, 1, 1, 1}, {0, 0, 0, 0, 1, 1, 1, 0, 0});
  EXPECT_DOUBLE_EQ(gaFitness(assembled, GaFitness::Analytic, xbar::TimingParams{}), 13800.0);
  // LL: the first conv's IGs ceil(64 / 4) = 16 times whole_time. c2 waits for (10 x 10 - 16) / 100 of c1's
  // padded output and, at 1 replica after c1's 4, runs 4x slower; c3 waits (4 x 4 - 4) / 16; the global pool
  // (2 x 2 - 1) / 4; fc waits for everything and then takes no time of its own (run 0):
  // whole = w2 + r2 (w3 + r3 (wp + rp (1 + 0 x 1))) = 0.84 + 0.64 x 1 = 1.48.
  const double w2 = 0.84, r2 = (1 - w2) * 4, w3 = 0.75, r3 = 0.25, wp = 0.75, rp = 0.25;
  const double whole = w2 + r2 * (w3 + r3 * (wp + rp * (1.0 + 0.0 * 1.0)));
  EXPECT_NEAR(whole, 1.48, 1e-12);
  EXPECT_NEAR(model.llInstructionGroups(c.replicas), 16 * whole, 1e-9);
  // Analytic LL: those IGs times the slowest core's window, f(6) = 1,200 ns on core 0.
  const ga::FitnessModel ll(p, PipelineMode::Ll, xbar::TimingParams{});
  EXPECT_NEAR(ll.analyticLl(c), 16 * 1.48 * 1200, 1e-6);
}

// ---------------------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------------------

void expectSameSolution(const GaSolution& a, const GaSolution& b) {
  EXPECT_EQ(a.replicas, b.replicas);
  EXPECT_EQ(a.cores, b.cores);
  EXPECT_EQ(a.fitness, b.fitness);
}

TEST(CrossbarGa, SameSeedSameResultForAnyThreadCount) {
  const CompilePlan plan =
      planOf(loadNetworkFile(builtinNetworkPath("resnet18")), defaultAccelerator(), PipelineMode::Ht);
  GaOptions o;
  o.population = 24;
  o.iterations = 4;
  o.seed = 12345;
  o.threads = 1;
  const GaResult one = runGa(plan, o, xbar::TimingParams{});
  o.threads = 2;
  const GaResult two = runGa(plan, o, xbar::TimingParams{});
  expectSameSolution(one.best, two.best);
  EXPECT_EQ(one.history, two.history);
  ASSERT_EQ(one.population.size(), two.population.size());
  for (std::size_t i = 0; i < one.population.size(); ++i)
    expectSameSolution(one.population[i], two.population[i]);
  o.seed = 54321;  // another seed explores differently (the random part of the population differs)
  const GaResult other = runGa(plan, o, xbar::TimingParams{});
  bool differs = false;
  for (std::size_t i = 0; i < other.population.size() && i < two.population.size(); ++i)
    differs = differs || other.population[i].cores != two.population[i].cores;
  EXPECT_TRUE(differs);
}

// The GA's population holds balance's own layout, and the best always survives: never worse than balance by
// its own fitness, in both modes and with both fitness kinds; every final individual is a legal plan.
TEST(CrossbarGa, AtLeastAsGoodAsBalanceOnResnet18) {
  const Network net = loadNetworkFile(builtinNetworkPath("resnet18"));
  for (PipelineMode mode : {PipelineMode::Ht, PipelineMode::Ll}) {
    for (GaFitness kind : {GaFitness::Fast, GaFitness::Analytic}) {
      SCOPED_TRACE(std::string(mode == PipelineMode::Ht ? "HT " : "LL ") +
                   (kind == GaFitness::Fast ? "fast" : "analytic"));
      const CompilePlan balance = planOf(net, defaultAccelerator(), mode);
      GaOptions o;
      o.population = 30;
      o.iterations = 5;
      o.fitness = kind;
      o.threads = 2;
      const GaResult r = runGa(balance, o, xbar::TimingParams{});
      const double balanceFitness = gaFitness(balance, kind, xbar::TimingParams{});
      EXPECT_LE(r.best.fitness, balanceFitness);
      ASSERT_FALSE(r.seeds.empty());
      EXPECT_EQ(r.seeds[0].first, "base");
      EXPECT_DOUBLE_EQ(r.seeds[0].second, balanceFitness);
      ASSERT_EQ(r.history.size(), 6u);
      for (std::size_t i = 1; i < r.history.size(); ++i) EXPECT_LE(r.history[i], r.history[i - 1]);
      EXPECT_EQ(r.history.back(), r.best.fitness);
      // The chosen plan reproduces its fitness.
      const CompilePlan chosen =
          assemblePlan(net, balance.accelerator, balance.options, r.best.replicas, r.best.cores);
      EXPECT_DOUBLE_EQ(gaFitness(chosen, kind, xbar::TimingParams{}), r.best.fitness);
      ASSERT_EQ(r.population.size(), 30u);
      for (const GaSolution& s : r.population) {
        ASSERT_EQ(planLegality(balance, s), "");
        EXPECT_GE(s.fitness, r.best.fitness);
      }
    }
  }
}

TEST(CrossbarGa, CancellationKeepsTheBestSoFar) {
  const CompilePlan plan =
      planOf(loadNetworkFile(builtinNetworkPath("resnet18")), defaultAccelerator(), PipelineMode::Ht);
  std::atomic<bool> cancel{false};
  std::atomic<int> reached{-1};
  GaControl control;
  control.cancel = &cancel;
  control.progress = [&](int iteration, double) { reached = iteration; };
  GaOptions o;
  o.iterations = 100000;
  o.threads = 2;
  auto run = std::async(std::launch::async, [&] { return runGa(plan, o, xbar::TimingParams{}, control); });
  while (reached.load() < 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto start = std::chrono::steady_clock::now();
  cancel = true;
  const GaResult r = run.get();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(ms, 100.0);
  EXPECT_TRUE(r.cancelled);
  EXPECT_GE(r.iterations, 1);
  EXPECT_LE(r.best.fitness, r.history.back());
  EXPECT_LE(r.best.fitness, gaFitness(plan, GaFitness::Fast, xbar::TimingParams{}));
  EXPECT_EQ(planLegality(plan, r.best), "");
  // Cancelled before it starts: still the best of what it evaluated (the first seed).
  const GaResult early = runGa(plan, o, xbar::TimingParams{}, control);
  EXPECT_TRUE(early.cancelled);
  EXPECT_EQ(early.iterations, 0);
  EXPECT_DOUBLE_EQ(early.best.fitness, gaFitness(plan, GaFitness::Fast, xbar::TimingParams{}));
}

TEST(CrossbarGa, CompileWithGaAndOptionErrors) {
  GaOptions o;
  o.population = 10;
  o.iterations = 2;
  GaResult details;
  const CompilePlan p =
      compileWithGa(tinyNetwork(), tinyAccelerator(), {}, o, xbar::TimingParams{}, {}, &details);
  EXPECT_EQ(p.options.replication, "ga");
  EXPECT_EQ(p.replicas, details.best.replicas);
  EXPECT_DOUBLE_EQ(gaFitness(p, GaFitness::Fast, xbar::TimingParams{}), details.best.fitness);
  const CompilePlan base = planOf(tinyNetwork(), tinyAccelerator(), PipelineMode::Ht);
  GaOptions bad;
  bad.mutation = {0, 0, 0, 0, 0};
  EXPECT_THROW(runGa(base, bad, xbar::TimingParams{}), InputError);
  bad = {};
  bad.population = 0;
  EXPECT_THROW(runGa(base, bad, xbar::TimingParams{}), InputError);
}

}  // namespace ga_tests
}  // namespace pim::crossbar
