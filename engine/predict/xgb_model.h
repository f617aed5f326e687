// SPDX-License-Identifier: Apache-2.0
// A small, safe C++ wrapper around the XGBoost C API: the gradient-boosted regressor DCC (sections 4.4 and 5)
// trains to predict a draft's execution time from its features. Training runs one boosting round at a time
// with early stopping on a validation split; the kept model holds only the trees up to the best iteration.
// XGBoost itself stays out of this header (it is a PRIVATE dependency of pimscope_engine).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pim {

/// Booster parameters. Defaults follow DCC section 5 (learning rate 0.1, depth 8, up to 5,000 rounds);
/// early stopping is our addition. Trees are always grown with tree_method=hist, which is deterministic
/// for a fixed seed whatever the thread count.
struct XgbParams {
  double learningRate = 0.1;     // eta, in (0, 1]
  int maxDepth = 8;              // >= 1
  int maxRounds = 5000;          // >= 1 boosting rounds
  int earlyStoppingRounds = 50;  // stop after this many rounds without a better validation RMSE; <= 0 = off
  double subsample = 1.0;        // row fraction per tree, in (0, 1]
  double colsampleBytree = 1.0;  // column fraction per tree, in (0, 1]
  double minChildWeight = 1.0;   // >= 0
  double lambda = 1.0;           // L2 regularisation on leaf weights, >= 0
  int threads = 0;               // 0 = all cores
  std::uint64_t seed = 42;       // must fit in int64 (XGBoost stores it signed)
  std::string objective = "reg:squarederror";
};

/// What one training did. RMSEs are those of the kept model (the best iteration).
struct TrainReport {
  int rounds = 0;                       // boosting rounds actually run
  int bestIteration = 0;                // 0-based; the model keeps rounds [0, bestIteration]
  double trainRmse = 0, validRmse = 0;  // validRmse = 0 when there is no validation set
  double seconds = 0;                   // wall-clock time of train()
};

/// A trained XGBoost booster (RAII over a BoosterHandle; movable, not copyable).
/// Errors: bad sizes, bad parameters, data XGBoost rejects and unreadable model bytes throw pim::InputError
/// with XGBoost's own message; other XGBoost failures throw std::runtime_error. Using a moved-from model
/// throws std::runtime_error. predict(), save(), featureCount() and bestIteration() may be called from
/// several threads at once (XGBoost's in-place prediction is thread-safe).
class XgbModel {
 public:
  /// Trains on `rows` x `cols` row-major features X with one label per row. NaN features are "missing".
  /// With a non-empty validation set (validRows rows of the same `cols`), early stopping watches its RMSE;
  /// with an empty one, all p.maxRounds rounds are kept.
  static XgbModel train(std::span<const float> X, std::size_t rows, std::size_t cols,
                        std::span<const float> y, std::span<const float> Xvalid, std::size_t validRows,
                        std::span<const float> yValid, const XgbParams& p, TrainReport* report = nullptr);

  /// One prediction per row, from the trees up to the best iteration, in one batched call; with `rounds` > 0
  /// from the first min(rounds, bestIteration() + 1) boosting rounds only. `cols` must equal featureCount().
  std::vector<float> predict(std::span<const float> X, std::size_t rows, std::size_t cols,
                             int rounds = 0) const;

  /// The model as UBJSON bytes (XGBoost's own model format) with the best iteration stored as an attribute.
  std::vector<std::uint8_t> save() const;
  /// Reads bytes written by save() (any XGBoost UBJSON model). The bytes are checked to be one well-formed
  /// UBJSON value before XGBoost sees them (its reader trusts declared lengths and nesting); anything else,
  /// including JSON text models and truncated or corrupted bytes, throws InputError.
  static XgbModel load(std::span<const std::uint8_t> bytes);

  std::size_t featureCount() const;
  int bestIteration() const;  // 0-based index of the last kept boosting round

  XgbModel(XgbModel&& other) noexcept;
  XgbModel& operator=(XgbModel&& other) noexcept;
  XgbModel(const XgbModel&) = delete;
  XgbModel& operator=(const XgbModel&) = delete;
  ~XgbModel();

 private:
  XgbModel(void* booster, std::size_t features, int bestIteration) noexcept
      : booster_(booster), features_(features), bestIteration_(bestIteration) {}
  void* handle() const;  // the BoosterHandle; throws on a moved-from model

  void* booster_ = nullptr;  // BoosterHandle (a void* in the C API)
  std::size_t features_ = 0;
  int bestIteration_ = 0;
};

}  // namespace pim
