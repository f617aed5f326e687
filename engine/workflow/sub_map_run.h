// SPDX-License-Identifier: Apache-2.0
// A mapping file of several sub-maps (CoMoNM section IV-C, Fig. 8b), run: each sub-map is the draft of its
// box of the iteration space (engine/mapping/sub_map_layout.h), with its own level 3 (tasklets) and the
// file's choices, evaluated as a problem of its own (the kernel with its loops restricted to the box); the
// sub-maps run one after another on the same machine in the order of their indices, so their times, energies
// and per-unit statistics add. Where sub-maps split a reduction, several write the same outputs: the host
// adds those partial results (one addition per extra partial, at the backend's pim.hostMergeGops), counted in
// the output rearrangement. A family without a host merge rate refuses such a split by name.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/evaluation.h"
#include "engine/core/problem.h"
#include "engine/mapping/sub_map_layout.h"

namespace pim {

struct SubMapRun {
  std::string name;  // "M2"
  SubMapBox box;
  std::unique_ptr<Problem> problem;  // the kernel over the box, on the backend with the map's settings
  Draft draft;
  std::string draftLabel;
  std::vector<std::string> notes;                        // mappedSchedule's, one line each
  std::vector<std::pair<std::string, double>> settings;  // mappingSettings': the map's tasklets, the block
  Evaluation evaluation;
};

struct MappingRun {
  std::vector<SubMapRun> subMaps;   // in execution order
  std::int64_t mergedPartials = 0;  // host additions of partial results the sub-maps leave
  std::int64_t mergeCycles = 0;     // their time, in the evaluations' tCK
  Evaluation total;                 // the sub-maps' evaluations added, with the merge
};

/// Runs every sub-map of `m` for kernel `full.kernel()` at `full.shape()` on `full.backend()` (the user's
/// settings applied; each map's own, mappingSettings, on top), with `full.residency()`. Throws InputError
/// with the place in the file for a layout or a map that breaks a rule, and for a reduction split across
/// sub-maps on a backend without pim.hostMergeGops.
MappingRun runSubMaps(const MappingSpec& m, const Problem& full, const EvalOptions& o);

/// What `run` did, a line each, as `simulate` and the window print it: per sub-map "M1 over [192, 512) x
/// [640, 960) (b=1,out=320,in=320, pim.tasklets=1), draft <label>: 185439 cycles (529.8 us)", then the
/// host's merge when there is one.
std::vector<std::string> subMapLines(const MappingRun& run);

}  // namespace pim
