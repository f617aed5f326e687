// SPDX-License-Identifier: Apache-2.0
// Features of a draft for the coupled predictor (DCC section 4.4): the draft configuration, analytic
// estimates of its data movement and command counts, and the backend parameters that scale them. Every
// feature is named and documented in docs/features.md; computing them never simulates and never enumerates
// cores.
#pragma once
#include <string>
#include <vector>

#include "engine/codegen/lowering.h"
#include "engine/search/problem.h"

namespace pim {

/// Names of the features, in vector order. The list is the model's feature schema.
const std::vector<std::string>& featureNames();
/// Features of `d` under the optimizer options `o` (rearrangement and command counts depend on them).
std::vector<float> draftFeatures(const Problem& p, const Draft& d, const OptimizerOptions& o = {});

}  // namespace pim
