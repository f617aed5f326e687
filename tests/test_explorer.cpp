// SPDX-License-Identifier: Apache-2.0
// Search strategies: exhaustive finds the simulated optimum, the compute-centric two-step never beats it,
// cancelling stops promptly and keeps what was found.
#include <gtest/gtest.h>

#include "tests/test_util.h"

#include <chrono>
#include <thread>

#include "engine/kernel/library.h"
#include "engine/search/explorer.h"

namespace pim {
namespace {

using test::problem;

TEST(Explorer, ExhaustiveFindsTheBestSimulatedDraft) {
  const auto p = problem("gddr6-aim", "red", "b=1,n=2048");
  ExploreOptions o;
  o.strategy = StrategyKind::Exhaustive;
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
    ex.strategy = StrategyKind::Exhaustive;
    cc.strategy = StrategyKind::ComputeCentric;
    const auto best = exploreBest(*p, ex), ccBest = exploreBest(*p, cc);
    ASSERT_TRUE(best && ccBest);
    EXPECT_LE(best->simulated->timeNs, ccBest->simulated->timeNs) << kernel;
  }
}

TEST(Explorer, CancelStopsPromptlyAndKeepsWhatWasFound) {
  const auto p = problem("hbm-pim", "gemv", "b=1,out=2048,in=2048");
  ExploreOptions o;
  o.strategy = StrategyKind::Exhaustive;
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
  o.strategy = StrategyKind::Vendor;
  const auto v = exploreBest(*p, o);
  ASSERT_TRUE(v && v->simulated);
  EXPECT_GT(v->simulated->cycles[1], 0);
  o.strategy = StrategyKind::Gpu;
  const auto g = exploreBest(*p, o);
  ASSERT_TRUE(g && g->simulated);
  EXPECT_EQ(g->simulated->provenance, Provenance::Analytic);
}

}  // namespace
}  // namespace pim
