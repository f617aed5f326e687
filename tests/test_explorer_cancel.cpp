// SPDX-License-Identifier: Apache-2.0
// Cancelling an exploration: nothing enters the records or the counts after the flag is set (a simulation
// that finishes after it is dropped), the prediction stage stops between batches, and batched predictions
// equal one call's.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "engine/predict/predictor.h"
#include "engine/search/explorer.h"
#include "engine/search/strategy.h"
#include "tests/test_util.h"

namespace pim {
namespace {

using test::problem;

// The window reads the records and counts right after setting the flag and shows them as what the run
// finished; a result kept later made its status say "simulated 3" while the table showed 4 (and the rows kept
// changing after "cancelled").
TEST(ExplorerCancel, ResultsFinishingAfterTheCancelAreNotKept) {
  const auto p = problem("gddr6-aim", "red", "b=1,n=2048");
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  // Three evaluations finish normally; the fourth is in flight when the flag is set, and returns after it.
  class CancelsDuringFourth final : public ISearchStrategy {
   public:
    explicit CancelsDuringFourth(std::shared_ptr<std::atomic<bool>> c) : m_cancel(std::move(c)) {}
    std::optional<Proposal> next() override {
      if (m_at >= 6) return std::nullopt;
      Proposal p;
      p.index = m_at++;
      if (p.index == 3) {
        p.evaluate = [c = m_cancel] {
          c->store(true);
          DraftRecord r;
          r.draft.id = kNoDraft;
          r.error = "finished after the cancel";
          return r;
        };
      }
      return p;
    }
    void report(const Proposal&, const DraftRecord&) override {}
    std::size_t planned() const override { return 6; }

   private:
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::size_t m_at = 0;
  };
  StrategyRegistry registry;
  registry.add({"cancels-during-fourth",
                "three evaluations, then one that outlives the cancel",
                PredictionUse::None,
                "",
                [&](const StrategyContext&) { return std::make_unique<CancelsDuringFourth>(cancel); },
                {}});
  ExploreOptions o;
  o.strategy = "cancels-during-fourth";
  o.strategies = &registry;
  o.threads = 1;  // in proposal order
  Explorer ex(*p, o);
  ex.run(*cancel);
  const ExploreProgress done = ex.progress();
  EXPECT_EQ(done.stage, "cancelled");
  EXPECT_EQ(done.simulated, 3u);
  const auto records = ex.records();
  EXPECT_EQ(records.size(), done.remaining);  // the late record was not appended
  std::size_t simulated = 0;
  for (const DraftRecord& r : records) simulated += r.simulated || !r.error.empty();
  EXPECT_EQ(simulated, 3u);
}

// The prediction stage was one call over every screened draft (about 1 s for attention on attacc, several
// under load) and looked at the flag only after it: a Cancel there waited for all of it, and its predictions
// were stored after the cancel.
TEST(ExplorerCancel, PredictionStopsAtTheCancel) {
  const auto p = problem("attacc", "attn", "b=1,h=32,l=2048,d=128");
  const ShippedModel shipped = sharedShippedModel(p->backend());
  ASSERT_TRUE(shipped.model) << "attacc ships a model";
  std::atomic<bool> cancel{false};
  ExploreOptions o;
  o.strategy = "predictor";
  // The flag is set as the model arrives: the stage must not predict a single batch.
  o.predictorSource = [&] {
    cancel = true;
    return shipped.model.get();
  };
  Explorer ex(*p, o);
  ex.run(cancel);
  EXPECT_EQ(ex.progress().stage, "cancelled");
  EXPECT_EQ(ex.progress().predicted, 0u);
  for (const DraftRecord& r : ex.records()) ASSERT_FALSE(r.predictedNs) << "draft " << r.draft.id;
  EXPECT_EQ(ex.progress().simulated, 0u);
}

TEST(ExplorerCancel, BatchedPredictionsEqualOneCall) {
  const auto p = problem("attacc", "attn", "b=1,h=32,l=2048,d=128");
  const ShippedModel shipped = sharedShippedModel(p->backend());
  ASSERT_TRUE(shipped.model);
  std::vector<Draft> drafts;
  for (std::uint64_t i = 0; drafts.size() < 5000 && i < p->space().size(); i += 97) {
    drafts.push_back(p->space().draft(i));
  }
  const std::atomic<bool> never{false};
  const auto batched = shipped.model->predictNs(*p, drafts, &never);
  ASSERT_TRUE(batched);
  EXPECT_EQ(*batched, shipped.model->predictNs(*p, drafts));  // coarse pass, shortlist and fine pass
  const std::atomic<bool> set{true};
  EXPECT_FALSE(shipped.model->predictNs(*p, drafts, &set));
}

}  // namespace
}  // namespace pim
