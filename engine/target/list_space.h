// SPDX-License-Identifier: Apache-2.0
// A candidate space that is a fixed list (a family whose candidates are not DCC's drafts: a layer's mappings,
// a layer's compiles): ids index the list, every candidate is kept, and DCC's prune rules are listed as not
// in force.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "engine/core/candidate_space.h"

namespace pim {

struct CandidateList {
  std::function<std::uint64_t()> size;  // may make the list on first call
  std::function<std::string(std::uint64_t)>
      label;               // InputError naming the valid range for an id past the end
  std::string labelTitle;  // "Mapping | layout"
  std::string reason;      // why every candidate is kept, for the Why pruned tab
};

std::unique_ptr<ICandidateSpace> makeListSpace(CandidateList list, const PruneRuleRegistry& rules);

}  // namespace pim
