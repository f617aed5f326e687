// SPDX-License-Identifier: Apache-2.0
// DCC's lookup table (section 4.4) in the results store: the best draft found for a problem, served instead
// of a search the next time the same problem is asked. `explore --db` and the LLM runs read and write it
// through these three, so a row written by one serves the other.
#pragma once
#include <optional>
#include <string>

#include "engine/search/explorer.h"
#include "engine/store/store.h"

namespace pim {

/// What lookup rows of `b` are keyed by: its numbers' hash and its family's cost-model version (a pick found
/// under another version of the model may no longer be the best).
std::string lookupBackendKey(const Backend& b);

/// The stored pick of `p`, if it still is one. A row names only a draft id, and the store is a file anyone
/// may edit: a draft that is not in the problem's space, is pruned there, or cannot run is not served (and
/// `ignored`, when given, says why). The time served is always re-simulated with `eo.eval`.
std::optional<DraftRecord> verifiedLookup(const Problem& p, ResultsStore& store, const ExploreOptions& eo,
                                          std::string* ignored = nullptr);

/// Records `best` (a simulated draft of `p`'s space) as `p`'s pick; `source` is "model" when a predictor
/// ranked the drafts, else "simulated".
void recordLookup(ResultsStore& store, const Problem& p, const DraftRecord& best, const std::string& source);

}  // namespace pim
