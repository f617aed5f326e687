// SPDX-License-Identifier: Apache-2.0
// A CoMoNM mapping specification (engine/mapping/mapping_spec.h) as a PIMScope schedule: levels 1 and 2
// (UPMEM: ranks and DPUs per rank; the DRAM-PIM families: PIM groups and cores per group) become a draft's
// groups and cores per dimension set, level 3 the kernel-level choice beside it (UPMEM: tasklets per DPU; the
// DRAM-PIM families: lanes, which their code generators lay along the contiguous dimension themselves), and
// the last tuple is each leaf's share. Every rule a mapping breaks is refused with its place in the file.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "engine/core/problem.h"
#include "engine/mapping/mapping_spec.h"

namespace pim {

/// The backend parameters a mapping sets beside its draft, as (name, value) to apply before the problem is
/// built: UPMEM's pim.tasklets (level 3) and pim.blockBytes (block_bytes); none for a family without them.
/// Throws InputError naming the place when the map's shape or level 3 breaks a rule the backend states.
std::vector<std::pair<std::string, double>> mappingSettings(const MappingSpec& m, const Backend& b);

struct MappedSchedule {
  Draft draft;
  std::vector<std::string> notes;  // what the conversion decided, one line each
};

/// The draft of `m` on `p` (built with mappingSettings applied). Throws InputError naming the place in the
/// file and the rule: one map only (sub-maps run one after another, which a draft cannot say), K+1 tuples,
/// one entry per loop of the kernel, every dimension's product equal to its extent, no more units than a
/// level has, at most one split loop per dimension set. The file's "choices" make it a candidate of the
/// target's kernel-level choices (every axis it does not name at the backend's own value); a key that is no
/// axis of the target, a value the axis does not take, or tasklets and tile_bytes (level 3 and
/// "block_bytes" say them) are refused with their place.
MappedSchedule mappedSchedule(const MappingSpec& m, const Problem& p);

/// Draft `d` of `p` with `threads` at level 3 (UPMEM: tasklets; 1 for the DRAM-PIM families' lanes) in
/// CoMoNM's notation, one map: "Upmem_map: [ M1: {(1, 2, 9), (1, 64, 1), (1, 2, 4), (1, 2, 32)} ]", which
/// mappedSchedule reads back to the same draft. `text` is empty and `reason` says why when the notation
/// cannot say the draft exactly (a split that leaves unequal tiles, a dimension indexed other than by its
/// loop). When the candidate makes kernel-level choices the notation cannot say (a tile, a split or code
/// other than the backend's own), `json` is the JSON form with them ("block_bytes", "choices"), which reads
/// back to a candidate that runs the same program; empty otherwise.
struct MappingText {
  std::string text, reason, json;
};
MappingText mappingTextOf(const Problem& p, const Draft& d, int threads);

}  // namespace pim
