// SPDX-License-Identifier: Apache-2.0
#include "engine/workflow/active_learning.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <unordered_map>

#include "engine/common/error.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

// One shape: its pruned drafts, their features, and the labels (log ns) found so far.
struct ShapeState {
  std::unique_ptr<Problem> problem;
  std::vector<Draft> drafts;
  std::vector<float> features;                          // drafts.size() x cols
  std::vector<std::optional<float>> labels;             // by draft index
  float best = std::numeric_limits<float>::infinity();  // the best label so far
};

void label(ShapeState& s, const std::vector<std::size_t>& which, const TrainOptions& o) {
  std::vector<Draft> drafts;
  for (std::size_t i : which) drafts.push_back(s.drafts[i]);
  std::unordered_map<std::uint64_t, std::size_t> index;
  for (std::size_t i : which) index.emplace(s.drafts[i].id, i);
  for (const auto& [d, e] : labelDrafts(*s.problem, drafts, o))
    s.labels[index.at(d.id)] = static_cast<float>(std::log(std::max(1.0, e.timeNs)));
  // A draft that cannot run carries no label: mark it so that it is not chosen again.
  for (std::size_t i : which) {
    if (!s.labels[i]) s.labels[i] = std::numeric_limits<float>::quiet_NaN();
  }
}

float bestLabel(const ShapeState& s) {
  float best = std::numeric_limits<float>::infinity();
  for (const auto& l : s.labels) {
    if (l && !std::isnan(*l)) best = std::min(best, *l);
  }
  return best;
}

std::size_t labelCount(const std::vector<ShapeState>& shapes) {
  std::size_t n = 0;
  for (const auto& s : shapes)
    n += static_cast<std::size_t>(
        std::count_if(s.labels.begin(), s.labels.end(), [](const auto& l) { return l.has_value(); }));
  return n;
}

// Every finite label of every shape as training rows.
void trainingRows(const std::vector<ShapeState>& shapes, std::size_t cols, std::vector<float>& x,
                  std::vector<float>& y) {
  for (const auto& s : shapes) {
    for (std::size_t i = 0; i < s.drafts.size(); ++i) {
      if (!s.labels[i] || std::isnan(*s.labels[i])) continue;
      x.insert(x.end(), s.features.begin() + static_cast<std::ptrdiff_t>(i * cols),
               s.features.begin() + static_cast<std::ptrdiff_t>((i + 1) * cols));
      y.push_back(*s.labels[i]);
    }
  }
}

// A shape's pruned drafts and their features, with its random seed set labelled.
ShapeState prepareShape(std::unique_ptr<Problem> problem, const ITarget& target, const ActiveOptions& o,
                        std::mt19937_64& rng) {
  ShapeState s;
  s.problem = std::move(problem);
  s.drafts = prunedDrafts(*s.problem);
  const auto estimator = target.estimator(*s.problem, o.train.eval.optimizer);
  for (const Draft& d : s.drafts) estimator->features(d, s.features);
  s.labels.assign(s.drafts.size(), std::nullopt);
  std::vector<std::size_t> order(s.drafts.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  const auto seed = std::max<std::size_t>(
      o.minSeed, static_cast<std::size_t>(std::ceil(o.seedFraction * static_cast<double>(order.size()))));
  order.resize(std::min(order.size(), seed));
  label(s, order, o.train);
  s.best = bestLabel(s);
  return s;
}

// One round on one shape: the ensemble's mean and spread for every draft, then the predicted best and the
// unlabelled drafts that could be best (lowest mean minus spread) labelled. True when the pick improved.
bool labelRound(ShapeState& s, const std::vector<XgbModel>& models, std::size_t cols,
                const ActiveOptions& o) {
  const std::size_t n = s.drafts.size();
  std::vector<double> mean(n, 0), sq(n, 0);
  for (const XgbModel& model : models) {
    const auto p = model.predict(s.features, n, cols);
    for (std::size_t i = 0; i < n; ++i) {
      mean[i] += p[i];
      sq[i] += static_cast<double>(p[i]) * p[i];
    }
  }
  const double m = static_cast<double>(models.size());
  std::vector<double> lcb(n);
  for (std::size_t i = 0; i < n; ++i) {
    mean[i] /= m;
    lcb[i] = mean[i] - std::sqrt(std::max(0.0, sq[i] / m - mean[i] * mean[i]));
  }
  const auto pick = static_cast<std::size_t>(std::min_element(mean.begin(), mean.end()) - mean.begin());
  // Next: the unlabelled drafts that could be best (lowest mean minus spread), the pick first.
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < n; ++i) {
    if (!s.labels[i]) todo.push_back(i);
  }
  std::sort(todo.begin(), todo.end(), [&](std::size_t a, std::size_t c) {
    return a == pick ? c != pick : c != pick && lcb[a] < lcb[c];
  });
  todo.resize(std::min(todo.size(), o.perRound));
  if (!todo.empty()) label(s, todo, o.train);
  // The pick is the best labelled draft (what the predictor strategy confirms by simulation); near-ties
  // in the predictions may trade places without changing it.
  const float best = bestLabel(s);
  const bool improved = best < s.best;
  s.best = best;
  return improved;
}

}  // namespace

ActiveResult trainActive(const Backend& b, const Suite& suite, const ActiveOptions& o) {
  const ITarget& target = targetOf(b);
  const std::vector<std::string>& names = target.featureNames();
  if (names.empty()) throw InputError("train --active: " + b.name + " has no features to learn from");
  const std::size_t cols = names.size();
  std::mt19937_64 rng(o.train.seed);
  std::vector<ShapeState> shapes;
  TrainingMetadata meta;
  meta.backend = b.name;
  meta.backendHash = b.hash();
  meta.seed = o.train.seed;
  for (const auto& [kernel, list] : suite.kernels) {
    const Kernel k = suite.kernel(kernel);
    const Backend kb = suite.backendFor(b, kernel);
    if (!runsOn(kb, k)) continue;
    meta.kernels.push_back(kernel);
    for (const std::string& shape : list) {
      auto problem = std::make_unique<Problem>(kb, k, parseShape(k, shape));
      recordShape(meta, k, problem->shape());
      recordType(meta, kernel, k);
      shapes.push_back(prepareShape(std::move(problem), target, o, rng));
    }
  }
  if (shapes.empty())
    throw InputError("train --active: no kernel of suite " + suite.name + " runs on " + b.name);
  std::vector<ActiveRound> rounds;
  std::size_t drafts = 0;
  for (const auto& s : shapes) drafts += s.drafts.size();
  std::size_t stable = 0;
  for (std::size_t round = 0; round < o.maxRounds && stable < o.stableRounds; ++round) {
    if (o.train.cancel && o.train.cancel->load()) break;  // the caller reports it; the labels are stored
    std::vector<float> x, y;
    trainingRows(shapes, cols, x, y);
    if (y.size() < 10) throw InputError("train --active: fewer than 10 labelled drafts for " + b.name);
    std::vector<XgbModel> models;
    for (std::size_t m = 0; m < std::max<std::size_t>(1, o.ensemble); ++m) {
      TrainOptions t = o.train;
      t.seed = o.train.seed + 1 + m;
      std::mt19937_64 split(t.seed);
      TrainingMetadata unused;
      models.push_back(fitModel(x, y, cols, t, split, unused));
    }
    ActiveRound ar;
    for (auto& s : shapes) {
      if (labelRound(s, models, cols, o)) ++ar.picksChanged;
    }
    ar.labels = labelCount(shapes);
    rounds.push_back(ar);
    stable = ar.picksChanged == 0 ? stable + 1 : 0;
  }
  std::vector<float> x, y;
  trainingRows(shapes, cols, x, y);
  meta.sampleFraction = static_cast<double>(y.size()) / static_cast<double>(drafts);
  XgbModel model = fitModel(x, y, cols, o.train, rng, meta);
  return {Predictor(std::move(model), names, meta), std::move(rounds), drafts};
}

}  // namespace pim
