// SPDX-License-Identifier: Apache-2.0
// The coupled predictor: deterministic features, a trained model that picks far better than chance on a shape
// it never saw, the shipped models load, and the lookup table serves repeated queries.
#include <gtest/gtest.h>

#include "tests/test_util.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "engine/common/error.h"
#include "engine/hw/backend.h"
#include "engine/kernel/library.h"
#include "engine/search/explorer.h"
#include "engine/store/store.h"
#include "engine/target/registry.h"
#include "engine/workflow/training.h"

namespace pim {
namespace {

using test::problem;

// Features of `d` from the problem's target's estimator.
std::vector<float> featuresOf(const Problem& p, const Draft& d, const OptimizerOptions& o = {}) {
  std::vector<float> f;
  targetOf(p.backend()).estimator(p, o)->features(d, f);
  return f;
}

TEST(Features, AreDeterministicAndMatchTheSchema) {
  const auto p = problem("hbm-pim", "gemv", "b=2,out=1024,in=1024");
  const Draft a = p->space().draft(12345), b = p->space().draft(67890);
  EXPECT_EQ(featuresOf(*p, a), featuresOf(*p, a));
  EXPECT_EQ(featuresOf(*p, a).size(), targetOf(p->backend()).featureNames().size());
  EXPECT_NE(featuresOf(*p, a), featuresOf(*p, b));
  OptimizerOptions naive;
  naive.stagedRearrangement = false;
  EXPECT_NE(featuresOf(*p, a), featuresOf(*p, a, naive));
}

// Training appends every labelled draft's features to one matrix: appending must grow it geometrically (an
// exact reserve per call made training quadratic: 30 MB copied per draft at 127,000 drafts).
TEST(Features, AppendingToOneMatrixGrowsItGeometrically) {
  const auto p = problem("hbm-pim", "red", "b=1,n=4096");
  const auto e = targetOf(p->backend()).estimator(*p, {});
  std::vector<float> x;
  int reallocations = 0;
  for (std::uint64_t id = 0; id < 4096; ++id) {
    const std::size_t before = x.capacity();
    e->features(p->space().draft(id % p->space().size()), x);
    reallocations += x.capacity() != before ? 1 : 0;
  }
  EXPECT_EQ(x.size(), 4096 * targetOf(p->backend()).featureNames().size());
  EXPECT_LE(reallocations, 40);
}

// The estimate is computed without writing the features, so it is checked against them on drafts of
// several kernels and backends (staged and not), not just one.
TEST(Features, TheEstimateIsTheTimeAndComputeFeatures) {
  const char* cases[][3] = {{"attacc", "gemv", "b=1,out=2048,in=1024"},
                            {"attacc", "attn", "b=4,h=8,l=300,d=128"},
                            {"hbm-pim", "va", "b=3,n=65536"},
                            {"hbm2-pim", "red", "b=4,n=4096"}};
  for (const auto& c : cases) {
    const auto p = problem(c[0], c[1], c[2]);
    const ITarget& t = targetOf(p->backend());
    const auto& names = t.featureNames();
    auto at = [&](const char* n) {
      return static_cast<std::size_t>(std::find(names.begin(), names.end(), n) - names.begin());
    };
    for (bool staged : {true, false}) {
      OptimizerOptions o;
      o.stagedRearrangement = staged;
      const auto e = t.estimator(*p, o);
      std::vector<float> f;
      for (std::uint64_t id = 0; id < p->space().size(); id += 1 + p->space().size() / 500) {
        const Draft d = p->space().draft(id);
        f.clear();
        e->features(d, f);
        const CandidateEstimate est = e->estimate(d);
        ASSERT_EQ(est.totalNs, f[at("est_total_ns")]) << c[1] << " draft " << id;
        ASSERT_EQ(est.computeCycles, f[at("est_compute_cycles")]) << c[1] << " draft " << id;
        ASSERT_GT(est.totalNs, 0.f) << c[1] << " draft " << id;
      }
    }
  }
}

// An extractor keeps the terms of the last choice of each part (per thread); two extractors used in turn on
// one thread, and drafts in any order, must give what a fresh extractor gives.
TEST(Features, CachedPartTermsGiveWhatAFreshExtractorGives) {
  const auto a = problem("attacc", "attn", "b=4,h=8,l=300,d=128");
  const auto b = problem("hbm-pim", "gemv", "b=2,out=1024,in=1024");
  const auto ea = targetOf(a->backend()).estimator(*a, {}), eb = targetOf(b->backend()).estimator(*b, {});
  std::mt19937_64 rng(7);
  for (int i = 0; i < 400; ++i) {
    const bool first = i % 3 != 0;
    const Problem& p = first ? *a : *b;
    // Neighbouring ids share their outer parts, so the cache is both hit and missed.
    const std::uint64_t id = (i % 2 ? rng() : i / 2) % p.space().size();
    const Draft d = p.space().draft(id);
    std::vector<float> cached, fresh;
    (first ? *ea : *eb).features(d, cached);
    targetOf(p.backend()).estimator(p, {})->features(d, fresh);
    ASSERT_EQ(cached, fresh) << p.title() << " draft " << id;
  }
}

TEST(Predictor, BeatsRandomChoiceByAWideMarginOnAHeldOutShape) {
  const Backend& b = builtinBackends().get("gddr6-aim");
  Suite suite;
  suite.name = "test";
  suite.kernels = {{"red", {"b=1,n=2048", "b=2,n=4096", "b=4,n=2048", "b=1,n=8192"}}};
  TrainOptions o;
  o.maxSamplesPerShape = 80;
  o.sampleFraction = 0.5;
  o.xgb.maxRounds = 300;
  const Predictor pred = trainPredictor(b, suite, o);
  EXPECT_GT(pred.metadata().samples, 100u);

  const auto held = problem("gddr6-aim", "red", "b=8,n=4096");  // not in the suite
  std::vector<Draft> drafts;
  Pruner(held->space()).forEachKept([&](const Draft& d) {
    drafts.push_back(d);
    return true;
  });
  const auto ns = pred.predictNs(*held, drafts);
  const std::size_t pick = static_cast<std::size_t>(std::min_element(ns.begin(), ns.end()) - ns.begin());
  std::vector<double> simulated;
  double pickNs = 0;
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    try {
      const double t = evaluateDraft(*held, drafts[i]).timeNs;
      simulated.push_back(t);
      if (i == pick) pickNs = t;
    } catch (const InputError&) {
    }
  }
  ASSERT_GT(pickNs, 0);
  std::sort(simulated.begin(), simulated.end());
  const double median = simulated[simulated.size() / 2];
  const double tenth = simulated[simulated.size() / 10];
  EXPECT_LE(pickNs, tenth) << "pick " << pickNs << " optimum " << simulated.front() << " median " << median;
  EXPECT_LT(pickNs, 0.7 * median);
}

TEST(Predictor, BestPredictedRanksFinitePredictionsWithTiesByIndex) {
  const std::vector<double> ns{5.0, 2.0, INFINITY, 2.0, std::nan(""), 1.0, 7.0};
  EXPECT_EQ(bestPredicted(ns, 3), (std::vector<std::size_t>{5, 1, 3}));
  EXPECT_EQ(bestPredicted(ns, 100), (std::vector<std::size_t>{5, 1, 3, 0, 6}));  // no inf, no NaN
  EXPECT_TRUE(bestPredicted(ns, 0).empty());
  EXPECT_TRUE(bestPredicted(std::vector<double>{}, 4).empty());
}

TEST(Predictor, BestPredictedAddsNearTiesUpToTheCap) {
  const std::vector<double> ns{100.0, 100.5, 101.0, 103.0, 100.9, 99.8};
  // The 2 best are 5 (99.8) and 0 (100.0); within 1% of 99.8 (<= 100.798) also 1 (100.5).
  EXPECT_EQ(bestPredicted(ns, 2, 1.0, 10), (std::vector<std::size_t>{5, 0, 1}));
  EXPECT_EQ(bestPredicted(ns, 2, 2.0, 10), (std::vector<std::size_t>{5, 0, 1, 4, 2}));
  EXPECT_EQ(bestPredicted(ns, 2, 2.0, 3), (std::vector<std::size_t>{5, 0, 1}));     // capped
  EXPECT_EQ(bestPredicted(ns, 2, 0.0, 10), (std::vector<std::size_t>{5, 0}));       // no band
  EXPECT_EQ(bestPredicted(ns, 4, 1.0, 2), (std::vector<std::size_t>{5, 0, 1, 4}));  // k wins over the cap
}

TEST(Predictor, ShippedModelsLoadWithTheCurrentFeatureSchema) {
  for (const char* b : {"hbm-pim", "attacc"}) {
    const auto pred = Predictor::loadShipped(b);
    ASSERT_TRUE(pred.has_value()) << b;
    EXPECT_LT(pred->expectedErrorPct(), 10.0) << b;
    const auto p = problem(b, "red", "b=2,n=2048");
    const auto ns = pred->predictNs(*p, std::vector{p->space().draft(0)});
    EXPECT_GT(ns[0], 0);
  }
}

// Coarse to fine: the shortlist from the first rounds holds the drafts the full model ranks best, so the
// drafts the predictor strategy confirms, and their predictions, are those of predicting every draft from all
// rounds.
TEST(Predictor, CoarseToFineKeepsTheFullModelsBestDrafts) {
  const auto pred = Predictor::loadShipped("attacc");
  ASSERT_TRUE(pred.has_value());
  const auto p = problem("attacc", "gemv", "b=4,out=128,in=4096");
  std::vector<Draft> drafts;
  Pruner(p->space()).forEachKept([&](const Draft& d) {
    drafts.push_back(d);
    return true;
  });
  ASSERT_GT(drafts.size(), 10000u);
  const auto full = pred->predictNs(*p, drafts, CoarseToFine{.coarseRounds = 0});
  const auto fast = pred->predictNs(*p, drafts);
  ASSERT_GT(pred->model().bestIteration() + 1, 2 * CoarseToFine{}.coarseRounds);  // the fast path did run
  EXPECT_NE(full, fast);
  const auto confirmed =
      bestPredicted(full, kDefaultTopK, kDefaultBandErrors * pred->expectedErrorPct(), kDefaultMaxConfirm);
  EXPECT_EQ(
      bestPredicted(fast, kDefaultTopK, kDefaultBandErrors * pred->expectedErrorPct(), kDefaultMaxConfirm),
      confirmed);
  for (std::size_t i : confirmed) EXPECT_EQ(fast[i], full[i]) << i;
}

// --max-fresh: a fully labelled shape gives its whole sample from the store, an unlabelled one only N drafts.
TEST(PredictorTraining, MaxFreshCutsOnlyShapesThatNeedNewSimulations) {
  const Backend& b = builtinBackends().get("gddr6-aim");
  auto store = ResultsStore::open(":memory:");
  TrainOptions o;
  o.store = &store;
  o.xgb.maxRounds = 20;
  o.sampleFraction = 1.0;
  o.maxSamplesPerShape = 100000;
  Suite first{"first", {{"red", {"b=1,n=2048"}}}};
  const Predictor all = trainPredictor(b, first, o);  // labels every draft of the first shape
  const std::size_t labelled = all.metadata().samples + all.metadata().validationSamples;

  o.sampleFraction = 0.5;
  o.maxFreshPerShape = 20;
  Suite both{"both", {{"red", {"b=1,n=2048", "b=2,n=4096"}}}};
  const Predictor mixed = trainPredictor(b, both, o);
  std::size_t n1 = 0;
  Pruner(problem("gddr6-aim", "red", "b=1,n=2048")->space()).forEachKept([&](const Draft&) {
    return ++n1 > 0;
  });
  EXPECT_EQ(labelled, n1);  // every gddr6-aim RED draft fits its banks
  EXPECT_EQ(mixed.metadata().samples + mixed.metadata().validationSamples, (n1 + 1) / 2 + 20);
  const auto backendId = store.upsertBackend(b.name, b.hash(), b.toJson());
  const Kernel red = KernelLibrary::builtin().get("red");
  EXPECT_EQ(
      store
          .results(store.upsertProblem(backendId, "red", pim::computationHash(red), red.source, "b=2,n=4096"))
          .size(),
      20u);
}

// Retraining is reproducible whatever an earlier run left in the store: a store holding part of the sample
// (labels of another seed's sample) gives the same model as no store.
TEST(PredictorTraining, StoredLabelsDoNotChangeTheModel) {
  const Backend& b = builtinBackends().get("gddr6-aim");
  const Suite suite{"one", {{"red", {"b=1,n=2048"}}}};
  TrainOptions o;
  o.xgb.maxRounds = 20;
  o.sampleFraction = 0.5;
  const Predictor fresh = trainPredictor(b, suite, o);
  auto store = ResultsStore::open(":memory:");
  TrainOptions other = o;
  other.seed = 7;
  other.store = &store;
  trainPredictor(b, suite, other);
  o.store = &store;
  const Predictor reused = trainPredictor(b, suite, o);
  const auto p = problem("gddr6-aim", "red", "b=1,n=2048");
  std::vector<Draft> drafts;
  Pruner(p->space()).forEachKept([&](const Draft& d) {
    drafts.push_back(d);
    return true;
  });
  EXPECT_EQ(fresh.predictNs(*p, drafts), reused.predictNs(*p, drafts));
}

// --screen-limit: the sample comes from the drafts the analytic screen passes to the model, not from all.
TEST(PredictorTraining, ScreenLimitSamplesOnlyScreenedDrafts) {
  const Backend& b = builtinBackends().get("gddr6-aim");
  TrainOptions o;
  o.xgb.maxRounds = 20;
  o.sampleFraction = 1.0;
  o.maxSamplesPerShape = 100000;
  o.screenLimit = 60;
  const Predictor screened = trainPredictor(b, Suite{"one", {{"red", {"b=1,n=2048"}}}}, o);
  EXPECT_EQ(screened.metadata().samples + screened.metadata().validationSamples, 60u);
  EXPECT_EQ(screened.metadata().screenLimit, 60u);
}

// Ctrl-C during the labelling of a shape: the shapes finished before it are reported, the unfinished one is
// not (its optimum is unknown) and the report says it was interrupted.
TEST(PredictorEvaluation, InterruptedShapeIsNotReportedAsARow) {
  const Backend& b = builtinBackends().get("gddr6-aim");
  const auto pred = Predictor::loadShipped(b.name);
  ASSERT_TRUE(pred.has_value());
  Suite suite;
  suite.name = "test";
  suite.kernels = {{"red", {"b=1,n=1024", "b=1,n=2048", "b=1,n=4096"}}};
  std::atomic<bool> cancel{false};
  TrainOptions o;
  o.threads = 1;
  o.cancel = &cancel;
  o.labelProgress = [&](const std::string& what, std::size_t, std::size_t) {
    if (what == "red b=1,n=2048") cancel = true;
  };
  const EvaluationReport r = evaluatePredictor(b, "red", suite, *pred, o);
  EXPECT_TRUE(r.interrupted);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.configs, 1u);
  EXPECT_EQ(r.rows[0].shape, "b=1,n=1024");

  cancel = false;
  const EvaluationReport full = evaluatePredictor(b, "red", suite, *pred, TrainOptions{});
  EXPECT_FALSE(full.interrupted);
  EXPECT_EQ(full.rows.size(), 3u);
  EXPECT_EQ(full.rows[0].optimumNs, r.rows[0].optimumNs);
}

// Branch and bound finds the optimum every draft's full simulation finds, while stopping most of them early
// (they carry no label then, so fewer results are stored).
TEST(PredictorEvaluation, BranchAndBoundFindsTheSameOptimum) {
  const Backend& b = builtinBackends().get("attacc");
  const auto pred = Predictor::loadShipped(b.name);
  ASSERT_TRUE(pred.has_value());
  const Suite suite{"test", {{"red", {"b=1,n=2048", "b=4,n=4096"}}}};
  auto allStore = ResultsStore::open(":memory:"), boundStore = ResultsStore::open(":memory:");
  TrainOptions o;
  o.store = &allStore;
  EvaluateOptions labelAll;
  labelAll.branchAndBound = false;
  const EvaluationReport all = evaluatePredictor(b, "red", suite, *pred, o, labelAll);
  o.store = &boundStore;
  const EvaluationReport bound = evaluatePredictor(b, "red", suite, *pred, o);
  ASSERT_EQ(all.rows.size(), 2u);
  ASSERT_EQ(bound.rows.size(), 2u);
  EXPECT_EQ(all.bounded, 0u);
  EXPECT_GT(bound.bounded, all.rows[0].drafts / 2);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(bound.rows[i].optimum, all.rows[i].optimum);
    EXPECT_EQ(bound.rows[i].optimumNs, all.rows[i].optimumNs);
    EXPECT_EQ(bound.rows[i].optimumRank, all.rows[i].optimumRank);
    EXPECT_EQ(bound.rows[i].pickNs, all.rows[i].pickNs);
  }
  EXPECT_EQ(bound.top1, all.top1);
  // Labelling every draft measures the exhaustive compile; branch and bound extrapolates it from a timed
  // sample of full simulations and reports its own time apart.
  EXPECT_FALSE(all.withoutExtrapolated);
  EXPECT_DOUBLE_EQ(all.secondsWithout, all.secondsOptimum);
  EXPECT_TRUE(bound.withoutExtrapolated);
  EXPECT_GT(bound.secondsWithout, 0.0);
  EXPECT_GT(bound.secondsOptimum, 0.0);
  const Kernel red = KernelLibrary::builtin().get("red");
  auto stored = [&](ResultsStore& s) {
    const auto backendId = s.upsertBackend(b.name, b.hash(), b.toJson());
    return s.results(s.upsertProblem(backendId, "red", pim::computationHash(red), red.source, "b=1,n=2048"))
        .size();
  };
  EXPECT_EQ(stored(allStore), all.rows[0].drafts);
  EXPECT_LT(stored(boundStore), all.rows[0].drafts / 2);
}

TEST(Predictor, MissingOrForeignModelFiles) {
  const test::TempDir scratch;
  EXPECT_FALSE(Predictor::loadShipped("hbm-pim", scratch.file("no-models")).has_value());
  const std::string dir = scratch.file("bad-models");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/x.model") << "not a model";
  std::ofstream(dir + "/x.json") << R"({"features": ["something else"]})";
  EXPECT_THROW(Predictor::loadShipped("x", dir), InputError);
}

TEST(Predictor, EmptyOrTruncatedModelFileIsRefusedByName) {
  const test::TempDir scratch;
  const std::string dir = scratch.file("models");
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(dataDir() + "/models/hbm-pim.json", dir + "/hbm-pim.json");
  auto refusal = [&] {
    try {
      Predictor::loadShipped("hbm-pim", dir);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  std::ofstream(dir + "/hbm-pim.model").flush();
  EXPECT_NE(refusal().find("hbm-pim.model"), std::string::npos) << refusal();
  {
    std::ifstream in(dataDir() + "/models/hbm-pim.model", std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(dir + "/hbm-pim.model", std::ios::binary) << head;
  }
  EXPECT_NE(refusal().find("hbm-pim.model"), std::string::npos) << refusal();
}

TEST(Predictor, LoaderOnItsOwnThreadReportsWhatLoadShippedDoes) {
  ShippedModelLoader shipped("attacc");
  const Predictor* p = shipped.get();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(shipped.get(), p);  // waits once
  EXPECT_EQ(p->id(), Predictor::loadShipped("attacc")->id());
  EXPECT_TRUE(shipped.error().empty());

  const test::TempDir scratch;
  ShippedModelLoader none("hbm-pim", scratch.file("no-models"));
  EXPECT_EQ(none.get(), nullptr);
  EXPECT_TRUE(none.error().empty());
  const std::string dir = scratch.file("bad");
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(dataDir() + "/models/hbm-pim.json", dir + "/hbm-pim.json");
  std::ofstream(dir + "/hbm-pim.model") << "not a model";
  ShippedModelLoader bad("hbm-pim", dir);
  EXPECT_EQ(bad.get(), nullptr);
  EXPECT_NE(bad.error().find("hbm-pim.model"), std::string::npos) << bad.error();
  ShippedModelLoader unwaited("gddr6-aim");  // destroyed without get(): joins
}

TEST(Predictor, SharedShippedModelIsLoadedOnce) {
  const BackendRegistry& shipped = builtinBackends();
  const auto a = sharedShippedModel(shipped.get("hbm2-pim")).model;
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(sharedShippedModel(shipped.get("hbm2-pim")).model, a);
  EXPECT_NE(sharedShippedModel(shipped.get("gddr6-aim")).model, a);
  Backend renamed = shipped.get("hbm2-pim");
  renamed.name = "no-such-backend";
  const ShippedModel none = sharedShippedModel(renamed);
  EXPECT_EQ(none.model, nullptr);
  EXPECT_FALSE(none.trainedOnThisBackend);
}

// Every shipped model was trained on its backend as shipped, so its validation error applies there.
TEST(Predictor, ShippedModelsAreTrainedOnTheShippedBackends) {
  for (const char* name : {"hbm-pim", "hbm2-pim", "attacc", "gddr6-aim", "upmem"}) {
    const Backend& b = builtinBackends().get(name);
    const ShippedModel m = sharedShippedModel(b);
    ASSERT_NE(m.model, nullptr) << name;
    EXPECT_EQ(m.model->metadata().backendHash, b.hash()) << name;
    EXPECT_TRUE(m.trainedOnThisBackend) << name;
  }
}

// A what-if copy keeps the backend's name: the model of that name is the one there is, but it was not trained
// on the edited parameters, and the caller must hear so (it used to be handed over as if it were).
TEST(Predictor, WhatIfCopyIsNotReportedAsTrainedOnByTheShippedModel) {
  const Backend& shipped = builtinBackends().get("hbm-pim");
  Backend edited = shipped;
  edited.setParameter("timing.tRCDRD", 25);
  ASSERT_EQ(edited.name, shipped.name);
  ASSERT_NE(edited.hash(), shipped.hash());
  const ShippedModel forShipped = sharedShippedModel(shipped);
  const ShippedModel forEdited = sharedShippedModel(edited);
  ASSERT_NE(forEdited.model, nullptr);
  EXPECT_EQ(forEdited.model, forShipped.model);  // one load per name
  EXPECT_TRUE(forShipped.trainedOnThisBackend);
  EXPECT_FALSE(forEdited.trainedOnThisBackend);
  // Asked about the shipped parameters again (a what-if reset), it fits again.
  EXPECT_TRUE(sharedShippedModel(shipped).trainedOnThisBackend);
}

TEST(Suites, ShippedSuitesLoadAndTheHeldOutOneSharesNoShapeWithTraining) {
  const std::string dir = dataDir() + "/suites/";
  const Suite training = loadSuites({dir + "dcc_single_kernels.json", dir + "dcc_coverage.json"});
  EXPECT_EQ(training.name, "dcc_single_kernels+dcc_coverage");
  const Suite heldOut = loadSuite(dir + "heldout_single_kernels.json");
  std::size_t heldOutShapes = 0;
  for (const auto& [kernel, shapes] : heldOut.kernels) {
    const auto t = std::find_if(training.kernels.begin(), training.kernels.end(),
                                [&](const auto& e) { return e.first == kernel; });
    ASSERT_NE(t, training.kernels.end()) << kernel;
    for (const std::string& s : shapes) {
      EXPECT_EQ(std::count(t->second.begin(), t->second.end(), s), 0) << kernel << " " << s;
      ++heldOutShapes;
    }
  }
  EXPECT_GT(heldOutShapes, 0u);
}

TEST(Suites, UnionKeepsFirstSeenOrderAndEachShapeOnce) {
  const test::TempDir scratch;
  std::ofstream(scratch.file("a.json"))
      << R"({"name": "a", "kernels": {"red": ["b=1,n=1024", "b=2,n=1024"]}})";
  std::ofstream(scratch.file("b.json"))
      << R"({"name": "b", "kernels": {"red": ["b=2,n=1024", "b=3,n=1024"], "va": ["b=1,n=2048"]}})";
  const Suite u = loadSuites({scratch.file("a.json"), scratch.file("b.json")});
  EXPECT_EQ(u.name, "a+b");
  ASSERT_EQ(u.kernels.size(), 2u);
  EXPECT_EQ(u.kernels[0].first, "red");
  EXPECT_EQ(u.kernels[0].second, (std::vector<std::string>{"b=1,n=1024", "b=2,n=1024", "b=3,n=1024"}));
  EXPECT_EQ(u.kernels[1].second, std::vector<std::string>{"b=1,n=2048"});
}

// A suite's types retype its kernels and its parameters edit the backends that declare them (PrIM's GEMV
// operands below 50 on upmem); a backend without the parameter runs unchanged.
TEST(Suites, TypesAndParametersApplyPerKernel) {
  const Suite s = loadSuite(dataDir() + "/suites/prim.json");
  EXPECT_EQ(s.kernel("red").tensors[0].dtype, DType::I64);
  EXPECT_EQ(s.kernel("gemv").tensors[0].dtype, DType::I32);
  const Backend& upmem = builtinBackends().get("upmem");
  EXPECT_DOUBLE_EQ(s.backendFor(upmem, "gemv").param("pim.mulOperandBits")->value, 4.03);
  EXPECT_EQ(s.backendFor(upmem, "va").hash(), upmem.hash());
  const Backend& hbm = builtinBackends().get("hbm-pim");
  EXPECT_EQ(s.backendFor(hbm, "gemv").hash(), hbm.hash());
  for (const auto& [kernel, shapes] : s.kernels)
    for (const std::string& shape : shapes) {
      const Kernel k = s.kernel(kernel);
      const Problem p(s.backendFor(upmem, kernel), k, parseShape(k, shape));
      EXPECT_TRUE(targetOf(upmem).check(p).empty()) << kernel << " " << shape;
    }
}

TEST(Suites, BadFilesAreNamedWithTheEntry) {
  const test::TempDir scratch;
  auto message = [&](const std::string& text) {
    std::ofstream(scratch.file("s.json")) << text;
    try {
      loadSuites({scratch.file("s.json")});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("{").find("s.json"), std::string::npos);
  EXPECT_NE(message(R"({"kernels": []})").find("kernels: missing or not an object"), std::string::npos);
  EXPECT_NE(message(R"({"kernels": {"red": ["b=0,n=8"]}})").find("kernels.red"), std::string::npos);
  EXPECT_NE(message(R"({"kernels": {"nope": []}})").find("nope"), std::string::npos);
  EXPECT_THROW(loadSuites({}), InputError);
  EXPECT_THROW(loadSuites({scratch.file("missing.json")}), InputError);
}

}  // namespace
}  // namespace pim
