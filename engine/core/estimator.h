// SPDX-License-Identifier: Apache-2.0
// A family's analytic estimate of its candidates: cheap (it never simulates), it screens spaces too large to
// predict, ranks candidates by compute alone (the compute-centric search) and gives the coupled predictor its
// features. Each target supplies its own (ITarget::estimator), so a model is trained on its family's
// features.
#pragma once
#include <vector>

#include "engine/schedule/draft_space.h"

namespace pim {

/// An estimate's two figures: the candidate's end-to-end time and its compute phase alone. Floats, as
/// features.
struct CandidateEstimate {
  float totalNs = 0;
  float computeCycles = 0;
};

/// Built for one problem and optimizer setting (ITarget::estimator); const and safe to share between threads.
class ICandidateEstimator {
 public:
  virtual ~ICandidateEstimator() = default;
  /// Appends the features of `d` to `out`, in the order of the target's featureNames().
  virtual void features(const Draft& d, std::vector<float>& out) const = 0;
  virtual CandidateEstimate estimate(const Draft& d) const = 0;
};

}  // namespace pim
