// SPDX-License-Identifier: Apache-2.0
// Active learning (engine/workflow/active_learning.h): reproducible from a seed, labels fewer drafts than
// DCC's fixed 15%, stops when no pick improves, and every label it used is in the store for the next run.
#include <gtest/gtest.h>

#include "engine/common/error.h"
#include "engine/store/store.h"
#include "engine/target/registry.h"
#include "engine/workflow/active_learning.h"

namespace pim {
namespace {

const Suite& suite() {
  static const Suite s{"two", {{"red", {"b=1,n=1024", "b=2,n=2048"}}}};
  return s;
}

ActiveOptions small() {
  ActiveOptions o;
  o.maxRounds = 4;
  o.ensemble = 2;
  o.perRound = 4;
  o.train.threads = 1;
  o.train.xgb.maxRounds = 20;
  return o;
}

std::vector<double> predictionsOf(const Predictor& p) {
  const Kernel k = suite().kernel("red");
  const Problem problem(builtinBackend("hbm-pim"), k, parseShape(k, "b=1,n=1024"));
  return p.predictNs(problem, prunedDrafts(problem));
}

TEST(ActiveLearning, IsReproducibleFromASeed) {
  const ActiveResult a = trainActive(builtinBackend("hbm-pim"), suite(), small());
  const ActiveResult b = trainActive(builtinBackend("hbm-pim"), suite(), small());
  ASSERT_EQ(a.rounds.size(), b.rounds.size());
  for (std::size_t i = 0; i < a.rounds.size(); ++i) {
    EXPECT_EQ(a.rounds[i].labels, b.rounds[i].labels);
    EXPECT_EQ(a.rounds[i].picksChanged, b.rounds[i].picksChanged);
  }
  EXPECT_EQ(predictionsOf(a.predictor), predictionsOf(b.predictor));
  ActiveOptions other = small();
  other.train.seed = 7;
  EXPECT_NE(predictionsOf(trainActive(builtinBackend("hbm-pim"), suite(), other).predictor),
            predictionsOf(a.predictor));
}

TEST(ActiveLearning, LabelsRoundByRoundWellBelowDccsSample) {
  const ActiveOptions o = small();
  const ActiveResult r = trainActive(builtinBackend("hbm-pim"), suite(), o);
  ASSERT_FALSE(r.rounds.empty());
  EXPECT_LE(r.rounds.size(), o.maxRounds);
  // Each round adds at most perRound drafts per shape to the seed sets (16 per shape at least).
  for (std::size_t i = 1; i < r.rounds.size(); ++i) {
    EXPECT_GT(r.rounds[i].labels, r.rounds[i - 1].labels);
    EXPECT_LE(r.rounds[i].labels - r.rounds[i - 1].labels, 2 * o.perRound);
  }
  EXPECT_LT(static_cast<double>(r.rounds.back().labels), 0.15 * static_cast<double>(r.drafts));
  EXPECT_EQ(r.predictor.metadata().samples + r.predictor.metadata().validationSamples,
            r.rounds.back().labels);
}

TEST(ActiveLearning, StopsWhenNoPickImprovesAndKeepsItsLabels) {
  ActiveOptions o = small();
  o.maxRounds = 50;
  o.stableRounds = 1;
  auto store = ResultsStore::open(":memory:");
  o.train.store = &store;
  const ActiveResult r = trainActive(builtinBackend("hbm-pim"), suite(), o);
  ASSERT_LT(r.rounds.size(), 50u);
  EXPECT_EQ(r.rounds.back().picksChanged, 0u);
  // A second run with the same seed reads every label from the store.
  const ActiveResult again = trainActive(builtinBackend("hbm-pim"), suite(), o);
  EXPECT_EQ(predictionsOf(again.predictor), predictionsOf(r.predictor));
}

TEST(ActiveLearning, RefusesASuiteThatCannotRun) {
  const Suite upmemOnly{"upmem-only", {{"sel", {"n=4096"}}}};
  EXPECT_THROW(trainActive(builtinBackend("hbm-pim"), upmemOnly, small()), InputError);
}

}  // namespace
}  // namespace pim
