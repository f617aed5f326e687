// SPDX-License-Identifier: Apache-2.0
// How far a model's predictions can be trusted on one problem: whether the problem lies inside what the model
// was trained on (kernel, backend parameters, shapes), and the error measured on the run's own
// confirmations (predicted against simulated). The window's row provenance and status bar and the CLI's
// `explore` report both; the predictor strategy confirms more drafts when either says the model is unsure.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "engine/core/problem.h"
#include "engine/predict/predictor.h"

namespace pim {

/// Above this measured error (%), or out of distribution, the predictor strategy confirms more drafts.
inline constexpr double kConfirmMoreErrorPct = 5.0;

/// Whether `p` lies inside the model's training data, by its metadata.
struct ModelFit {
  /// Why the problem is out of distribution, one plain sentence each; empty: in distribution as far as the
  /// metadata tells (see shapesKnown).
  std::vector<std::string> reasons;
  /// The metadata records the training shapes (models trained before it did have no shape range, so a
  /// shape outside it cannot be told).
  bool shapesKnown = false;
  /// The model saw no kernel computing this one (by name or computation): its features then come from
  /// templates it never learned, so a family's analytic estimate ranks the drafts instead (Explorer).
  bool kernelUnknown = false;
  bool outOfDistribution() const { return !reasons.empty(); }
  std::string text() const;  // the reasons joined with "; "
};

/// Out of distribution when the kernel is not one the model saw (by name and by computation: a DSL kernel
/// named like a library kernel that computes something else is not), the backend's parameters are not
/// those it was trained on, or a dimension lies outside the range it was trained on (when recorded). Which
/// tensors the training runs kept resident is not recorded, so residency is not judged.
ModelFit modelFit(const Problem& p, const TrainingMetadata& m);

/// Prediction error measured on one run's confirmations: drafts with a prediction and a complete simulation
/// (a bounded confirmation's lower bound is no simulated time).
struct MeasuredError {
  std::size_t confirmations = 0;
  double sumAbsPct = 0, sumPct = 0, worstPct = 0;
  void add(double predictedNs, double simulatedNs);
  /// Mean absolute percentage error, % (0 without confirmations).
  double mapePct() const;
  /// Mean signed error (predicted - simulated) / simulated, %: negative when the model predicts too fast.
  double biasPct() const;
};

/// One line for the CLI and the window: "±2.1% measured on 64 confirmations (mean -1.0%, worst 5.3%)", or
/// "error not measured yet (no confirmation)"; then "; out of distribution: <reasons>" when `fit` says so.
std::string predictionAccuracyText(const MeasuredError& e, const std::vector<std::string>& outOfDistribution);

}  // namespace pim
