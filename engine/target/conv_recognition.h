// SPDX-License-Identifier: Apache-2.0
// A kernel of the DSL as one conv or FC layer (docs/convmap.md "Workload"), for every family that runs single
// layers (pim-hierarchy maps it, crossbar compiles it as a one-layer network): which tensor
// is the input, the weight and the output, and which loop is each of R, S, P, Q, C, K, N, read from the
// relevance of each loop to the three tensors (conv_layer.h's matrix) rather than from names, so any kernel
// written as O += W * I with the model's tensor layouts is recognised and anything else is refused with the
// reason.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "engine/convmap/conv_layer.h"
#include "engine/kernel/kernel.h"

namespace pim {

struct ConvPattern {
  std::array<int, convmap::kTensors> tensor{-1, -1, -1};  // kernel tensor of the input, weight, output
  std::array<int, convmap::kDims> loop{-1, -1, -1, -1, -1, -1, -1};  // kernel loop per ConvDim; -1: bound 1
  std::int64_t strideW = 1, strideH = 1, dilW = 1, dilH = 1;
  /// Per tensor (input, weight, output), the dimension each of its indices runs over in order; the input's
  /// height and width (a window or a plain loop) count as Q and P.
  std::array<std::vector<int>, convmap::kTensors> indexDims;
};

/// The layer `k` computes, or the reason it is none: "kernel 'red' is not a convolution or FC layer: ...".
/// The kernel must be one guard-free statement O[..] += W[..] * I[..] (either operand order) whose loops
/// each index two of the tensors: K the weight and output, C the input and weight, N the input and output
/// plainly, P and Q the input (in a sliding window stride*p + dilation*r) and output, R and S the input's
/// window and the weight. Indices follow the model's layouts: input N, C, H, W; weight K, C, S, R; output N,
/// K, Q, P (dimensions of extent 1 may be left out). Without a window (FC) the weight is the operand declared
/// resident, else the first one.
std::variant<ConvPattern, std::string> recogniseConv(const Kernel& k);

/// The layer of `k` at `s`: bounds from the loops, element bytes from the tensors' types. InputError
/// naming the kernel when a tensor's extents at `s` are not the ones the model lays out (the input is the
/// padded input: stride * (P - 1) + dilation * (R - 1) + 1 wide) or the layer is outside the model's limits.
convmap::ConvLayer convLayerOf(const Kernel& k, const ConvPattern& p, const Shape& s);

}  // namespace pim
