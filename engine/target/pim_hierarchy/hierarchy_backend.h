// SPDX-License-Identifier: Apache-2.0
// Backend files of family pim-hierarchy (docs/backends.md, docs/convmap.md): a backend names a conv-mapping
// hierarchy file (datasets/hierarchies/*.json) and the loader turns every number of that file into a
// declared parameter, so the numbers live in one place while --set and the what-if dock change them like any
// backend's. Keys: hierarchy.element_bytes, pe_array.<field>, dram_timing.<field> and <level name>.<field>
// (one section per memory level, as the hierarchy names it).
#pragma once
#include "engine/convmap/hierarchy.h"
#include "engine/hw/backend.h"

namespace pim {

/// The family's schema: the section "hierarchy" with its text field "file" (a shipped hierarchy's name, or
/// a path relative to the backend file) and every number of that hierarchy (convmap::hierarchyFields()),
/// taken from the file unless the backend gives it.
BackendSchema pimHierarchySchema();

/// The hierarchy `b` describes: its file's, with `b`'s parameters applied and checked across fields.
/// InputError naming the backend's file and the field.
convmap::Hierarchy hierarchyOf(const Backend& b);

}  // namespace pim
