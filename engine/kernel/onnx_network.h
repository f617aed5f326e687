// SPDX-License-Identifier: Apache-2.0
// ONNX models as networks: PIMCOMP-NN's frontend (frontend/frontend.py) in C++, following
// ../shared/specs/crossbar.md, "Model input: the ONNX-derived node list". An .onnx file and the node list
// the frontend writes for it load to the same pim::Network: the reader makes that node list and hands it to
// parseNetworkJson, so an ONNX model passes every check a node-list file does.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/kernel/network.h"

namespace pim {

/// Largest .onnx file read: 1 GiB. A model carries its weights (the ONNX model zoo's VGG-16 is 528 MB) and
/// protobuf refuses messages of 2 GiB or more, so this only stops runaway inputs.
inline constexpr std::uintmax_t kMaxOnnxFileBytes = std::uintmax_t{1} << 30;

/// The node list (a parseNetworkJson document) PIMCOMP-NN's frontend makes of the ONNX model `bytes`:
/// - the first graph input that is not an initializer gets batch 1, then ONNX shape inference runs (strict,
///   with data propagation, so that a Shape-Gather-Unsqueeze-Concat chain gives its Reshape a static shape);
/// - nodes are named by their first output tensor; a graph input that is no initializer is an OP_INPUT;
///   Constant nodes and initializers are no providers; ops map by the frontend's table (Conv->OP_CONV,
///   Gemm->OP_FC, MaxPool/AveragePool/GlobalAveragePool->OP_POOL, Add/Sum/Mul->OP_ELTWISE eletype 2, Sub
///   eletype 4, ...), and any other op is refused with its node;
/// - reshape_info: the first FLATTEN/RESHAPE with a single FC consumer whose input is not 2-D;
/// - Shape-Gather-Unsqueeze-Concat chains are removed, Reshape-Transpose-Reshape becomes OP_SHUFFLE, a Pad
///   with one consumer that is a single-input CONV/POOL is merged into its pads, and a BatchNormalization,
///   Relu, Tanh or Sigmoid with one provider that is a CONV/FC with one consumer is folded into it (with_bn,
///   with_act, act_type 0/1/2), in the frontend's order.
/// Where the frontend reads less than ONNX allows, the reader completes it rather than write a list the
/// loader refuses: auto_pad SAME/VALID becomes explicit pads, a pool's ceil_mode becomes extra bottom/right
/// pad (the way Caffe-converted models write it), a Conv without kernel_shape takes its weight's.
/// Throws InputError, one line naming `origin`, the ONNX node and the field (names quoted printable), for
/// bytes that are no ONNX model, an unsupported op, a window size ONNX 1.12 would divide by unchecked (a zero
/// stride), a Conv weight whose channels are not the input's, a failed shape inference, a size left unknown,
/// or anything parseNetworkJson refuses in the result.
std::string onnxNodeListJson(std::string_view bytes, std::string_view origin);

/// parseNetworkJson(onnxNodeListJson(bytes, origin), origin).
Network parseOnnxNetwork(std::string_view bytes, std::string_view origin);

/// parseOnnxNetwork of the regular file `path` (at most kMaxOnnxFileBytes).
Network loadOnnxNetwork(const std::string& path);

/// A network file as the user names it: an ONNX model when the path ends in ".onnx", else a node list
/// (loadNetworkFile).
Network loadNetworkModelFile(const std::string& path);

}  // namespace pim
