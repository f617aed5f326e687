// SPDX-License-Identifier: Apache-2.0
// The DRAM-PIM target's estimate (ITarget::estimator): features of a draft for the coupled predictor (DCC
// section 4.4): the draft configuration, analytic estimates of its data movement and command counts, and the
// backend parameters that scale them. Every feature is named and documented in docs/features.md; computing
// them never simulates and never enumerates cores.
#pragma once
#include <string>
#include <vector>

#include "engine/codegen/lowering.h"
#include "engine/core/estimator.h"
#include "engine/core/problem.h"

namespace pim {

/// Names of the features, in vector order. The list is the DRAM-PIM models' feature schema.
const std::vector<std::string>& dramPimFeatureNames();
/// Computes features of many drafts of one problem: everything that does not depend on the draft (extents,
/// which set each tensor axis belongs to, the operands of every statement) is worked out once. The estimate
/// is two of the features: est_total_ns and est_compute_cycles.
class FeatureExtractor final : public ICandidateEstimator {
 public:
  FeatureExtractor(const Problem& p, const OptimizerOptions& o = {});
  void features(const Draft& d, std::vector<float>& out) const override;
  CandidateEstimate estimate(const Draft& d) const override;

 private:
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
};

}  // namespace pim
