// SPDX-License-Identifier: Apache-2.0
// Honest provenance (issue 17 item 3): the error measured on a run's own confirmations, by hand; a kernel,
// backend or shape outside the model's training data flagged out of distribution; the predictor strategy
// confirming twice as many drafts then; and the CLI's `explore` reporting the same figures.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "engine/kernel/dsl.h"
#include "engine/predict/model_fit.h"
#include "engine/search/explorer.h"
#include "engine/search/strategy.h"
#include "tests/cli_run.h"
#include "tests/test_util.h"

namespace pim {
namespace {

using test::problem;

const std::string kExample = std::string(PIMSCOPE_DATA_DIR) + "/kernels/dcc_example.pim";

TEST(MeasuredError, MeanAbsolutePercentageErrorByHand) {
  MeasuredError e;
  e.add(110, 100);  // +10%
  e.add(90, 100);   // -10%
  e.add(100, 200);  // -50%
  e.add(5, 0);      // no simulated time: measures nothing
  EXPECT_EQ(e.confirmations, 3u);
  EXPECT_DOUBLE_EQ(e.mapePct(), 70.0 / 3);   // (10 + 10 + 50) / 3
  EXPECT_DOUBLE_EQ(e.biasPct(), -50.0 / 3);  // (10 - 10 - 50) / 3
  EXPECT_DOUBLE_EQ(e.worstPct, 50);
  EXPECT_EQ(predictionAccuracyText(e, {}), "±23.3% measured on 3 confirmations (mean -16.7%, worst 50.0%)");
  EXPECT_EQ(predictionAccuracyText(MeasuredError{}, {"x"}),
            "error not measured yet (no confirmation); out of distribution: x");
}

TEST(ModelFit, KernelBackendAndShapeOutsideTheTrainingData) {
  TrainingMetadata m;
  m.kernels = {"gemv", "red"};
  const auto red = problem("hbm-pim", "red", "b=1,n=4096");
  m.backendHash = red->backend().hash();
  ModelFit fit = modelFit(*red, m);
  EXPECT_FALSE(fit.outOfDistribution()) << fit.text();
  EXPECT_FALSE(fit.shapesKnown);  // a model trained before the ranges were recorded: no shape verdict

  m.shapeRanges["red"] = {{"b", {1, 8}}, {"n", {1024, 8192}}};
  fit = modelFit(*red, m);
  EXPECT_TRUE(fit.shapesKnown);
  EXPECT_FALSE(fit.outOfDistribution()) << fit.text();
  fit = modelFit(*problem("hbm-pim", "red", "b=16,n=4096"), m);
  EXPECT_EQ(fit.text(), "b=16 is outside the trained range 1..8");

  // A kernel the model never saw, and one named like a trained kernel that computes something else.
  const Kernel va = KernelLibrary::builtin().get("va");
  fit = modelFit(Problem(red->backend(), va, parseShape(va, "b=1,n=4096")), m);
  EXPECT_EQ(fit.text(), "kernel va is not among the model's training kernels (gemv, red)");
  const Kernel fakeRed = parseKernel(
      "kernel red(b = 1, n = 4096)\n  input x: f16[b][n]\n  output y: f16[b][n]\n"
      "  for b < b, i < n: y[b][i] = x[b][i] + x[b][i]\nend\n",
      "fake_red.pim");
  fit = modelFit(Problem(red->backend(), fakeRed, parseShape(fakeRed, "b=1,n=4096")), m);
  EXPECT_EQ(fit.text(), "kernel red computes something else than the red the model was trained on");

  m.backendHash = "0000000000000000";
  EXPECT_EQ(modelFit(*red, m).text(), "the model was trained on other parameters of hbm-pim");
}

struct ShippedRun {
  ExploreProgress done;
  std::vector<DraftRecord> records;
  double validationPct = 0;
};

/// `p` explored to the end by the predictor strategy with its backend's shipped model (as the window does).
ShippedRun exploreWithShippedModel(const Problem& p) {
  const ShippedModel shipped = sharedShippedModel(p.backend());
  if (!shipped.model) throw std::logic_error(p.backend().name + " ships no model");
  ExploreOptions o;
  o.predictor = shipped.model.get();
  Explorer ex(p, o);
  const std::atomic<bool> never{false};
  ex.run(never);
  return {ex.progress(), ex.records(), shipped.model->expectedErrorPct()};
}

std::unique_ptr<Problem> exampleOnHbmPim() {
  Kernel k = loadKernelFile(kExample);
  Shape s = parseShape(k, "");
  return std::make_unique<Problem>(builtinBackends().get("hbm-pim"), std::move(k), std::move(s));
}

// On the DSL example the rows said "predicted ±0.6%" (the model's validation error on its training kernels)
// while its confirmations were off by 27% on average, and nothing said the kernel was outside the training
// data.
// A retyped library kernel is still that kernel; in a type the model never saw it is out of distribution
// (UPMEM emulates floats: an f32 VA costs nothing like an int32 one). Models without recorded types do not
// judge.
TEST(ModelFit, ElementTypesTheModelNeverSawAreFlagged) {
  const Backend& b = builtinBackends().get("upmem");
  const Kernel va = KernelLibrary::builtin().get("va");
  auto fitOf = [&](const TrainingMetadata& m, DType t) {
    const Kernel k = retyped(va, t);
    return modelFit(Problem(b, k, parseShape(k, "b=1,n=4096")), m);
  };
  TrainingMetadata m;
  m.kernels = {"va"};
  m.backendHash = b.hash();
  EXPECT_FALSE(fitOf(m, DType::F32).outOfDistribution()) << fitOf(m, DType::F32).text();
  m.kernelTypes["va"] = {"i32"};
  EXPECT_FALSE(fitOf(m, DType::I32).outOfDistribution()) << fitOf(m, DType::I32).text();
  EXPECT_EQ(fitOf(m, DType::F32).text(), "kernel va is f32; the model saw it in i32");
}

TEST(ModelFit, OutOfDistributionKernelIsFlaggedMeasuredAndConfirmedTwice) {
  const ShippedRun run = exploreWithShippedModel(*exampleOnHbmPim());
  const ExploreProgress& done = run.done;
  ASSERT_TRUE(done.modelUsed);
  ASSERT_EQ(done.outOfDistribution.size(), 1u);
  EXPECT_EQ(done.outOfDistribution[0],
            "kernel dcc_example is not among the model's training kernels (gemv, red, relu, va)");
  // The error over the confirmations, recomputed here from the records.
  double sumAbs = 0;
  std::size_t n = 0;
  for (const DraftRecord& r : run.records) {
    if (!r.predictedNs || !r.simulated) continue;
    sumAbs += std::abs(*r.predictedNs - r.simulated->timeNs) / r.simulated->timeNs;
    ++n;
  }
  EXPECT_EQ(done.predictionError.confirmations, n);
  EXPECT_NEAR(done.predictionError.mapePct(), 100 * sumAbs / static_cast<double>(n), 1e-9);
  EXPECT_EQ(measuredError(run.records).confirmations, n);
  // Out of distribution: twice the first confirmations (64 best predictions, no near-ties here).
  const std::size_t first = std::min<std::size_t>(64, done.remaining);
  EXPECT_EQ(done.simulated, std::min<std::uint64_t>(2 * first, done.remaining));
  EXPECT_EQ(done.toSimulate, done.simulated);
  std::printf("dcc_example on hbm-pim: %s\n",
              predictionAccuracyText(done.predictionError, done.outOfDistribution).c_str());
}

// A trained kernel with a small measured error keeps its planned confirmations.
TEST(ModelFit, InDistributionRunWithSmallErrorConfirmsOnlyThePlan) {
  const ExploreProgress done = exploreWithShippedModel(*problem("gddr6-aim", "va", "b=1,n=4096")).done;
  EXPECT_TRUE(done.outOfDistribution.empty());
  ASSERT_GT(done.predictionError.confirmations, 0u);
  ASSERT_LE(done.predictionError.mapePct(), kConfirmMoreErrorPct);
  EXPECT_LE(done.simulated, static_cast<std::uint64_t>(kDefaultMaxConfirm));
}

#ifdef PIMSCOPE_CLI
TEST(ModelFit, CliExploreReportsTheMeasuredErrorAndTheVerdict) {
  const test::CliRun r = test::cli("explore -b hbm-pim --kernel-file " + kExample + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& pr = j.at("prediction");
  EXPECT_TRUE(pr.at("out_of_distribution").get<bool>());
  EXPECT_EQ(pr.at("out_of_distribution_reasons").at(0).get<std::string>(),
            "kernel dcc_example is not among the model's training kernels (gemv, red, relu, va)");
  // The same figures as the engine's run of the same problem (the window's).
  const ShippedRun run = exploreWithShippedModel(*exampleOnHbmPim());
  const MeasuredError& e = run.done.predictionError;
  EXPECT_EQ(pr.at("confirmations").get<std::size_t>(), e.confirmations);
  EXPECT_EQ(j.at("counts").at("simulated").get<std::size_t>(), run.done.simulated);
  EXPECT_NEAR(pr.at("measured_error_pct").get<double>(), e.mapePct(), 1e-9);
  EXPECT_NEAR(pr.at("mean_error_pct").get<double>(), e.biasPct(), 1e-9);
  EXPECT_NEAR(pr.at("worst_error_pct").get<double>(), e.worstPct, 1e-9);
  EXPECT_NEAR(pr.at("validation_error_pct").get<double>(), run.validationPct, 1e-12);

  const test::CliRun text = test::cli("explore -b hbm-pim --kernel-file " + kExample);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_NE(text.out.find("predictions: " + predictionAccuracyText(e, run.done.outOfDistribution)),
            std::string::npos)
      << text.out;
}
#endif

}  // namespace
}  // namespace pim
