// SPDX-License-Identifier: Apache-2.0
// Offline training of the coupled predictor (DCC 4.4) and its Table-4-style evaluation (DCC 5.6).
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/predict/predictor.h"
#include "engine/search/evaluate.h"
#include "engine/workflow/suite.h"

namespace pim {

class ResultsStore;

struct TrainOptions {
  double sampleFraction = 0.15;          // DCC: 15% of the pruned drafts of every shape
  std::size_t maxSamplesPerShape = 400;  // cap so that large spaces stay affordable
  /// > 0: sample from the drafts the analytic screen keeps for the model (as explore and evaluate do with
  /// their predictLimit) instead of from every pruned draft; 0: every pruned draft (DCC).
  std::size_t screenLimit = 0;
  /// With a store: a shape whose sample would need more than this many new simulations is sampled at this
  /// many drafts instead (stored labels among them are reused), so fully labelled shapes give their whole
  /// sample and unlabelled ones a small random one. 0: no such cut.
  std::size_t maxFreshPerShape = 0;
  double validationFraction = 0.2;
  std::uint64_t seed = 42;
  XgbParams xgb;  // DCC: learning rate 0.1, max depth 8, up to 5,000 rounds
  EvalOptions eval;
  ResultsStore* store = nullptr;  // labels are reused from it and committed to it every `batchSize` drafts
  std::size_t batchSize = 1000;
  unsigned threads = 0;  // simulation workers; 0: one per hardware thread
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const std::string& what, std::size_t done, std::size_t total)> progress;  // per shape
  /// Within a shape: drafts labelled so far (stored ones included) of `total`.
  std::function<void(const std::string& what, std::size_t done, std::size_t total)> labelProgress;
};

/// The store's options key of a labelling run: optimiser passes, the family's cost-model version and, for
/// the DCC-artifact mode, the labelling model (stored labels of different keys are never reused).
std::string optionsKey(const EvalOptions& e, const ITarget& t);

/// True when `b`'s family can run `k` (its target's check finds nothing against it).
bool runsOn(const Backend& b, const Kernel& k);

/// Every draft of `p` its family keeps after pruning, by id.
std::vector<Draft> prunedDrafts(const Problem& p);

/// Training's sample of `p`'s drafts (DCC 4.4: `sampleFraction` of the pruned drafts, at most
/// `maxSamplesPerShape`, from the analytic screen's survivors when `screenLimit` is set), in sampled order;
/// in a family with kernel-level choices, about half of them at a random other combination of choices. `rng`
/// carries on from shape to shape, so a suite's samples depend on its order and the seed only.
std::vector<Draft> sampleDrafts(const Problem& p, const TrainOptions& o, std::mt19937_64& rng);

struct LabelCounts {
  std::size_t reused = 0;     // labels taken from the store
  std::size_t simulated = 0;  // simulations run now (bounded ones included)
  std::size_t bounded = 0;    // stopped past the incumbent: slower than the optimum, no label
};

/// Labels `drafts` of `p` by simulation on `o.threads` workers. With `o.store`, labels already stored under
/// the same options are reused and new ones committed every `o.batchSize` drafts, so an interrupted run
/// resumes where it stopped. `maxFresh` > 0: a sample needing more new simulations is cut to its first
/// `maxFresh` drafts. With an incumbent (total cycles of a known draft), only the optimum is wanted: drafts
/// that pass it are stopped there and left unlabelled. Drafts that cannot run carry no label. Returned in
/// the order of `drafts`.
std::vector<std::pair<Draft, Evaluation>> labelDrafts(const Problem& p, const std::vector<Draft>& drafts,
                                                      const TrainOptions& o, const std::string& what = {},
                                                      LabelCounts* counts = nullptr, std::size_t maxFresh = 0,
                                                      std::atomic<std::int64_t>* incumbent = nullptr);

/// Adds `k`'s element type (its first tensor's) to those the model saw `name` in.
void recordType(TrainingMetadata& meta, const std::string& name, const Kernel& k);
/// Widens the model's recorded training range of each of `k`'s dimensions to `shape` (ModelFit reads it).
void recordShape(TrainingMetadata& meta, const Kernel& k, const Shape& shape);

/// Fits one model on `y.size()` rows of `cols` features (labels: log time in ns): a random split (`rng`)
/// keeps `o.validationFraction` of the rows for early stopping and the expected error; fills `meta`'s
/// training fields (rounds, samples, validation error, learning rate, depth).
XgbModel fitModel(const std::vector<float>& x, const std::vector<float>& y, std::size_t cols,
                  const TrainOptions& o, std::mt19937_64& rng, TrainingMetadata& meta);

/// Samples, labels by simulation, trains. Throws InputError when nothing in the suite runs on `b`.
Predictor trainPredictor(const Backend& b, const Suite& suite, const TrainOptions& o);

struct EvaluationRow {
  std::string shape;
  std::size_t drafts = 0;
  std::uint64_t optimum = 0, pick = 0, argmin = 0;
  double optimumNs = 0, pickNs = 0, argminNs = 0;
  std::size_t optimumRank = 0;  // place of the best-predicted optimal draft in the predictor's ranking; 0
                                // when the analytic screen dropped every optimal draft
};

struct EvaluationReport {
  std::string backend, kernel;
  std::size_t configs = 0, top1 = 0;
  double meanPickVsOptimum = 1.0;  // over the configurations where the pick is not the optimum (DCC Table 4)
  std::size_t top1Argmin = 0;      // the single best predicted draft is the optimum (no confirmation runs)
  double meanArgminVsOptimum = 1.0;
  /// Compile time with the predictor, and without it (simulating every draft to the end, DCC's exhaustive
  /// compile). secondsWithout is measured under --label-all with no stored labels; otherwise it is
  /// extrapolated (withoutExtrapolated) from drafts simulated to the end and timed in this run.
  double secondsWith = 0, secondsWithout = 0;
  bool withoutExtrapolated = false;
  double secondsOptimum = 0;  // finding the true optimum (branch and bound, or labelling every draft)
  bool interrupted = false;   // cancelled: `rows` holds the shapes finished before it
  std::size_t bounded = 0;    // drafts stopped by branch and bound (slower than the optimum)
  std::vector<EvaluationRow> rows;
};

struct EvaluateOptions {
  std::size_t topK = kDefaultTopK;
  double bandErrors = kDefaultBandErrors;  // as ExploreOptions: confirm near-ties of the best prediction
  std::size_t maxConfirm = kDefaultMaxConfirm;
  std::size_t predictLimit = 20000;  // as ExploreOptions::predictLimit: analytic screen before the model
  /// Find the true optimum by branch and bound: every draft is simulated, but stopped (unlabelled) once it is
  /// slower than the best draft found so far, starting from the predictor's pick. Off: every draft is
  /// simulated to the end and labelled (as training needs).
  bool branchAndBound = true;
  /// With branch and bound: drafts per shape simulated to the end and timed to extrapolate the exhaustive
  /// compile time (EvaluationReport::secondsWithout), in four runs of consecutive ids spread over the space
  /// (consecutive drafts share channel programs as an exhaustive sweep's do).
  std::size_t timingSample = 64;
};

/// The model's predicted time of each of `drafts` (ns), as the explorer ranks them: the analytic screen keeps
/// `predictLimit` (0: all) and the model predicts those; the rest get infinity.
std::vector<double> screenedPredictions(const Problem& p, const std::vector<Draft>& drafts,
                                        const Predictor& predictor, std::size_t predictLimit,
                                        const OptimizerOptions& optimizer);
/// The drafts the predictor strategy confirms by simulation on `p` (indices into `drafts`, best predicted
/// first), as explore takes them: the analytic screen keeps `e.predictLimit`, the model ranks what it keeps
/// (the rest ranks last), then the `e.topK` best and the near-ties within `e.bandErrors` expected errors, at
/// most `e.maxConfirm`.
std::vector<std::size_t> confirmationOrder(const Problem& p, const std::vector<Draft>& drafts,
                                           const Predictor& predictor, const EvaluateOptions& e,
                                           const OptimizerOptions& optimizer);

/// For every shape of `kernel` in the suite: simulate every pruned draft (the true optimum; see
/// EvaluateOptions::branchAndBound) and compare with
/// the predictor strategy's pick: the best simulated of the `topK` best predicted drafts (DCC 4.4: predict
/// all, confirm by simulation). The single best predicted draft is reported too (`top1Argmin`).
EvaluationReport evaluatePredictor(const Backend& b, const std::string& kernel, const Suite& suite,
                                   const Predictor& predictor, const TrainOptions& o,
                                   const EvaluateOptions& e = {});

}  // namespace pim
