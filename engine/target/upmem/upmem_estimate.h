// SPDX-License-Identifier: Apache-2.0
// UPMEM's analytic estimate of a candidate (ITarget::estimator): what the DPU model would say, from the
// draft's parts and choices alone, with no program built and nothing simulated. It screens large spaces,
// ranks candidates by compute for the compute-centric (TVM-like) search, and gives a predictor its features.
//
// Per DPU (the busiest: every part's per-unit extent): the templates' instructions (upmem_codegen.h) issued
// at one per cycle when enough tasklets are busy, else one per tasklet every pim.minTaskletCPI cycles; the
// DMAs at the DMA queue's service law; the kernel the slower of the two, plus the launch overhead. Host
// transfers at the host plan's rates (each rank's share at its rate, all ranks under the aggregate ceiling, a
// setup per call); a reduction split over DPUs merged by the host.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/estimator.h"
#include "engine/target/upmem/upmem_params.h"

namespace pim {

class Problem;

/// The estimate of `p`'s candidates; `optionsOf(id)` gives a candidate's code-generator options (its
/// kernel-level choices).
std::unique_ptr<ICandidateEstimator> makeUpmemEstimator(
    const Problem& p, const UpmemParams& params, std::function<UpmemCodegenOptions(std::uint64_t)> optionsOf);

/// The features it gives, in order.
const std::vector<std::string>& upmemFeatureNames();

}  // namespace pim
