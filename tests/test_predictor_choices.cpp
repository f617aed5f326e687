// SPDX-License-Identifier: Apache-2.0
// The predictor strategy at kernel-level choices (UPMEM's tasklets, tiles, ...): beside the kept drafts at
// the backend's own choices, the best drafts' other choices are predicted and the best of them confirmed;
// training samples drafts at other choices too, so that the model has seen what they change.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <map>
#include <set>

#include "engine/kernel/library.h"
#include "engine/predict/predictor.h"
#include "engine/search/explorer.h"
#include "engine/target/registry.h"
#include "engine/workflow/training.h"

namespace pim {
namespace {

std::unique_ptr<Problem> upmemI32(const std::string& kernel, const std::string& dims) {
  const Kernel k = retyped(KernelLibrary::builtin().get(kernel), DType::I32);
  return std::make_unique<Problem>(builtinBackends().get("upmem"), k, parseShape(k, dims));
}

/// `p` explored with the shipped upmem model's predictor strategy, confirming the `confirm` best predictions.
std::unique_ptr<Explorer> explored(const Problem& p, const Predictor& model, int confirm) {
  ExploreOptions o;
  o.predictor = &model;
  o.topK = confirm;
  o.maxConfirm = confirm;
  auto e = std::make_unique<Explorer>(p, o);
  const std::atomic<bool> never{false};
  e->run(never);
  return e;
}

TEST(PredictorChoices, TheBestDraftsOtherChoicesAreConfirmedBesideTheDrafts) {
  const auto model = Predictor::loadShipped("upmem");
  ASSERT_TRUE(model);
  // PrIM's VA size on one rank; its best at the backend's 16 tasklets and 1,024-B tiles is not the best.
  const auto p = upmemI32("va", "b=1,n=2621440");
  const ITarget& target = targetOf(p->backend());
  const std::uint64_t drafts = target.candidateIds(*p).drafts();
  const auto explorer = explored(*p, *model, 8);
  const Explorer& e = *explorer;
  ASSERT_TRUE(e.best());

  std::size_t drafted = 0, variants = 0;
  double bestDraftNs = std::numeric_limits<double>::infinity();
  for (const DraftRecord& r : e.records()) {
    if (!r.simulated) continue;
    if (r.draft.id < drafts) {
      ++drafted;
      bestDraftNs = std::min(bestDraftNs, r.simulated->timeNs);
      continue;
    }
    ++variants;
    EXPECT_TRUE(r.predictedNs) << "a variant's record keeps its prediction";
    EXPECT_TRUE(target.violations(*p, r.draft).empty()) << "the verifier refuses it";
  }
  // As many confirmations of each group: 8, or 16 after a second round when the first measured the model
  // off by more than kConfirmMoreErrorPct (the second round doubles every group). Two groups have other
  // choices: the best drafts' variants, and the drafts again at the best variant's choices (a variant is
  // predicted faster than every draft here: TheDraftsAreRankedAgainAtTheBestVariantsChoices). The drafts also
  // have up to 8 the estimate ranks first (TheEstimatesBestDraftsAreConfirmedToo).
  EXPECT_TRUE(variants == 16u || variants == 32u) << variants;
  EXPECT_GE(drafted, variants / 2);
  EXPECT_LE(drafted, variants / 2 + 8);
  EXPECT_GE(e.best()->draft.id, drafts);
  EXPECT_LT(e.best()->simulated->timeNs, bestDraftNs);
}

// When a variant of the best drafts is predicted faster than every draft, every predicted draft is predicted
// again at that variant's choices and the best of these confirmed: the best drafts at 24 tasklets need not be
// those at 16. So confirmations at one combination of choices reach beyond the kChoiceDrafts (4) drafts
// whose variants were ranked.
TEST(PredictorChoices, TheDraftsAreRankedAgainAtTheBestVariantsChoices) {
  const auto model = Predictor::loadShipped("upmem");
  ASSERT_TRUE(model);
  const auto p = upmemI32("va", "b=1,n=2621440");
  const std::uint64_t drafts = targetOf(p->backend()).candidateIds(*p).drafts();
  const auto explorer = explored(*p, *model, 8);
  std::map<std::uint64_t, std::set<std::uint64_t>> draftsAt;  // choice -> confirmed drafts at it
  for (const DraftRecord& r : explorer->records())
    if (r.simulated && r.draft.id >= drafts) draftsAt[r.draft.id / drafts].insert(r.draft.id % drafts);
  std::size_t widest = 0;
  for (const auto& [choice, at] : draftsAt) widest = std::max(widest, at.size());
  EXPECT_GT(widest, 4u) << "no choice has more confirmed drafts than the 4 whose variants were ranked";
}

// upmem's estimate ranks as its DPU model does (ITarget::estimateRanksUnseenKernels), so the predictor
// strategy confirms the 8 screened drafts it ranks first beside the model's picks: its pick is never worse
// than the best of them.
TEST(PredictorChoices, TheEstimatesBestDraftsAreConfirmedToo) {
  const auto model = Predictor::loadShipped("upmem");
  ASSERT_TRUE(model);
  const auto p = upmemI32("gemv", "b=1,out=4096,in=16384");
  const ITarget& target = targetOf(p->backend());
  ASSERT_TRUE(target.estimateRanksUnseenKernels());
  const auto explorer = explored(*p, *model, 4);
  const Explorer& e = *explorer;
  ASSERT_TRUE(e.best());
  const auto estimator = target.estimator(*p, ExploreOptions{}.eval.optimizer);
  ASSERT_TRUE(estimator);
  std::vector<std::pair<double, std::uint64_t>> screened;  // (estimate, id) of the records with a prediction
  std::map<std::uint64_t, double> simulated;
  for (const DraftRecord& r : e.records()) {
    if (r.draft.id >= target.candidateIds(*p).drafts()) continue;
    if (r.predictedNs) screened.emplace_back(estimator->estimate(r.draft).totalNs, r.draft.id);
    if (r.simulated) simulated[r.draft.id] = r.simulated->timeNs;
  }
  ASSERT_GE(screened.size(), 8u);
  std::partial_sort(screened.begin(), screened.begin() + 8, screened.end());
  for (std::size_t k = 0; k < 8; ++k) {
    const auto it = simulated.find(screened[k].second);
    ASSERT_NE(it, simulated.end()) << "the estimate's #" << k + 1 << " was not confirmed";
    EXPECT_LE(e.best()->simulated->timeNs, it->second);
  }
}

// About half of training's sample is taken at a random other combination of choices, each one the verifier
// accepts, with the draft it varies among the sampled ones; the same seed gives the same sample.
TEST(PredictorChoices, TrainingSamplesDraftsAtOtherChoicesToo) {
  const auto p = upmemI32("gemv", "b=1,out=2048,in=1024");
  const ITarget& target = targetOf(p->backend());
  const CandidateIds ids = target.candidateIds(*p);
  TrainOptions o;
  o.maxSamplesPerShape = 400;
  std::mt19937_64 rng(42);
  const std::vector<Draft> sample = sampleDrafts(*p, o, rng);
  ASSERT_EQ(sample.size(), 400u);
  std::size_t atOther = 0;
  for (const Draft& d : sample) {
    if (d.id < ids.drafts()) continue;
    ++atOther;
    EXPECT_TRUE(target.violations(*p, d).empty()) << d.id;
  }
  EXPECT_GT(atOther, 100u);
  EXPECT_LT(atOther, 300u);
  std::mt19937_64 again(42);
  const std::vector<Draft> repeat = sampleDrafts(*p, o, again);
  ASSERT_EQ(repeat.size(), sample.size());
  for (std::size_t i = 0; i < sample.size(); ++i) EXPECT_EQ(repeat[i].id, sample[i].id) << i;
  // A family without choices samples drafts only.
  const Kernel va = KernelLibrary::builtin().get("va");
  const Problem hbm(builtinBackends().get("hbm-pim"), va, parseShape(va, "b=1,n=65536"));
  std::mt19937_64 third(42);
  for (const Draft& d : sampleDrafts(hbm, o, third))
    EXPECT_LT(d.id, targetOf(hbm.backend()).candidateIds(hbm).drafts());
}

}  // namespace
}  // namespace pim
