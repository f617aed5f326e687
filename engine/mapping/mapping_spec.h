// SPDX-License-Identifier: Apache-2.0
// CoMoNM's mapping specification (CoMoNM section IV-C; upmem.md, "Mapping specification"): how a kernel's
// N-dimensional iteration space is divided over K levels of compute units. A map is K+1 tuples of N entries:
// entry j of tuple i (i <= K) divides dimension j at level i, and the last tuple is what one leaf unit runs.
// A space may be cut into sub-maps (M1, M2, ...) executed in the order of their indices.
//
// Two forms are read, both one file:
//   text, CoMoNM's Fig. 8:  Upmem_map: [ M1: {(2, 9), (64, 1), (2, 4), (2, 32)} ]     ('#' starts a comment)
//   JSON:  {"target": "upmem", "maps": [{"name": "M1", "levels": [[2,9],[64,1],[2,4],[2,32]]}],
//           "block_bytes": 1024, "choices": {"operand_caching": "kept in WRAM"}}
//          (optional: the WRAM block, and the target's other kernel-level choices by their axis keys, each
//          value as its label says it or as a number)
// Errors name the file and, in the text form, line and column; in JSON the key's path.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pim {

/// Where a piece of a mapping file is: the file and a 1-based line and column (text form) or a JSON path.
struct MappingPlace {
  std::string file;
  int line = 0, column = 0;  // 0: not known (JSON form)
  std::string path;          // JSON form: "maps[0].levels[2]"
  /// "map.txt:3:14" or "map.json: maps[0].levels[2]".
  std::string str() const;
};

struct MappingTuple {
  std::vector<std::int64_t> entries;  // one per dimension of the iteration space, each >= 1
  MappingPlace at;
};

struct MappingMap {
  std::string name;  // "M1"
  int index = 0;     // 1 for M1: execution order
  std::vector<MappingTuple> tuples;
  MappingPlace at;
};

/// A kernel-level choice beside the map (JSON "choices"): the key of one of the target's choice axes
/// (engine/core/kernel_choices.h) and a value, as a label says it ("kept in WRAM") or as a number (16).
struct MappingChoice {
  std::string key;
  std::string text;                   // empty when the value is a number
  std::optional<std::int64_t> value;  // the number, when given as one
  MappingPlace at;
  /// "\"kept in WRAM\"" or "16", as written.
  std::string valueText() const;
};

struct MappingSpec {
  std::string target;  // as written: "Upmem", "Hbmpim" (text) or the JSON "target"
  std::vector<MappingMap> maps;
  std::optional<std::int64_t> blockBytes;  // JSON "block_bytes": WRAM caching block per operand (UPMEM)
  std::vector<MappingChoice> choices;      // JSON "choices", in the file's order
  std::string file;
};

/// Throws InputError "<file>:<line>:<col>: <what was expected>, found '<text>'".
MappingSpec parseMappingText(std::string_view text, const std::string& file);
/// Throws InputError "<file>: <path>: <problem>" (and parseJsonInput's errors for malformed JSON).
MappingSpec parseMappingJson(std::string_view text, const std::string& file);
/// The JSON form when the first non-blank character is '{', CoMoNM's notation otherwise.
MappingSpec parseMapping(std::string_view text, const std::string& file);
/// Reads a regular file (readInputFile) and parses it (parseMapping).
MappingSpec readMappingFile(const std::string& path);

}  // namespace pim
