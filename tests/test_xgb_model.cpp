// SPDX-License-Identifier: Apache-2.0
// XgbModel: learns a smooth function, early-stops on noise, round-trips through save/load with identical
// predictions, trains deterministically, and rejects garbage model bytes and mis-shaped inputs.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <vector>

#include "engine/common/error.h"
#include "engine/predict/xgb_model.h"

using pim::InputError;
using pim::TrainReport;
using pim::XgbModel;
using pim::XgbParams;

namespace {

/// rows x cols features uniform in [-1, 1]; label = 3*x0 + x1^2 + noise*N(0, 1).
struct Data {
  std::vector<float> X, y;
  std::size_t rows = 0, cols = 0;
};

Data makeData(std::size_t rows, std::size_t cols, double noise, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::normal_distribution<float> n(0.0f, 1.0f);
  Data d;
  d.rows = rows;
  d.cols = cols;
  d.X.resize(rows * cols);
  d.y.resize(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) d.X[r * cols + c] = u(rng);
    const float x0 = d.X[r * cols], x1 = d.X[r * cols + 1];
    d.y[r] = 3.0f * x0 + x1 * x1 + (noise > 0 ? static_cast<float>(noise) * n(rng) : 0.0f);
  }
  return d;
}

double rmse(const std::vector<float>& pred, const std::vector<float>& y) {
  double s = 0;
  for (std::size_t i = 0; i < y.size(); ++i) s += (double{pred[i]} - y[i]) * (double{pred[i]} - y[i]);
  return std::sqrt(s / static_cast<double>(y.size()));
}

XgbModel trainOn(const Data& train, const Data& valid, const XgbParams& p, TrainReport* report = nullptr) {
  return XgbModel::train(train.X, train.rows, train.cols, train.y, valid.X, valid.rows, valid.y, p, report);
}

XgbParams smallParams() {
  XgbParams p;
  p.maxDepth = 6;
  p.maxRounds = 300;
  p.earlyStoppingRounds = 20;
  return p;
}

}  // namespace

TEST(XgbModel, LearnsSmoothFunction) {
  const Data train = makeData(3000, 4, 0.0, 1), valid = makeData(600, 4, 0.0, 2),
             test = makeData(1000, 4, 0.0, 3);
  TrainReport report;
  const XgbModel model = trainOn(train, valid, smallParams(), &report);
  const double testRmse = rmse(model.predict(test.X, test.rows, test.cols), test.y);
  // The label spans about [-3, 4] (std ~1.8); a boosted tree ensemble should fit it to a few hundredths.
  EXPECT_LT(testRmse, 0.1);
  EXPECT_LT(report.validRmse, 0.1);
  EXPECT_LT(report.trainRmse, 0.1);
  EXPECT_GT(report.rounds, 0);
  EXPECT_EQ(model.bestIteration(), report.bestIteration);
  EXPECT_EQ(model.featureCount(), 4u);
  std::printf("[ xgb      ] smooth: %d rounds, best %d, train %.4f valid %.4f test %.4f, %.3f s\n",
              report.rounds, report.bestIteration, report.trainRmse, report.validRmse, testRmse,
              report.seconds);
}

TEST(XgbModel, NoValidationKeepsAllRounds) {
  const Data train = makeData(500, 3, 0.0, 4);
  XgbParams p = smallParams();
  p.maxRounds = 25;
  TrainReport report;
  const XgbModel model = XgbModel::train(train.X, train.rows, train.cols, train.y, {}, 0, {}, p, &report);
  EXPECT_EQ(report.rounds, 25);
  EXPECT_EQ(report.bestIteration, 24);
  EXPECT_EQ(model.bestIteration(), 24);
  EXPECT_GT(report.trainRmse, 0.0);
  EXPECT_EQ(report.validRmse, 0.0);
}

TEST(XgbModel, EarlyStoppingOnNoisyData) {
  // Pure-noise-dominated labels: validation RMSE bottoms out early and then rises as the trees chase noise.
  const Data train = makeData(800, 6, 3.0, 5), valid = makeData(400, 6, 3.0, 6);
  XgbParams p;
  p.maxRounds = 2000;
  p.earlyStoppingRounds = 15;
  TrainReport report;
  const XgbModel model = trainOn(train, valid, p, &report);
  EXPECT_LT(report.rounds, p.maxRounds);
  EXPECT_LT(report.bestIteration, report.rounds);
  EXPECT_EQ(report.rounds, report.bestIteration + 1 + p.earlyStoppingRounds);
  EXPECT_EQ(model.bestIteration(), report.bestIteration);
  // The kept model is the best one: its validation RMSE is what the report says.
  EXPECT_NEAR(rmse(model.predict(valid.X, valid.rows, valid.cols), valid.y), report.validRmse, 1e-4);
  std::printf("[ xgb      ] noisy: stopped after %d of %d rounds, best iteration %d, valid rmse %.4f\n",
              report.rounds, p.maxRounds, report.bestIteration, report.validRmse);
}

TEST(XgbModel, SaveLoadRoundTripGivesIdenticalPredictions) {
  const Data train = makeData(800, 5, 1.0, 7), valid = makeData(300, 5, 1.0, 8),
             test = makeData(500, 5, 0.0, 9);
  TrainReport report;
  const XgbModel model = trainOn(train, valid, smallParams(), &report);
  const std::vector<std::uint8_t> bytes = model.save();
  ASSERT_FALSE(bytes.empty());
  const XgbModel loaded = XgbModel::load(bytes);
  EXPECT_EQ(loaded.featureCount(), model.featureCount());
  EXPECT_EQ(loaded.bestIteration(), model.bestIteration());
  EXPECT_EQ(loaded.predict(test.X, test.rows, test.cols), model.predict(test.X, test.rows, test.cols));
  EXPECT_EQ(loaded.save(), bytes);  // stable bytes: a second round trip changes nothing
}

TEST(XgbModel, SameSeedSameModel) {
  const Data train = makeData(1500, 6, 0.5, 10), valid = makeData(400, 6, 0.5, 11),
             test = makeData(500, 6, 0.5, 12);
  XgbParams p = smallParams();
  p.maxRounds = 60;
  p.subsample = 0.8;  // exercise the seeded RNG too
  p.colsampleBytree = 0.7;
  for (const int threads : {1, 0}) {
    p.threads = threads;
    TrainReport r1, r2;
    const XgbModel a = trainOn(train, valid, p, &r1);
    const XgbModel b = trainOn(train, valid, p, &r2);
    EXPECT_EQ(r1.rounds, r2.rounds) << "threads=" << threads;
    EXPECT_EQ(r1.bestIteration, r2.bestIteration) << "threads=" << threads;
    EXPECT_EQ(a.predict(test.X, test.rows, test.cols), b.predict(test.X, test.rows, test.cols))
        << "threads=" << threads;
    EXPECT_EQ(a.save(), b.save()) << "threads=" << threads;
  }
}

TEST(XgbModel, LoadRejectsGarbage) {
  const std::vector<std::vector<std::uint8_t>> garbage = {
      {},         {'h', 'e', 'l', 'l', 'o'}, {'{', 'g', 'a', 'r', 'b', 'a', 'g', 'e'},
      {'{', '}'}, {'[', '1', ',', '2', ']'}, {0x00, 0x01, 0x02, 0x03, 0xff, 0xfe},
  };
  for (const auto& bytes : garbage) EXPECT_THROW(XgbModel::load(bytes), InputError);

  std::mt19937 rng(13);
  std::vector<std::uint8_t> random(4096);
  for (auto& b : random) b = static_cast<std::uint8_t>(rng());
  EXPECT_THROW(XgbModel::load(random), InputError);
  random[0] = '{';
  EXPECT_THROW(XgbModel::load(random), InputError);
  // Crafted: a huge declared string length, a huge typed-array count, and nesting deep enough to overflow a
  // recursive reader. All must be refused before XGBoost allocates or recurses.
  const std::vector<std::uint8_t> hugeString = {'{',  'i',  1,    'k',  'S',  'L',  0x7f,
                                                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  EXPECT_THROW(XgbModel::load(hugeString), InputError);
  const std::vector<std::uint8_t> hugeArray = {'{', 'i', 1, 'k', '[', '$', 'D', '#', 'l', 0x10, 0, 0, 0, '}'};
  EXPECT_THROW(XgbModel::load(hugeArray), InputError);
  std::vector<std::uint8_t> deep = {'{', 'i', 1, 'k'};
  deep.insert(deep.end(), 100000, '[');
  EXPECT_THROW(XgbModel::load(deep), InputError);

  // A truncated real model.
  const Data train = makeData(200, 3, 0.0, 14);
  XgbParams p = smallParams();
  p.maxRounds = 5;
  const std::vector<std::uint8_t> bytes =
      XgbModel::train(train.X, train.rows, train.cols, train.y, {}, 0, {}, p).save();
  for (const std::size_t keep : {std::size_t{1}, std::size_t{20}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_THROW(XgbModel::load(std::span(bytes).first(keep)), InputError) << "kept " << keep << " bytes";
}

TEST(XgbModel, RejectsMisshapedInput) {
  const Data train = makeData(300, 4, 0.0, 15), valid = makeData(100, 4, 0.0, 16);
  XgbParams p = smallParams();
  p.maxRounds = 5;
  const XgbModel model = trainOn(train, valid, p);

  const Data other = makeData(10, 3, 0.0, 17);
  EXPECT_THROW(model.predict(other.X, other.rows, other.cols), InputError);      // 3 features, model has 4
  EXPECT_THROW(model.predict(train.X, train.rows + 1, train.cols), InputError);  // size != rows * cols
  EXPECT_TRUE(model.predict({}, 0, 4).empty());

  const std::span<const float> X = train.X, y = train.y;
  EXPECT_THROW(XgbModel::train(X, train.rows, train.cols, y.first(10), {}, 0, {}, p), InputError);
  EXPECT_THROW(XgbModel::train(X, train.rows, train.cols, y, valid.X, valid.rows, y.first(3), p), InputError);
  EXPECT_THROW(XgbModel::train(X, train.rows, 3, y, {}, 0, {}, p), InputError);
  std::vector<float> nanLabels = train.y;
  nanLabels[7] = std::nanf("");
  EXPECT_THROW(XgbModel::train(X, train.rows, train.cols, nanLabels, {}, 0, {}, p), InputError);
  XgbParams bad = p;
  bad.learningRate = 0;
  EXPECT_THROW(XgbModel::train(X, train.rows, train.cols, y, {}, 0, {}, bad), InputError);
  bad = p;
  bad.objective = "reg:no-such-objective";
  EXPECT_THROW(XgbModel::train(X, train.rows, train.cols, y, {}, 0, {}, bad), InputError);
}

TEST(XgbModel, MoveTransfersOwnership) {
  const Data train = makeData(200, 3, 0.0, 18);
  XgbParams p = smallParams();
  p.maxRounds = 5;
  XgbModel a = XgbModel::train(train.X, train.rows, train.cols, train.y, {}, 0, {}, p);
  const std::vector<float> before = a.predict(train.X, train.rows, train.cols);
  XgbModel b = std::move(a);
  EXPECT_EQ(b.predict(train.X, train.rows, train.cols), before);
  EXPECT_THROW(a.predict(train.X, train.rows, train.cols),
               std::runtime_error);  // NOLINT(bugprone-use-after-move)
  a = std::move(b);
  EXPECT_EQ(a.featureCount(), 3u);
}

TEST(XgbModel, PredictionThroughput) {
  // Not a timing assertion: prints rows/second for one batched call over 100,000 rows x 40 features.
  const Data train = makeData(1000, 40, 0.1, 19);
  XgbParams p;
  p.maxRounds = 100;
  const XgbModel model = XgbModel::train(train.X, train.rows, train.cols, train.y, {}, 0, {}, p);
  const Data big = makeData(100000, 40, 0.0, 20);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<float> pred = model.predict(big.X, big.rows, big.cols);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(pred.size(), big.rows);
  std::printf("[ xgb      ] predict: %zu rows x %zu features, %d trees of depth <= %d: %.3f s, %.3g rows/s\n",
              big.rows, big.cols, model.bestIteration() + 1, p.maxDepth, s,
              static_cast<double>(big.rows) / s);
}
