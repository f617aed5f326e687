// SPDX-License-Identifier: Apache-2.0
// `map --db`: solved conv mappings in the results store (engine/store, docs/store.md), keyed by hierarchy
// hash, layer shape, objective and mapper; and `mappings`, which lists them.
#pragma once
#include <optional>
#include <string>

#include "app/cli/cli_common.h"
#include "engine/convmap/mapper.h"
#include "engine/store/store.h"

namespace pim::cli {

/// What the store holds for a key, checked.
struct StoredCheck {
  std::optional<convmap::MapResult> served;  // a proven optimum that still holds under today's model
  std::string note;                          // why a stored row was not served (empty: none, or served)
  bool invalid = false;  // the row does not read back or today's model disagrees: it may be replaced
};
/// The stored row for (hierarchy, layer, objective, mapper), served only when proven optimal, valid, and
/// re-evaluated to its stored objective.
StoredCheck checkStored(ResultsStore& store, const convmap::ConvLayer& layer, const convmap::Hierarchy& h,
                        const convmap::ObjectiveSpec& o, const std::string& mapper);
/// Stores `r`, found by the mapper named `mapper` (its key; r.mapper may say more: "auto (exhaustive)"),
/// unless a better row is there (`replace`: whatever is there); returns whether it was written.
bool storeMapping(ResultsStore& store, const convmap::ConvLayer& layer, const convmap::Hierarchy& h,
                  const convmap::ObjectiveSpec& o, const std::string& mapper, const convmap::MapResult& r,
                  bool replace);

}  // namespace pim::cli
