// SPDX-License-Identifier: Apache-2.0
// The predictor strategy at kernel-level choices (UPMEM's tasklets, tiles, ...): beside the kept drafts at
// the backend's own choices, the best drafts' other choices are predicted and the best of them confirmed.
#include <gtest/gtest.h>

#include <atomic>
#include <limits>

#include "engine/kernel/library.h"
#include "engine/predict/predictor.h"
#include "engine/search/explorer.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

std::unique_ptr<Problem> upmemI32(const std::string& kernel, const std::string& dims) {
  const Kernel k = retyped(KernelLibrary::builtin().get(kernel), DType::I32);
  return std::make_unique<Problem>(builtinBackends().get("upmem"), k, parseShape(k, dims));
}

TEST(PredictorChoices, TheBestDraftsOtherChoicesAreConfirmedBesideTheDrafts) {
  const auto model = Predictor::loadShipped("upmem");
  ASSERT_TRUE(model);
  // PrIM's VA size on one rank; its best at the backend's 16 tasklets and 1,024-B tiles is not the best.
  const auto p = upmemI32("va", "b=1,n=2621440");
  const ITarget& target = targetOf(p->backend());
  const std::uint64_t drafts = target.candidateIds(*p).drafts();
  ExploreOptions o;
  o.predictor = &*model;
  o.topK = 8;
  o.maxConfirm = 8;
  Explorer e(*p, o);
  const std::atomic<bool> never{false};
  e.run(never);
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
  // As many confirmations of each (the model is sure of VA: no second round).
  EXPECT_EQ(drafted, 8u);
  EXPECT_EQ(variants, 8u);
  EXPECT_GE(e.best()->draft.id, drafts);
  EXPECT_LT(e.best()->simulated->timeNs, bestDraftNs);
}

}  // namespace
}  // namespace pim
