// SPDX-License-Identifier: Apache-2.0
// A compiled layer (engine/target/crossbar/layer_candidates.h) as the common Evaluation: its time in the
// compute phase (LL: the latency of one inference; HT: the first sample's, one pipeline stage), split by the
// slowest core's MVM, vector, memory and communication time; energy by component; per-core statistics; the
// figures the drafts table shows beside them. Also the listing the details pane shows.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/target/crossbar/layer_candidates.h"
#include "engine/target/target.h"

namespace pim {

const std::vector<SubPhaseDecl>& crossbarSubPhases();
/// The per-candidate figures of the drafts table (Evaluation::facts keys).
const std::vector<StatDecl>& crossbarFactColumns();

/// Evaluation of candidate `id` from its compile `r`.
Evaluation layerEvaluation(const NetworkCompileResult& r, std::uint64_t id, const EvalOptions& o);

/// Candidate `id` compiled once: its evaluation, and its listing (what was compiled, its figures, what was
/// left out and the program's first instructions, at most `maxLines` lines).
struct LayerAnalysis {
  Evaluation evaluation;
  std::string listing;
};
LayerAnalysis analyseLayer(const CrossbarLayerContext& c, std::uint64_t id, const EvalOptions& o,
                           std::size_t maxLines);

}  // namespace pim
