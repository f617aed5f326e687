// SPDX-License-Identifier: Apache-2.0
// A draft named by its parts on the command line: "parts:[[16,64,3],[1,1,0]]", so a draft from another tool
// runs without knowing PIMScope's ids. The text is a list of integer triples; what the third number means
// (PIMScope's representative index or DCC's per-core tile) is the caller's.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/schedule/draft_space.h"

namespace pim {

using PartTriple = std::array<std::int64_t, 3>;

/// Parses "[[a,b,c],[d,e,f],...]" (spaces allowed, "parts:" prefix optional). Throws InputError naming the
/// character position and what was expected.
std::vector<PartTriple> parsePartsText(std::string_view text);

/// PIMScope's form: one (groups, cores per group, representative index) per dimension set, in the space's
/// part order. Throws InputError naming the part and what is wrong (count, range, allocation).
Draft draftFromParts(const DraftSpace& space, std::span<const PartTriple> parts);

}  // namespace pim
