// SPDX-License-Identifier: Apache-2.0
// Parsing JSON a user gave us (backend files, schedule files, suites, model metadata). nlohmann's DOM parser
// recurses once per nesting level (a million nested arrays overflow the stack), silently keeps the last of
// two equal keys (a second "energy.ACT" changed a backend's energy 43x) and throws a raw out_of_range for a
// number such as 1e400. This reader builds the same json through nlohmann's SAX interface and refuses all
// three with one line naming the file and the place.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace pim {

/// Deepest nesting of objects and arrays accepted: 256. Shipped files nest at most 5 levels (a schedule
/// file's embedded backend); 256 is far above any honest file and far below a stack overflow
/// (docs/knobs.md).
inline constexpr int kMaxJsonDepth = 256;

/// Parses `text`; every error is an InputError starting with `origin`:
///   "<origin>: line L, column C: invalid JSON: <what>"   syntax, a number out of range, nesting too deep
///   "<origin>: <key path>: duplicate key ..."            a key given twice in one object ("energy.ACT")
/// Json: nlohmann::json or nlohmann::ordered_json (instantiated for both).
template <class Json = nlohmann::json>
Json parseJsonInput(std::string_view text, std::string_view origin, int maxDepth = kMaxJsonDepth);

/// readInputFile(path, what) then parseJsonInput(text, path).
template <class Json = nlohmann::json>
Json readJsonFile(const std::string& path, std::string_view what);

/// "line L, column C" of a byte offset into `text` (0-based).
std::string lineColumnAt(std::string_view text, std::size_t offset);

/// A key's path inside a JSON document as messages print it: "energy" + "ACT" is "energy.ACT".
std::string jsonPathJoin(std::string_view base, std::string_view key);

}  // namespace pim
