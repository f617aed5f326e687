// SPDX-License-Identifier: Apache-2.0
// Search strategies: exhaustive finds the simulated optimum, the compute-centric two-step never beats it,
// cancelling stops promptly and keeps what was found; the registry: every strategy runs, a strategy may
// propose drafts it built, and a failing strategy fails the run, not the process.
#include <gtest/gtest.h>

#include "tests/test_util.h"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "engine/common/error.h"
#include "engine/kernel/library.h"
#include "engine/predict/predictor.h"
#include "engine/search/explorer.h"
#include "engine/search/strategy.h"

namespace pim {
namespace {

using test::problem;

TEST(Explorer, ExhaustiveFindsTheBestSimulatedDraft) {
  const auto p = problem("gddr6-aim", "red", "b=1,n=2048");
  ExploreOptions o;
  o.strategy = "exhaustive";
  Explorer ex(*p, o);
  const std::atomic<bool> never{false};
  int reports = 0;
  ex.run(never, [&](const ExploreProgress&) { ++reports; });
  const auto prog = ex.progress();
  EXPECT_EQ(prog.stage, "done");
  EXPECT_EQ(prog.simulated, prog.remaining);
  EXPECT_GT(reports, 0);
  const auto best = ex.best();
  ASSERT_TRUE(best && best->simulated);
  for (const auto& r : ex.records()) {
    if (r.simulated) {
      EXPECT_GE(r.simulated->timeNs, best->simulated->timeNs);
    }
  }
}

TEST(Explorer, ComputeCentricNeverBeatsTheExhaustiveOptimum) {
  for (const char* kernel : {"red", "gemv"}) {
    const auto p =
        problem("gddr6-aim", kernel, std::string(kernel) == "red" ? "b=2,n=4096" : "b=1,out=256,in=256");
    ExploreOptions ex, cc;
    ex.strategy = "exhaustive";
    cc.strategy = "compute-centric";
    const auto best = exploreBest(*p, ex), ccBest = exploreBest(*p, cc);
    ASSERT_TRUE(best && ccBest);
    EXPECT_LE(best->simulated->timeNs, ccBest->simulated->timeNs) << kernel;
  }
}

// The compute-centric ranking waits for every compute-only run; ranking on the runs reported so far made the
// pick depend on which worker finished first (seen as a flaky main-window test on a loaded machine).
TEST(Explorer, ComputeCentricPickDoesNotDependOnThreadTiming) {
  const auto p = problem("hbm-pim", "red", "b=1,n=4096");
  ExploreOptions cc;
  cc.strategy = "compute-centric";
  const auto first = exploreBest(*p, cc);
  ASSERT_TRUE(first && first->simulated);
  for (int run = 0; run < 10; ++run) {
    Explorer ex(*p, cc);
    const std::atomic<bool> never{false};
    ex.run(never);
    ASSERT_TRUE(ex.best()) << run;
    EXPECT_EQ(ex.best()->draft.id, first->draft.id) << run;
    EXPECT_EQ(ex.progress().simulated, ex.progress().toSimulate) << run;
  }
}

TEST(Explorer, CancelStopsPromptlyAndKeepsWhatWasFound) {
  const auto p = problem("hbm-pim", "gemv", "b=1,out=2048,in=2048");
  ExploreOptions o;
  o.strategy = "exhaustive";
  Explorer ex(*p, o);
  std::atomic<bool> cancel{false};
  std::thread runner([&] { ex.run(cancel); });
  while (ex.progress().simulated < 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto t0 = std::chrono::steady_clock::now();
  cancel = true;
  runner.join();
  const double stopMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(ex.progress().stage, "cancelled");
  EXPECT_LT(ex.progress().simulated, ex.progress().remaining);
  EXPECT_TRUE(ex.best().has_value());
  EXPECT_LT(stopMs, 1000.0);  // one in-flight simulation per worker finishes first
}

TEST(Explorer, BaselineStrategiesEvaluateOneSchedule) {
  const auto p = problem("hbm2-pim", "va", "b=1,n=262144");
  ExploreOptions o;
  o.strategy = "vendor";
  const auto v = exploreBest(*p, o);
  ASSERT_TRUE(v && v->simulated);
  EXPECT_GT(v->simulated->cycles[1], 0);
  o.strategy = "gpu";
  const auto g = exploreBest(*p, o);
  ASSERT_TRUE(g && g->simulated);
  EXPECT_EQ(g->simulated->provenance, Provenance::Analytic);
}

// The CLI's branch and bound over the confirmations: the same pick, and a stopped confirmation only ever
// holds a lower bound above that pick.
TEST(Explorer, BoundedConfirmationsPickTheSameDraft) {
  const auto pred = Predictor::loadShipped("hbm-pim");
  ASSERT_TRUE(pred);
  int stopped = 0;
  // The third shape is outside the model's training ranges, so a second batch is confirmed and bounded.
  for (const char* dims : {"b=1,out=1024,in=1024", "b=4,out=512,in=2048", "b=1,out=8192,in=256"}) {
    const auto p = problem("hbm-pim", "gemv", dims);
    ExploreOptions full;
    full.predictor = &*pred;
    ExploreOptions bounded = full;
    bounded.boundConfirmations = true;
    Explorer a(*p, full), b(*p, bounded);
    const std::atomic<bool> never{false};
    a.run(never);
    b.run(never);
    ASSERT_TRUE(a.best() && b.best()) << dims;
    EXPECT_EQ(a.best()->draft.id, b.best()->draft.id) << dims;
    EXPECT_EQ(a.best()->simulated->timeNs, b.best()->simulated->timeNs) << dims;
    EXPECT_FALSE(b.best()->simulated->lowerBound);
    EXPECT_EQ(a.progress().simulated, b.progress().simulated);
    for (const auto& r : a.records()) EXPECT_FALSE(r.simulated && r.simulated->lowerBound);
    for (const auto& r : b.records()) {
      if (r.simulated && r.simulated->lowerBound) {
        ++stopped;
        EXPECT_GT(r.simulated->timeNs, b.best()->simulated->timeNs);
      }
    }
  }
  EXPECT_GT(stopped, 0) << "no confirmation was stopped, so the bound was not exercised";
}

// A model still loading is asked for once, after the analytic screen, and gives the same exploration.
TEST(Explorer, DeferredModelIsAskedForOnceAfterTheScreen) {
  const auto pred = Predictor::loadShipped("hbm-pim");
  ASSERT_TRUE(pred);
  const auto p = problem("hbm-pim", "gemv", "b=1,out=1024,in=1024");
  ExploreOptions direct;
  direct.predictor = &*pred;
  ExploreOptions deferred;
  int calls = 0;
  deferred.predictorSource = [&]() -> const Predictor* {
    ++calls;
    return &*pred;
  };
  Explorer a(*p, direct), b(*p, deferred);
  const std::atomic<bool> never{false};
  a.run(never);
  b.run(never);
  EXPECT_EQ(calls, 1);
  ASSERT_TRUE(a.best() && b.best());
  EXPECT_EQ(a.best()->draft.id, b.best()->draft.id);
  EXPECT_EQ(a.progress().predicted, b.progress().predicted);
  std::vector<std::string> stages;
  for (const auto& [stage, seconds] : b.progress().stageSeconds) {
    stages.push_back(stage);
    EXPECT_GE(seconds, 0.0) << stage;
  }
  EXPECT_EQ(stages, (std::vector<std::string>{"generating", "screening", "loading model", "predicting",
                                              "simulating"}));
  // Without a model the predictor strategy falls back to exhaustive search.
  ExploreOptions none;
  none.predictorSource = [] { return static_cast<const Predictor*>(nullptr); };
  none.maxSimulations = 8;
  Explorer c(*p, none);
  c.run(never);
  EXPECT_EQ(c.progress().predicted, 0u);
  EXPECT_EQ(c.progress().simulated, 8u);
}

// The registry is the list the CLI, the window and session files offer: each strategy on it must run.
TEST(StrategyRegistry, EveryRegisteredStrategyExploresASmallProblem) {
  const auto pred = Predictor::loadShipped("hbm-pim");
  ASSERT_TRUE(pred);
  const auto p = problem("hbm-pim", "red", "b=1,n=4096");
  const StrategyRegistry& registry = StrategyRegistry::builtin();
  ASSERT_GE(registry.all().size(), 5u);
  for (const StrategyInfo& s : registry.all()) {
    EXPECT_FALSE(s.description.empty()) << s.name;
    if (s.predictions == PredictionUse::Required) {
      ASSERT_TRUE(registry.find(s.fallback)) << s.name << " falls back to an unknown strategy";
      EXPECT_NE(registry.get(s.fallback).predictions, PredictionUse::Required) << s.name;
    }
    ExploreOptions o;
    o.strategy = s.name;
    o.predictor = &*pred;
    o.maxSimulations = 16;
    o.sampling.trials = 16;
    Explorer ex(*p, o);
    const std::atomic<bool> never{false};
    ex.run(never);
    EXPECT_EQ(ex.progress().stage, "done") << s.name;
    ASSERT_TRUE(ex.best() && ex.best()->simulated) << s.name;
    EXPECT_GT(ex.best()->simulated->timeNs, 0) << s.name;
    EXPECT_EQ(ex.progress().predicted > 0, s.predictions != PredictionUse::None) << s.name;
  }
  EXPECT_EQ(registry.names(", ", " or "), "predictor, exhaustive, compute-centric, imtp, vendor or gpu");
  StrategyRegistry twice;
  registerBuiltinStrategies(twice);
  EXPECT_THROW(registerBuiltinStrategies(twice), InputError);
}

TEST(Explorer, UnknownStrategyIsRefusedBeforeAnyWork) {
  const auto p = problem("gddr6-aim", "red", "b=1,n=2048");
  ExploreOptions o;
  o.strategy = "nope";
  Explorer ex(*p, o);
  const std::atomic<bool> never{false};
  try {
    ex.run(never);
    ADD_FAILURE() << "ran an unknown strategy";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown strategy 'nope' (known: predictor, exhaustive"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(ex.progress().stage, "idle");
  EXPECT_EQ(ex.progress().generated, 0u);
}

// A strategy is not limited to the kept drafts: it may build a candidate (here a draft rule 3 removed, as a
// neighbourhood search would reach it), which the explorer records, evaluates and reports like a kept one.
TEST(Explorer, StrategyCanProposeADraftItBuilt) {
  const auto p = problem("gddr6-aim", "red", "b=1,n=2048");
  const Pruner pruner(p->space());
  std::optional<Draft> built;
  for (std::uint64_t id = 0; id < p->space().size() && !built; ++id) {
    if (pruner.why(id).rule == 3) built = p->space().draft(id);
  }
  ASSERT_TRUE(built);
  struct Reported {
    std::size_t index;
    bool simulated;
  };
  auto reports = std::make_shared<std::vector<Reported>>();
  class BuildsOne final : public ISearchStrategy {
   public:
    BuildsOne(Draft d, std::shared_ptr<std::vector<Reported>> r) : m_built(std::move(d)), m_reports(r) {}
    std::optional<Proposal> next() override {
      Proposal p;
      if (m_step == 1) p.draft = m_built;  // step 0 proposes kept record 0
      if (m_step++ > 1) return std::nullopt;
      return p;
    }
    void report(const Proposal& p, const DraftRecord& r) override {
      m_reports->push_back({p.index, r.simulated != nullptr});
    }
    std::size_t planned() const override { return 2; }

   private:
    Draft m_built;
    std::shared_ptr<std::vector<Reported>> m_reports;
    int m_step = 0;
  };
  StrategyRegistry registry;
  registry.add({"builds-one",
                "one kept draft, then one it built",
                PredictionUse::None,
                "",
                [&](const StrategyContext&) { return std::make_unique<BuildsOne>(*built, reports); },
                {}});
  ExploreOptions o;
  o.strategy = "builds-one";
  o.strategies = &registry;
  Explorer ex(*p, o);
  const std::atomic<bool> never{false};
  ex.run(never);
  const auto records = ex.records();
  const std::size_t kept = ex.progress().remaining;
  ASSERT_EQ(records.size(), kept + 1);
  EXPECT_EQ(records.back().draft, *built);
  ASSERT_TRUE(records.back().simulated) << records.back().error;
  EXPECT_EQ(records.back().simulated->totalCycles, evaluateDraft(*p, *built, o.eval).totalCycles);
  EXPECT_EQ(ex.progress().simulated, 2u);
  ASSERT_EQ(reports->size(), 2u);
  for (const Reported& r : *reports) {
    EXPECT_TRUE(r.index == 0 || r.index == kept) << r.index;
    EXPECT_TRUE(r.simulated);
  }
}

// Baseline strategies evaluate in the strategy's own code: when the schedule does not exist the run fails
// with the reason (as before vendor became a strategy), and an exception on any worker thread is rethrown by
// run() instead of terminating the process.
TEST(Explorer, FailingStrategyFailsTheRunNotTheProcess) {
  const auto p = problem("gddr6-aim", "red", "b=1,n=2048");
  ExploreOptions o;
  o.strategy = "vendor";
  const std::atomic<bool> never{false};
  try {
    Explorer(*p, o).run(never);
    ADD_FAILURE() << "gddr6-aim has no vendor schedule";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "vendor strategy: no vendor schedule is modelled for gddr6-aim");
  }

  class Throws final : public ISearchStrategy {
   public:
    std::optional<Proposal> next() override {
      if (m_left == 0) return std::nullopt;
      --m_left;
      Proposal p;
      p.evaluate = []() -> DraftRecord { throw std::runtime_error("boom"); };
      return p;
    }
    void report(const Proposal&, const DraftRecord&) override {}
    std::size_t planned() const override { return 64; }

   private:
    int m_left = 64;
  };
  StrategyRegistry registry;
  registry.add({"throws",
                "every evaluation throws",
                PredictionUse::None,
                "",
                [](const StrategyContext&) { return std::make_unique<Throws>(); },
                {}});
  o.strategy = "throws";
  o.strategies = &registry;
  Explorer ex(*p, o);
  EXPECT_THROW(ex.run(never), std::runtime_error);
  EXPECT_EQ(ex.progress().stage, "simulating");
}

void expectSameRecords(const std::vector<DraftRecord>& a, const std::vector<DraftRecord>& b,
                       const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].draft, b[i].draft) << what << " record " << i;
    EXPECT_EQ(a[i].predictedNs, b[i].predictedNs) << what << " record " << i;
    EXPECT_EQ(a[i].computeOnlyCycles, b[i].computeOnlyCycles) << what << " record " << i;
    EXPECT_EQ(a[i].error, b[i].error) << what << " record " << i;
    ASSERT_EQ(a[i].simulated != nullptr, b[i].simulated != nullptr) << what << " record " << i;
    if (!a[i].simulated) continue;
    EXPECT_EQ(a[i].simulated->cycles, b[i].simulated->cycles) << what << " record " << i;
    EXPECT_EQ(a[i].simulated->timeNs, b[i].simulated->timeNs) << what << " record " << i;
    EXPECT_EQ(a[i].simulated->energyPj, b[i].simulated->energyPj) << what << " record " << i;
  }
}

// Workers used to be capped at two; with one per core by default, what a run finds must not depend on how
// many there are (or on which finished first): the same pick and the same records with 1 and 4 threads.
TEST(Explorer, ResultsDoNotDependOnTheThreadCount) {
  const auto pred = Predictor::loadShipped("hbm-pim");
  ASSERT_TRUE(pred);
  const auto p = problem("hbm-pim", "gemv", "b=1,out=1024,in=1024");
  for (const char* strategy : {"predictor", "exhaustive", "compute-centric"}) {
    ExploreOptions o;
    o.strategy = strategy;
    o.predictor = &*pred;
    o.maxSimulations = 48;
    ExploreOptions one = o, four = o;
    one.threads = 1;
    four.threads = 4;
    Explorer a(*p, one), b(*p, four);
    const std::atomic<bool> never{false};
    a.run(never);
    b.run(never);
    ASSERT_TRUE(a.best() && b.best()) << strategy;
    EXPECT_EQ(a.best()->draft.id, b.best()->draft.id) << strategy;
    EXPECT_EQ(a.progress().bestNs, b.progress().bestNs) << strategy;
    EXPECT_EQ(a.progress().best, b.progress().best) << strategy;
    EXPECT_EQ(a.progress().simulated, b.progress().simulated) << strategy;
    EXPECT_EQ(a.progress().failed, b.progress().failed) << strategy;
    EXPECT_GT(a.progress().simulated, 4u) << strategy << ": too few simulations to use four threads";
    expectSameRecords(a.records(), b.records(), strategy);
  }
  // Bounded confirmations: lower bounds depend on what was confirmed first, the pick does not.
  ExploreOptions bounded;
  bounded.predictor = &*pred;
  bounded.boundConfirmations = true;
  ExploreOptions one = bounded, four = bounded;
  one.threads = 1;
  four.threads = 4;
  const auto a = exploreBest(*p, one), b = exploreBest(*p, four);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->draft.id, b->draft.id);
  EXPECT_EQ(a->simulated->timeNs, b->simulated->timeNs);
}

}  // namespace
}  // namespace pim
