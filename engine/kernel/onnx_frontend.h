// SPDX-License-Identifier: Apache-2.0
// The part of the ONNX reader (engine/kernel/onnx_network.h) that is PIMCOMP-NN's frontend.py: its op table
// and its passes over a graph whose shapes ONNX inferred (../shared/specs/crossbar.md, "Model input: the
// ONNX-derived node list"). Internal to engine/kernel: only onnx_network.cpp and onnx_frontend.cpp include
// it.
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pim::onnx_frontend {

/// The node-list operation frontend.py maps ONNX op `onnxOp` to ("Conv" -> "OP_CONV"), or nullopt.
std::optional<std::string_view> pimcompOp(std::string_view onnxOp);

/// The ONNX ops frontend.py maps, sorted and comma-separated, for a message.
std::string pimcompOpList();

/// A name from the file as a message quotes it: control characters as \xNN, at most 80 characters ("..."),
/// so that a message stays one readable line whatever the file holds.
std::string printable(std::string_view s);

/// A tensor's sizes, or nullopt when one is unknown (no shape, a symbolic or non-positive size).
std::optional<std::vector<std::int64_t>> knownDims(const onnx::ValueInfoProto& v);

/// frontend.py's produce_info and optimize_model on `g`, whose nodes checkOnnxNodes accepted and whose
/// shapes ONNX inferred: the node-list document (node_list, reshape_info). Throws InputError "<origin>:
/// ONNX node I 'NAME' (OP): field: problem" (or "graph input 'NAME'") when a size it needs is unknown or an
/// attribute has no node-list form.
nlohmann::json pimcompNodeList(const onnx::GraphProto& g, std::string_view origin);

}  // namespace pim::onnx_frontend
