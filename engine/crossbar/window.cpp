// SPDX-License-Identifier: Apache-2.0
#include "engine/crossbar/window.h"

#include <algorithm>
#include <string>

#include "engine/common/error.h"

namespace pim::crossbar {
namespace {

// The first index >= 0 of a window start s*o - pad + (k-1)*d reaching `in`, i.e. ceil((in + pad -
// (k-1)*d)/s).
std::int64_t firstCovering(std::int64_t in, std::int64_t pad, std::int64_t span, std::int64_t stride) {
  const std::int64_t num = in + pad - span;
  return num <= 0 ? 0 : (num + stride - 1) / stride;
}

// The output coordinate fed by input coordinate `in` through kernel tap `k`, or -1.
std::int64_t outputAt(std::int64_t in, std::int64_t k, std::int64_t pad, std::int64_t dilation,
                      std::int64_t stride, std::int64_t extent) {
  const std::int64_t n = in + pad - k * dilation;
  if (n < 0 || n % stride != 0 || n / stride >= extent) return -1;
  return n / stride;
}

}  // namespace

Window windowOf(const NetworkNode& n) {
  Window w;
  w.inH = n.input_dim.size() == 4 ? n.input_dim[2] : 1;
  w.inW = n.input_dim.size() == 4 ? n.input_dim[3] : 1;
  w.outH = n.output_dim.size() == 4 ? n.output_dim[2] : 1;
  w.outW = n.output_dim.size() == 4 ? n.output_dim[3] : 1;
  if (n.op == NetworkOp::Conv) {
    const ConvParams& c = n.conv;
    w.kernelH = c.kernel_h, w.kernelW = c.kernel_w, w.strideH = c.stride_h, w.strideW = c.stride_w;
    w.padTop = c.pad_h0, w.padLeft = c.pad_w0, w.dilationH = c.dilation_h, w.dilationW = c.dilation_w;
  } else {
    const PoolParams& p = n.pool;
    w.kernelH = p.global ? w.inH : p.kernel_h;
    w.kernelW = p.global ? w.inW : p.kernel_w;
    w.strideH = p.stride_h, w.strideW = p.stride_w, w.padTop = p.pad_h0, w.padLeft = p.pad_w0;
  }
  return w;
}

void Window::inputsOf(std::int64_t out, std::vector<std::int64_t>& pixels) const {
  pixels.clear();
  const std::int64_t oh = out / outW, ow = out % outW;
  for (std::int64_t kh = 0; kh < kernelH; ++kh) {
    const std::int64_t ih = oh * strideH - padTop + kh * dilationH;
    for (std::int64_t kw = 0; kw < kernelW; ++kw) {
      const std::int64_t iw = ow * strideW - padLeft + kw * dilationW;
      pixels.push_back(ih >= 0 && ih < inH && iw >= 0 && iw < inW ? ih * inW + iw : -1);
    }
  }
}

void Window::outputsOf(std::int64_t in, std::vector<std::int64_t>& pixels) const {
  pixels.clear();
  const std::int64_t ih = in / inW, iw = in % inW;
  const std::int64_t spanH = (kernelH - 1) * dilationH, spanW = (kernelW - 1) * dilationW;
  const std::int64_t lastH = std::min(outH - 1, (ih + padTop) / strideH);
  const std::int64_t lastW = std::min(outW - 1, (iw + padLeft) / strideW);
  for (std::int64_t oh = firstCovering(ih, padTop, spanH, strideH); oh <= lastH; ++oh) {
    const std::int64_t dh = ih - (oh * strideH - padTop);
    if (dh % dilationH != 0) continue;
    for (std::int64_t ow = firstCovering(iw, padLeft, spanW, strideW); ow <= lastW; ++ow) {
      if ((iw - (ow * strideW - padLeft)) % dilationW == 0) pixels.push_back(oh * outW + ow);
    }
  }
}

bool isInputPixelWindow(const Unfolding& u) { return u.w.kernelPower == 2; }

void Window::scatterInputs(const Unfolding& u, std::int64_t window, std::vector<std::int64_t>& pixels) const {
  pixels.clear();
  if (isInputPixelWindow(u)) {
    pixels.push_back(window);
    return;
  }
  const std::int64_t outRow = window / inW, column = window % inW;  // IK,OK,1
  for (std::int64_t kh = 0; kh < kernelH; ++kh) {
    const std::int64_t row = outRow * strideH - padTop + kh * dilationH;
    pixels.push_back(row < 0 || row >= inH ? -1 : row * inW + column);
  }
}

void Window::scatterTargets(const Unfolding& u, std::int64_t window,
                            std::vector<std::pair<std::int64_t, std::int64_t>>& targets) const {
  targets.clear();
  const std::int64_t column = window % inW;
  if (isInputPixelWindow(u)) {
    const std::int64_t row = window / inW;
    for (std::int64_t kh = 0; kh < kernelH; ++kh) {
      const std::int64_t oh = outputAt(row, kh, padTop, dilationH, strideH, outH);
      for (std::int64_t kw = 0; oh >= 0 && kw < kernelW; ++kw) {
        const std::int64_t ow = outputAt(column, kw, padLeft, dilationW, strideW, outW);
        if (ow >= 0) targets.emplace_back(kh * kernelW + kw, oh * outW + ow);
      }
    }
    return;
  }
  const std::int64_t oh = window / inW;  // IK,OK,1: the window's output row
  for (std::int64_t kw = 0; kw < kernelW; ++kw) {
    const std::int64_t ow = outputAt(column, kw, padLeft, dilationW, strideW, outW);
    if (ow >= 0) targets.emplace_back(kw, oh * outW + ow);
  }
}

std::vector<std::int64_t> scatterContributions(
    const Window& w, const LayerPartition& l, std::string_view network,
    const std::function<void(std::int64_t window, std::int64_t pixel)>& visit) {
  std::vector<std::int64_t> blocks(static_cast<std::size_t>(w.outH * w.outW), 0);
  std::vector<std::pair<std::int64_t, std::int64_t>> targets;
  for (std::int64_t window = 0; window < l.windows; ++window) {
    w.scatterTargets(l.unfolding, window, targets);
    for (const auto& [block, pixel] : targets) {
      ++blocks[static_cast<std::size_t>(pixel)];
      if (visit) visit(window, pixel);
    }
  }
  for (std::size_t o = 0; o < blocks.size(); ++o)
    if (blocks[o] == 0)
      throw InputError(std::string(network) + ": node " + std::to_string(l.node) + " '" + l.name +
                       "': unfolding " + std::string(l.unfolding.name) + ": output pixel " +
                       std::to_string(o) + " reads padding only");
  return blocks;
}

}  // namespace pim::crossbar
