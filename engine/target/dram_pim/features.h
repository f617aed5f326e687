// SPDX-License-Identifier: Apache-2.0
// The DRAM-PIM target's estimate (ITarget::estimator): features of a draft for the coupled predictor (DCC
// section 4.4): the draft configuration, analytic estimates of its data movement and command counts, and the
// backend parameters that scale them. Every feature is named and documented in docs/features.md; computing
// them never simulates and never enumerates cores.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/codegen/lowering.h"
#include "engine/core/estimator.h"
#include "engine/core/problem.h"

namespace pim {

/// Names of the features, in vector order. The list is the DRAM-PIM models' feature schema.
const std::vector<std::string>& dramPimFeatureNames();
/// Computes features of many drafts of one problem: everything that does not depend on the draft (extents,
/// which set each tensor axis belongs to, the operands of every statement, the host's bytes) is worked out
/// once, and the terms of each part's last choice are kept per thread for the next draft that makes it (the
/// pruner's walk changes the inner parts most often). The same floats as computing everything per draft. The
/// estimate is two of the features: est_total_ns and est_compute_cycles.
class FeatureExtractor final : public ICandidateEstimator {
 public:
  FeatureExtractor(const Problem& p, const OptimizerOptions& o = {});
  void features(const Draft& d, std::vector<float>& out) const override;
  CandidateEstimate estimate(const Draft& d) const override;

  static constexpr int kMaxParts = 4;  // the feature schema has room for four parts

 private:
  /// What one part's choice contributes to every draft that makes it.
  struct PartTerms {
    double padding = 0;
    std::array<float, 7> features{};  // the part's seven features, in schema order
    /// Per tensor: the product of the tile factors of its axes in the part's dimension set (1 if none).
    std::vector<double> tileFactor;
  };
  /// The draft-level quantities the features and the estimate are written from.
  struct DraftTerms;
  const PartTerms& partTerms(int part, const PartChoice& c) const;
  /// Fills `parts` with each part's terms (null past the space's parts) on the way.
  DraftTerms draftTerms(const Draft& d, std::array<const PartTerms*, kMaxParts>& parts) const;

  struct Statement {
    int target = -1;
    std::vector<int> operands;  // non-scalar operand tensors
    bool softmax = false, accumulate = false, reduce = false;
  };
  const Problem& m_problem;
  OptimizerOptions m_options;
  std::vector<std::vector<std::int64_t>> m_extents;  // per tensor, per axis
  std::vector<std::vector<int>> m_setOf;             // per tensor, per axis: dimension set or -1
  std::vector<double> m_fullElems, m_dtypeBytes;
  std::vector<Statement> m_statements;
  // The backend's numbers, looked up once: extraction runs for 10^5-10^6 drafts per exploration.
  double m_macSpacing = 0;
  bool m_hasAccumulator = false;
  std::vector<bool> m_streamed;            // per tensor: moved from and to the host on every call
  double m_hostRead = 0, m_hostWrite = 0;  // bytes the host moves per call
  double m_hostReadBursts = 0, m_hostReadBurstsPerGroup = 0, m_hostWriteBurstsPerGroup = 0;
  struct SetAxis {
    std::size_t tensor;
    double extent;
  };
  std::vector<std::vector<SetAxis>> m_axesOfSet;  // per dimension set: its tensor axes
  /// Per tensor: the product of the extents of its axes outside the drafts' parts (whole in every tile).
  std::vector<double> m_wholeAxesTile;
  std::uint64_t m_instance;  // tells this extractor's cached part terms from another's
};

}  // namespace pim
