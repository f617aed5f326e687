// SPDX-License-Identifier: Apache-2.0
// One convolution layer as the conv mapper sees it (docs/convmap.md "Workload"; pimopt 4): seven loops R, S,
// P, Q, C, K, N, stride and dilation per direction, bytes per element of each tensor. The input is the padded
// input; FC is R = S = P = Q = 1.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace pim::convmap {

enum ConvDim : int { R = 0, S, P, Q, C, K, N };
inline constexpr int kDims = 7;
inline constexpr std::array<std::string_view, kDims> kDimNames = {"R", "S", "P", "Q", "C", "K", "N"};

enum Tensor : int { Input = 0, Weight, Output };
inline constexpr int kTensors = 3;
inline constexpr std::array<std::string_view, kTensors> kTensorNames = {"input", "weight", "output"};

/// The relevance matrix (pimopt 4.1.2): R, S -> input, weight; P, Q -> input, output; C -> input, weight;
/// K -> weight, output; N -> input, output.
constexpr bool relevant(int dim, int tensor) {
  constexpr bool table[kDims][kTensors] = {{true, true, false}, {true, true, false}, {true, false, true},
                                           {true, false, true}, {true, true, false}, {false, true, true},
                                           {true, false, true}};
  return table[dim][tensor];
}

struct ConvLayer {
  std::string name = "conv";
  std::array<std::int64_t, kDims> bound{1, 1, 1, 1, 1, 1, 1};
  std::int64_t strideW = 1, strideH = 1, dilW = 1, dilH = 1;
  std::array<std::int64_t, kTensors> elementBytes{1, 1, 1};

  std::int64_t macs() const;
  /// Padded input width W_in = strideW*(P-1) + dilW*(R-1) + 1 and height H_in (S, Q).
  std::int64_t inputWidth() const { return windowExtent(bound[P], bound[R], strideW, dilW); }
  std::int64_t inputHeight() const { return windowExtent(bound[Q], bound[S], strideH, dilH); }
  /// Elements of a tensor (the input's padded extent).
  std::int64_t elements(int tensor) const;
  std::int64_t bytes(int tensor) const { return elements(tensor) * elementBytes[tensor]; }
  /// Elements of a tensor every mapping touches: the input's N*C*P*Q window origins (distinct input positions
  /// whatever the kernel and stride; a padded input's skipped columns are never needed), the whole weight and
  /// output. What the lower bound counts moved at least once.
  std::int64_t touchedElements(int tensor) const {
    return tensor == Input ? bound[N] * bound[C] * bound[P] * bound[Q] : elements(tensor);
  }

  /// Input columns (rows) a tile of `outputs` x `kernel` positions reads: stride*(outputs-1) +
  /// dil*(kernel-1) + 1.
  static constexpr std::int64_t windowExtent(std::int64_t outputs, std::int64_t kernel, std::int64_t stride,
                                             std::int64_t dil) {
    return stride * (outputs - 1) + dil * (kernel - 1) + 1;
  }
};

/// Largest bound, stride or dilation accepted (2^20): far above any published layer, and small enough that
/// every product the evaluator forms over seven bounds stays inside int64 once checked.
inline constexpr std::int64_t kMaxConvExtent = std::int64_t{1} << 20;

/// InputError "<origin>: <field>: ..." for a zero, negative or absurd bound, stride, dilation or element
/// size, or a layer whose tensors overflow 2^62 bytes. `origin` names where the layer came from.
void validate(const ConvLayer& layer, std::string_view origin);

/// "R3 S3 P56 Q56 C64 K128 N1 s1x1" (strides and dilations shown only when not 1).
std::string shapeText(const ConvLayer& layer);

}  // namespace pim::convmap
