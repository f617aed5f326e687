// SPDX-License-Identifier: Apache-2.0
// The up-front estimate the window asks with before a long run: the strategy's planned evaluations among the
// kept drafts, one sample simulation, the workers.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/core/candidate_space.h"
#include "engine/search/run_estimate.h"
#include "engine/target/registry.h"
#include "tests/test_util.h"

namespace {

TEST(RunEstimate, ExhaustivePlansEveryKeptDraftOrItsCap) {
  const auto p = pim::test::problem("hbm-pim", "red", "b=1,n=4096");
  const std::uint64_t kept = pim::targetOf(p->backend()).candidates(*p)->counts().remaining;
  pim::ExploreOptions o;
  o.strategy = "exhaustive";
  o.threads = 2;
  pim::RunEstimate e = pim::estimateRun(*p, o, false);
  EXPECT_EQ(e.kept, kept);
  EXPECT_EQ(e.simulations, kept);
  EXPECT_EQ(e.workers, 2u);
  EXPECT_GT(e.secondsPerSimulation, 0);
  EXPECT_DOUBLE_EQ(e.seconds, static_cast<double>(kept) * e.secondsPerSimulation / 2);
  o.maxSimulations = 40;
  e = pim::estimateRun(*p, o, false);
  EXPECT_LE(e.simulations, 40u);
  EXPECT_GE(e.simulations, 20u);
  EXPECT_NE(pim::estimateText(e).find(std::to_string(e.simulations) + " simulations (exhaustive)"),
            std::string::npos)
      << pim::estimateText(e);
}

TEST(RunEstimate, AModelRankedStrategyWithoutAModelIsEstimatedAsItsFallback) {
  const auto p = pim::test::problem("hbm-pim", "red", "b=1,n=4096");
  pim::ExploreOptions o;
  o.strategy = "predictor";
  EXPECT_EQ(pim::estimateRun(*p, o, true).strategy, "predictor");
  // At most twice its planned confirmations: it confirms as many again when the model is unsure.
  EXPECT_LE(pim::estimateRun(*p, o, true).simulations, 2 * static_cast<std::size_t>(o.maxConfirm));
  EXPECT_EQ(pim::estimateRun(*p, o, false).strategy, "exhaustive");
  o.strategy = "gpu";
  EXPECT_EQ(pim::estimateRun(*p, o, true).simulations, 1u);
}

// With kernel-level choices it confirms the best drafts' other choices too, and the drafts again at the best
// of those, as many as the drafts each. upmem: three times, plus the 8 drafts its estimate ranks first
// (predictor_strategy.cpp: choiceVariants, redrafted, estimateBest).
TEST(RunEstimate, ThePredictorAtKernelLevelChoicesPlansThriceTheConfirmations) {
  const auto u = pim::test::problem("upmem", "va", "b=1,n=2621440");
  pim::ExploreOptions o;
  o.strategy = "predictor";
  const std::size_t drafts = 2 * static_cast<std::size_t>(std::max(o.topK, o.maxConfirm));
  EXPECT_EQ(pim::estimateRun(*u, o, true).simulations, 3 * drafts + 8);
  const auto h = pim::test::problem("hbm-pim", "va", "b=1,n=2621440");
  EXPECT_EQ(pim::estimateRun(*h, o, true).simulations, drafts);
}

}  // namespace
