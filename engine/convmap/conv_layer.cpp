// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/conv_layer.h"

#include "engine/common/checked.h"
#include "engine/common/error.h"

namespace pim::convmap {

std::int64_t ConvLayer::macs() const {
  std::int64_t m = 1;
  for (auto b : bound) m *= b;
  return m;
}

std::int64_t ConvLayer::elements(int tensor) const {
  switch (tensor) {
    case Input:
      return bound[N] * bound[C] * inputHeight() * inputWidth();
    case Weight:
      return bound[K] * bound[C] * bound[S] * bound[R];
    default:
      return bound[N] * bound[K] * bound[Q] * bound[P];
  }
}

namespace {
void requireExtent(std::int64_t v, std::string_view origin, std::string_view field, std::int64_t max) {
  if (v < 1 || v > max)
    throw InputError(std::string(origin) + ": " + std::string(field) + ": " + std::to_string(v) +
                     " is not a valid size (must be 1.." + std::to_string(max) + ")");
}
}  // namespace

void validate(const ConvLayer& layer, std::string_view origin) {
  for (int d = 0; d < kDims; ++d) requireExtent(layer.bound[d], origin, kDimNames[d], kMaxConvExtent);
  requireExtent(layer.strideW, origin, "stride_w", kMaxConvExtent);
  requireExtent(layer.strideH, origin, "stride_h", kMaxConvExtent);
  requireExtent(layer.dilW, origin, "dilation_w", kMaxConvExtent);
  requireExtent(layer.dilH, origin, "dilation_h", kMaxConvExtent);
  for (int t = 0; t < kTensors; ++t)
    requireExtent(layer.elementBytes[t], origin, std::string(kTensorNames[t]) + " bytes", 8);
  // Every product the evaluator forms is bounded by a tensor's bytes or the MAC count: check both once.
  const std::string what = std::string(origin) + ": " + shapeText(layer);
  std::int64_t macs = 1;
  for (auto b : layer.bound) macs = checkedMul(macs, b, what + ": MACs");
  if (macs > (std::int64_t{1} << 62))
    throw InputError(what + ": " + std::to_string(macs) + " MACs (above 2^62)");
  const auto w = checkedAdd(checkedMul(layer.strideW, layer.bound[P] - 1, what + ": input width"),
                            checkedMul(layer.dilW, layer.bound[R] - 1, what + ": input width"), what);
  const auto h = checkedAdd(checkedMul(layer.strideH, layer.bound[Q] - 1, what + ": input height"),
                            checkedMul(layer.dilH, layer.bound[S] - 1, what + ": input height"), what);
  std::int64_t in = checkedMul(layer.bound[N], layer.bound[C], what + ": input elements");
  in = checkedMul(in, checkedMul(w + 1, h + 1, what + ": input elements"), what + ": input elements");
  in = checkedMul(in, std::int64_t{8}, what + ": input bytes");
  if (in > (std::int64_t{1} << 62))
    throw InputError(what + ": input of " + std::to_string(in / 8) + " elements");
}

std::string shapeText(const ConvLayer& layer) {
  std::string s;
  for (int d = 0; d < kDims; ++d)
    s += (d ? " " : "") + std::string(kDimNames[d]) + std::to_string(layer.bound[d]);
  if (layer.strideW != 1 || layer.strideH != 1)
    s += " stride " + std::to_string(layer.strideW) + "x" + std::to_string(layer.strideH);
  if (layer.dilW != 1 || layer.dilH != 1)
    s += " dilation " + std::to_string(layer.dilW) + "x" + std::to_string(layer.dilH);
  return s;
}

}  // namespace pim::convmap
