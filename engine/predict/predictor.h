// SPDX-License-Identifier: Apache-2.0
// The coupled XGBoost predictor (DCC section 4.4): predicts a draft's end-to-end time (rearrangement and
// compute together) from its features. Trained offline on simulated labels of a sample of pruned drafts
// across the shapes of a workload suite; shipped per backend in datasets/models/.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "engine/codegen/lowering.h"
#include "engine/core/problem.h"
#include "engine/predict/screen.h"
#include "engine/predict/xgb_model.h"

namespace pim {

struct TrainingMetadata {
  std::string backend, backendHash;
  std::vector<std::string> kernels;  // kernels of the suite it saw
  /// Per kernel, per dimension, the smallest and largest size it was trained on ("shape_ranges"; empty in
  /// models trained before it was recorded).
  std::map<std::string, std::map<std::string, std::pair<std::int64_t, std::int64_t>>> shapeRanges;
  /// Per kernel, the element types it was trained in ("kernel_types"; empty in models trained before).
  std::map<std::string, std::vector<std::string>> kernelTypes;
  std::size_t samples = 0, validationSamples = 0;
  double sampleFraction = 0.15;
  std::size_t screenLimit = 0;  // sampled from the analytic screen's best N drafts of a shape; 0: from all
  std::uint64_t seed = 42;
  double learningRate = 0.1;  // the boosting settings it was trained with (XgbParams)
  int maxDepth = 8;
  int rounds = 0, bestIteration = 0;
  double validationMape = 0;  // mean absolute percentage error of predicted time on the validation split
  double trainSeconds = 0, labelSeconds = 0;
};

/// How Predictor::predictNs ranks a large batch, coarse to fine: every draft is predicted from the model's
/// first `coarseRounds` boosting rounds, then the best `fineShare` of them (at least `fineMin`) from all
/// rounds; the others keep their coarse prediction. The cost of a prediction grows with the rounds
/// (1,000-1,500 for the shipped models), and what the predictor strategy uses is the order of the best few
/// drafts, which the coarse pass only has to keep in the shortlist (README, "Predictor"). coarseRounds = 0:
/// every draft from all rounds.
struct CoarseToFine {
  int coarseRounds = 200;
  double fineShare = 0.1;
  std::size_t fineMin = 512;
};

/// Where `train` writes models when no folder is given: $XDG_DATA_HOME/pimscope/models, else
/// $HOME/.local/share/pimscope/models (never the shipped datasets/models unless named). Throws InputError
/// when neither variable holds an absolute path.
std::string userModelsDir();

class Predictor {
 public:
  Predictor(XgbModel model, std::vector<std::string> featureSchema, TrainingMetadata meta);
  /// Loads "<dir>/<backend>.model" and its "<backend>.json" metadata; nullopt when there is none.
  /// Throws InputError for a corrupt model or a feature schema that does not match this build.
  static std::optional<Predictor> loadShipped(const std::string& backend, const std::string& dir = "");
  /// Writes <dir>/<backend>.model and <dir>/<backend>.json, each atomically (writeFileAtomically).
  void save(const std::string& dir) const;
  /// The files save() writes for `backend` in `dir`.
  static std::vector<std::string> files(const std::string& dir, const std::string& backend);
  /// Creates `dir` if needed and checks that save() can write there (requireWritableOutput), so a bad --out
  /// is refused before training rather than after. Throws InputError naming the folder or file.
  static void prepareOutput(const std::string& dir, const std::string& backend);

  /// Predicted end-to-end time in ns for each draft (batched model calls, coarse to fine; the result depends
  /// on the whole batch, so callers that must agree predict the same set in one call).
  std::vector<double> predictNs(const Problem& p, std::span<const Draft> drafts,
                                const CoarseToFine& plan = {}) const;
  /// The same predictions, checking `cancel` (when not null) between batches of a few thousand drafts:
  /// nullopt once it is set. The batches change no value (a draft's prediction depends on its own features,
  /// and the fine shortlist is still chosen over the whole set).
  std::optional<std::vector<double>> predictNs(const Problem& p, std::span<const Draft> drafts,
                                               const std::atomic<bool>* cancel,
                                               const CoarseToFine& plan = {}) const;
  const TrainingMetadata& metadata() const { return m_meta; }
  /// Expected error of a prediction, % (the validation MAPE).
  double expectedErrorPct() const { return m_meta.validationMape; }
  const XgbModel& model() const { return m_model; }
  std::string id() const;  // backend hash + training seed, names the model in the store

 private:
  XgbModel m_model;
  std::vector<std::string> m_schema;
  TrainingMetadata m_meta;
};

/// A shipped model and whether it describes the hardware it is asked about.
struct ShippedModel {
  std::shared_ptr<const Predictor> model;  // null when the backend's name ships no model
  /// The model's training metadata names this backend's hash(): it was trained on exactly these parameters,
  /// so its validation error describes its predictions. False for a what-if copy (same name, edited
  /// parameters) or a model trained before the backend changed: its predictions are then extrapolated, with
  /// no measured error.
  bool trainedOnThisBackend = false;
};

/// The shipped model of `backend.name`, loaded once per process and shared while its files are unchanged (the
/// explorer window starts an exploration per edit; a retrained model is picked up), with whether it was
/// trained on `backend` itself. No model when there is none; throws as Predictor::loadShipped.
ShippedModel sharedShippedModel(const Backend& backend);

/// A shipped model loading on its own thread: the models take 0.1-0.5 s to load, which can overlap draft
/// generation and the analytic screen (ExploreOptions::predictorSource).
class ShippedModelLoader {
 public:
  explicit ShippedModelLoader(const std::string& backend, const std::string& dir = "");
  ~ShippedModelLoader();
  ShippedModelLoader(const ShippedModelLoader&) = delete;
  ShippedModelLoader& operator=(const ShippedModelLoader&) = delete;
  /// Waits for the model; nullptr when there is none or it could not be loaded (error() says why).
  const Predictor* get();
  const std::string& error() const { return m_error; }

 private:
  std::optional<Predictor> m_model;
  std::string m_error;
  bool m_joined = false;
  std::thread m_thread;  // last: it writes the members above, which must be constructed before it starts
};

/// How many of the best predicted drafts the predictor strategy simulates to confirm (README, "Predictor"):
/// with the shipped models the deepest optimum of the hbm-pim and attacc suite shapes was the 45th prediction
/// (a near-tie within 0.06%), so 64 leaves a margin; confirming costs a few ms per draft, against the
/// 2x10^4-6x10^5 drafts the model ranks. The held-out suite checks it (README).
inline constexpr int kDefaultTopK = 64;
/// Beyond the top k, drafts predicted within this many expected errors (validation MAPE) of the best are
/// confirmed too, up to kDefaultMaxConfirm in all: near-ties the model cannot separate (README, "Predictor").
inline constexpr double kDefaultBandErrors = 2.0;
inline constexpr int kDefaultMaxConfirm = 80;

/// Indices of the `k` best (smallest) finite predictions, best first, ties broken by index: the drafts the
/// predictor strategy confirms by simulation. Shared by the explorer and the Table-4 evaluation so that both
/// report the same pick.
/// With `bandPct` > 0, further drafts predicted within `bandPct` % of the best prediction are added
/// (near-ties the model cannot separate), up to `kMax` drafts in all.
std::vector<std::size_t> bestPredicted(std::span<const double> predictedNs, std::size_t k, double bandPct = 0,
                                       std::size_t kMax = 0);

}  // namespace pim
