// SPDX-License-Identifier: Apache-2.0
// The analytic screen one draft at a time (ScreenShortlist, ExploreOptions::listScreenedOnly) keeps the same
// drafts as the screen over the whole list, so an exploration that lists only them makes the same pick.
#include <gtest/gtest.h>

#include "tests/test_util.h"

#include <atomic>

#include "engine/predict/predictor.h"
#include "engine/predict/screen.h"
#include "engine/search/explorer.h"
#include "engine/workflow/training.h"

namespace pim {
namespace {

using test::problem;

// Many drafts of an element-wise kernel share an estimate, so the tie rule decides much of the shortlist.
TEST(Screen, OneDraftAtATimeKeepsWhatTheListScreenKeeps) {
  for (const auto& [backend, kernel, dims] :
       {std::tuple{"hbm-pim", "va", "b=3,n=65536"}, std::tuple{"attacc", "gemv", "b=1,out=2048,in=1024"}}) {
    const auto p = problem(backend, kernel, dims);
    const std::vector<Draft> kept = prunedDrafts(*p);
    std::vector<const Draft*> pointers;
    for (const Draft& d : kept) pointers.push_back(&d);
    for (std::size_t limit : {std::size_t{1}, std::size_t{257}, kept.size() / 3}) {
      ASSERT_LT(limit, kept.size());
      ScreenShortlist shortlist(*p, limit);
      // Offered out of id order, as the pruner's walk offers them.
      for (std::size_t i = kept.size(); i-- > 0;) shortlist.offer(kept[i]);
      std::vector<std::uint64_t> ids, expected;
      for (const Draft& d : shortlist.take()) ids.push_back(d.id);
      for (std::size_t i : screenForPrediction(*p, pointers, limit)) expected.push_back(kept[i].id);
      EXPECT_EQ(ids, expected) << backend << " " << kernel << " limit " << limit;
    }
  }
}

TEST(Screen, ListingOnlyTheScreenedDraftsMakesTheSamePick) {
  const auto model = Predictor::loadShipped("attacc");
  ASSERT_TRUE(model);
  for (const char* dims : {"b=4,h=8,l=512,d=128", "b=64,h=16,l=300,d=128"}) {
    const auto p = problem("attacc", "attn", dims);
    ExploreOptions all;
    all.predictor = &*model;
    all.predictLimit = 500;
    all.topK = 4;
    ExploreOptions screened = all;
    screened.listScreenedOnly = true;
    Explorer a(*p, all), b(*p, screened);
    const std::atomic<bool> never{false};
    a.run(never);
    b.run(never);
    ASSERT_TRUE(a.best() && b.best()) << dims;
    EXPECT_EQ(a.best()->draft.id, b.best()->draft.id) << dims;
    EXPECT_EQ(a.best()->simulated->timeNs, b.best()->simulated->timeNs) << dims;
    EXPECT_EQ(a.progress().generated, b.progress().generated);
    EXPECT_EQ(a.progress().remaining, b.progress().remaining);
    EXPECT_EQ(a.progress().simulated, b.progress().simulated);
    ASSERT_GT(a.records().size(), 500u) << dims << ": too few drafts to screen";
    std::vector<std::pair<std::uint64_t, double>> predictedA, predictedB;
    for (const DraftRecord& r : a.records())
      if (r.predictedNs) predictedA.emplace_back(r.draft.id, *r.predictedNs);
    for (const DraftRecord& r : b.records()) predictedB.emplace_back(r.draft.id, r.predictedNs.value_or(-1));
    EXPECT_EQ(predictedA, predictedB) << dims;
  }
}

// Without a model the fallback strategy needs every kept draft, so the option lists them all.
TEST(Screen, WithoutAModelEveryKeptDraftIsListed) {
  const auto p = problem("hbm-pim", "va", "b=1,n=4096");
  ExploreOptions o;
  o.strategy = "predictor";
  o.predictLimit = 3;
  o.listScreenedOnly = true;
  o.maxSimulations = 4;
  Explorer e(*p, o);
  const std::atomic<bool> never{false};
  e.run(never);
  EXPECT_EQ(e.records().size(), e.progress().remaining);
}

}  // namespace
}  // namespace pim
