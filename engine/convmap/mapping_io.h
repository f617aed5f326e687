// SPDX-License-Identifier: Apache-2.0
// Conv mappings and their costs as JSON (the `map --json` / `--out` form, read back by `rowtrace --mapping`):
//   {"hierarchy": "...", "layer": {"name", "R".."N", "stride_w", "stride_h", "dilation_w", "dilation_h",
//    "bytes": [i, w, o]}, "levels": [{"name", "factors": {"H": {"K": 4}, "Temporal": {"C": 8}},
//    "order": ["C", "K"] (inner to outer), "keep": ["input", ...]}], "layout": {"input": "row-aligned",
//    "weight": "sequential", "output": "sequential"}, "block": [h, w]}
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "engine/convmap/evaluator.h"

namespace pim::convmap {

nlohmann::json layerJson(const ConvLayer& layer);
nlohmann::json mappingJson(const Hierarchy& h, const ConvMapping& m);
nlohmann::json costJson(const Hierarchy& h, const ConvCost& c);

/// Reads a layer / mapping written by the functions above; InputError "<origin>: <path>: ..." for anything
/// malformed (the mapping's validity is checked separately by violations()).
ConvLayer parseLayerJson(const nlohmann::json& j, std::string_view origin);
ConvMapping parseMappingJson(const nlohmann::json& j, const Hierarchy& h, std::string_view origin);

/// "R=3,S=3,P=56,Q=56,C=64,K=128,N=1,stride=2,dilation=1" (also stride_w, stride_h, dilation_w, dilation_h,
/// bytes); dimensions not given are 1. InputError naming the bad item.
ConvLayer parseLayerDims(std::string_view text, std::string_view name);

}  // namespace pim::convmap
