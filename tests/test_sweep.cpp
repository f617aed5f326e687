// SPDX-License-Identifier: Apache-2.0
// The labelling sweep's plan and unit runner (engine/workflow/sweep.h): the plan is deterministic and keyed
// by what decides the labels, its sample is train's, units run in any order give the same labels, a cancelled
// run resumes from the completed units, and merging per-worker shards gives the single store's labels.
#include <gtest/gtest.h>

#include "tests/store_labels.h"
#include "tests/test_util.h"

#include <algorithm>
#include <atomic>

#include "engine/common/error.h"
#include "engine/predict/predictor.h"
#include "engine/store/store.h"
#include "engine/target/registry.h"
#include "engine/workflow/sweep.h"

namespace pim {
namespace {

const Suite& smallSuite() {
  static const Suite s{"small", {{"red", {"b=1,n=1024", "b=2,n=2048"}}, {"va", {"b=1,n=1024"}}}};
  return s;
}

SweepOptions smallOptions() {
  SweepOptions o;
  o.unitDrafts = 16;
  o.train.threads = 1;
  return o;
}

using test::labelsOf;

TEST(SweepPlan, IsDeterministicAndKeyedByWhatDecidesTheLabels) {
  const Backend& b = builtinBackend("hbm-pim");
  const SweepPlan a = planSweep(b, smallSuite(), smallOptions());
  const SweepPlan again = planSweep(b, smallSuite(), smallOptions());
  EXPECT_EQ(a.key, again.key);
  ASSERT_EQ(a.units.size(), again.units.size());
  EXPECT_EQ(a.shapes.size(), 3u);
  // Units tile every shape's drafts, none larger than asked.
  std::size_t covered = 0;
  for (const SweepUnit& u : a.units) {
    EXPECT_LE(u.end - u.begin, 16u);
    EXPECT_LT(u.begin, u.end);
    covered += u.end - u.begin;
  }
  EXPECT_EQ(covered, a.drafts());
  SweepOptions seed = smallOptions();
  seed.train.seed = 7;
  EXPECT_NE(planSweep(b, smallSuite(), seed).key, a.key);
  SweepOptions unit = smallOptions();
  unit.unitDrafts = 32;
  EXPECT_NE(planSweep(b, smallSuite(), unit).key, a.key);
  SweepOptions all = smallOptions();
  all.labels = SweepLabels::All;
  const SweepPlan every = planSweep(b, smallSuite(), all);
  EXPECT_NE(every.key, a.key);
  EXPECT_GT(every.drafts(), a.drafts());
}

TEST(SweepPlan, RefusesWhatCannotRun) {
  SweepOptions o = smallOptions();
  o.unitDrafts = 0;
  EXPECT_THROW(planSweep(builtinBackend("hbm-pim"), smallSuite(), o), InputError);
  const Suite upmemOnly{"upmem-only", {{"sel", {"n=4096"}}}};
  try {
    planSweep(builtinBackend("hbm-pim"), upmemOnly, smallOptions());
    FAIL() << "a suite with nothing that runs was planned";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no kernel of suite upmem-only runs on hbm-pim"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parseSweepLabels("every"), InputError);
  EXPECT_EQ(parseSweepLabels("optimum"), SweepLabels::Optimum);
}

// The sample mode labels exactly train's sample: training from the swept store simulates nothing new.
TEST(SweepRun, SampleIsTrainsSampleSoTrainingReusesEveryLabel) {
  const Backend& b = builtinBackend("hbm-pim");
  const SweepOptions o = smallOptions();
  const SweepPlan plan = planSweep(b, smallSuite(), o);
  auto store = ResultsStore::open(":memory:");
  LocalSweepQueue queue(plan, {});
  EXPECT_EQ(runSweepWorker(b, smallSuite(), plan, queue, store, o, 0), plan.units.size());
  EXPECT_EQ(completedUnits(store, plan).size(), plan.units.size());
  std::mt19937_64 rng(o.train.seed);
  TrainOptions t = o.train;
  t.store = &store;
  for (const SweepShape& s : plan.shapes) {
    const Kernel k = smallSuite().kernel(s.kernel);
    const Problem p(b, k, parseShape(k, s.shape));
    const std::vector<Draft> sample = sampleDrafts(p, o.train, rng);
    LabelCounts counts;
    labelDrafts(p, sample, t, "", &counts);
    EXPECT_EQ(counts.simulated, 0u) << s.kernel << " " << s.shape;
    EXPECT_EQ(counts.reused, sample.size()) << s.kernel << " " << s.shape;
  }
}

// Two workers with their own shards, units taken in turns, merge into the single worker's labels; a
// cancelled run leaves its unit incomplete and a second run finishes the rest.
TEST(SweepRun, ShardsOfTwoWorkersMergeIntoTheSingleStoresLabels) {
  const Backend& b = builtinBackend("hbm-pim");
  const SweepOptions o = smallOptions();
  const SweepPlan plan = planSweep(b, smallSuite(), o);
  ASSERT_GE(plan.units.size(), 4u);
  auto single = ResultsStore::open(":memory:");
  LocalSweepQueue all(plan, {});
  runSweepWorker(b, smallSuite(), plan, all, single, o, 0);

  const test::TempDir dir;
  {
    auto shard0 = ResultsStore::open(dir.file("shard-0.db"));
    auto shard1 = ResultsStore::open(dir.file("shard-1.db"));
    for (std::size_t u = 0; u < plan.units.size(); ++u)
      runSweepUnit(b, smallSuite(), plan, {u}, u % 2 ? shard1 : shard0, o, static_cast<int>(u % 2));
  }
  auto merged = ResultsStore::open(dir.file("merged.db"));
  merged.mergeFrom(dir.file("shard-0.db"));
  const MergeReport second = merged.mergeFrom(dir.file("shard-1.db"));
  EXPECT_EQ(second.disagreements, 0);
  EXPECT_EQ(labelsOf(merged, b, smallSuite()), labelsOf(single, b, smallSuite()));
  EXPECT_EQ(completedUnits(merged, plan).size(), plan.units.size());
}

TEST(SweepRun, CancelledRunResumesFromItsCompletedUnits) {
  const Backend& b = builtinBackend("hbm-pim");
  SweepOptions o = smallOptions();
  const SweepPlan plan = planSweep(b, smallSuite(), o);
  auto store = ResultsStore::open(":memory:");
  std::atomic<bool> cancel{false};
  o.train.cancel = &cancel;
  // A queue that raises the cancel flag once two units are complete.
  struct CancellingQueue : ISweepQueue {
    LocalSweepQueue inner;
    std::atomic<bool>& flag;
    std::size_t finished = 0;
    CancellingQueue(const SweepPlan& p, std::atomic<bool>& f) : inner(p, {}), flag(f) {}
    std::optional<SweepAssignment> next(const SweepUnitResult* r) override {
      if (r && !r->cancelled && ++finished == 2) flag = true;
      return inner.next(r);
    }
  } cancelling(plan, cancel);
  EXPECT_EQ(runSweepWorker(b, smallSuite(), plan, cancelling, store, o, 0), 2u);
  EXPECT_EQ(completedUnits(store, plan).size(), 2u);
  cancel = false;
  LocalSweepQueue rest(plan, completedUnits(store, plan));
  EXPECT_EQ(runSweepWorker(b, smallSuite(), plan, rest, store, o, 0), plan.units.size() - 2);
  auto fresh = ResultsStore::open(":memory:");
  LocalSweepQueue all(plan, {});
  runSweepWorker(b, smallSuite(), plan, all, fresh, o, 0);
  EXPECT_EQ(labelsOf(store, b, smallSuite()), labelsOf(fresh, b, smallSuite()));
}

// Optimum: every shape's seed (the shipped model's confirmations) comes before any other unit, the units tile
// the pruned drafts, and branch and bound with the incumbent passed from unit to unit (two shards, units
// dealt in turns, as ranks take them) finds the optimum that labelling every draft finds, stopping most
// drafts unlabelled.
TEST(SweepRun, OptimumByBranchAndBoundIsTheOptimumOfEveryLabel) {
  const Backend& b = builtinBackend("hbm-pim");
  SweepOptions o = smallOptions();
  o.labels = SweepLabels::Optimum;
  o.seedModel = sharedShippedModel(b).model;
  ASSERT_TRUE(o.seedModel);
  const SweepPlan plan = planSweep(b, smallSuite(), o);
  std::size_t covered = 0;
  for (std::size_t u = 0; u < plan.units.size(); ++u) {
    const SweepUnit& unit = plan.units[u];
    covered += unit.end - unit.begin;
    if (u < plan.shapes.size()) {
      EXPECT_EQ(unit.shape, u);
      EXPECT_EQ(unit.begin, 0u);
      EXPECT_EQ(unit.end, plan.shapes[u].seedDrafts);
    }
  }
  SweepOptions every = smallOptions();
  every.labels = SweepLabels::All;
  EXPECT_EQ(covered, planSweep(b, smallSuite(), every).drafts());

  const test::TempDir dir;
  std::size_t labelled = 0;
  {
    auto shard0 = ResultsStore::open(dir.file("shard-0.db"));
    auto shard1 = ResultsStore::open(dir.file("shard-1.db"));
    LocalSweepQueue queue(plan, {});
    std::optional<SweepUnitResult> last;
    for (int turn = 0; const auto a = queue.next(last ? &*last : nullptr); ++turn) {
      last = runSweepUnit(b, smallSuite(), plan, *a, turn % 2 ? shard1 : shard0, o, turn % 2);
      labelled += last->labelled;
    }
  }
  auto merged = ResultsStore::open(dir.file("merged.db"));
  merged.mergeFrom(dir.file("shard-0.db"));
  merged.mergeFrom(dir.file("shard-1.db"));
  EXPECT_EQ(completedUnits(merged, plan).size(), plan.units.size());
  EXPECT_LT(labelled, covered / 2);  // most drafts were stopped past the incumbent

  auto all = ResultsStore::open(":memory:");
  const SweepPlan everyPlan = planSweep(b, smallSuite(), every);
  LocalSweepQueue queue(everyPlan, {});
  runSweepWorker(b, smallSuite(), everyPlan, queue, all, every, 0);
  const auto bounded = sweepOptima(b, smallSuite(), plan, merged, o);
  const auto exhaustive = sweepOptima(b, smallSuite(), everyPlan, all, every);
  ASSERT_EQ(bounded.size(), exhaustive.size());
  for (std::size_t i = 0; i < bounded.size(); ++i) {
    SCOPED_TRACE(bounded[i].kernel + " " + bounded[i].shape);
    ASSERT_TRUE(bounded[i].draft && exhaustive[i].draft);
    EXPECT_EQ(*bounded[i].draft, *exhaustive[i].draft);
    EXPECT_EQ(bounded[i].cycles, exhaustive[i].cycles);
  }
}

// Optimum: a running unit takes at once the better incumbent its queue shares (what another worker found),
// instead of from its next unit on. A queue that knows a best below every draft stops the unit's drafts from
// the first exchange on; a queue that shares nothing leaves the unit to its own incumbent.
TEST(SweepRun, ARunningUnitTakesTheIncumbentItsQueueShares) {
  struct Queue : ISweepQueue {
    std::int64_t known = INT64_MAX;
    std::size_t shares = 0;
    std::optional<SweepAssignment> next(const SweepUnitResult*) override { return std::nullopt; }
    std::int64_t share(std::size_t, std::int64_t best) override {
      ++shares;
      return std::min(known, best);
    }
  };
  const Backend& b = builtinBackend("hbm-pim");
  // One unit of 1,024 drafts of a larger shape: its labelling takes far longer than the 1-ms exchange
  // period even on a loaded machine (256 drafts of smallSuite's took 40 ms, and under two ctest jobs the
  // exchange thread was once not scheduled before they ended).
  const Suite suite{"one", {{"red", {"b=8,n=8192"}}}};
  SweepOptions o = smallOptions();
  o.labels = SweepLabels::Optimum;  // without a seed model: no seed units, no incumbent to start from
  o.unitDrafts = 1024;
  o.shareEveryMs = 1;
  const SweepPlan plan = planSweep(b, suite, o);
  std::size_t unit = 0;
  for (std::size_t u = 0; u < plan.units.size(); ++u)
    if (plan.units[u].end - plan.units[u].begin > plan.units[unit].end - plan.units[unit].begin) unit = u;
  auto run = [&](Queue& q) {
    auto store = ResultsStore::open(":memory:");
    return runSweepUnit(b, suite, plan, {unit}, store, o, 0, &q);
  };
  Queue silent, knowing;
  knowing.known = 1;  // below any draft's cycles
  const SweepUnitResult alone = run(silent), told = run(knowing);
  EXPECT_GT(silent.shares, 0u);
  EXPECT_GT(knowing.shares, 0u);
  EXPECT_GT(alone.labelled, 0u);
  EXPECT_LT(told.labelled, alone.labelled);
  EXPECT_EQ(told.bestCycles == INT64_MAX, told.labelled == 0);
}

}  // namespace
}  // namespace pim
