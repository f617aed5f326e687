// SPDX-License-Identifier: Apache-2.0
// A CONV's or POOL's sliding window over its input feature map, and what a CONV's windows are under each
// unfolding (tcad Table IV; docs/crossbar.md, "Scatter unfoldings"), shared by the HT and LL schedulers.
// Pixels are row-major (h * W + w).
#pragma once
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/crossbar/partition.h"
#include "engine/kernel/network.h"

namespace pim::crossbar {

struct Window {
  std::int64_t inH = 1, inW = 1, outH = 1, outW = 1;
  std::int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1, padTop = 0, padLeft = 0;
  std::int64_t dilationH = 1, dilationW = 1;

  std::int64_t positions() const { return kernelH * kernelW; }
  /// The input pixel under each kernel position (row-major) of output pixel `out`; -1 where padding.
  void inputsOf(std::int64_t out, std::vector<std::int64_t>& pixels) const;
  /// The output pixels whose window covers input pixel `in`, ascending.
  void outputsOf(std::int64_t in, std::vector<std::int64_t>& pixels) const;

  // The scatter unfoldings, whose matrix columns hold several kernel positions' worth of output channels:
  // a window is an input pixel (I,OK2,1) or a column of K_h input pixels under one output row (IK,OK,1),
  // and its MVM's result is blocks of O partial outputs, each belonging to another output pixel.
  /// The input pixel at each position of scatter window `window`'s vector; -1 where padding.
  void scatterInputs(const Unfolding& u, std::int64_t window, std::vector<std::int64_t>& pixels) const;
  /// (column block, output pixel) for each block of scatter window `window`'s result that lands on an output
  /// pixel: block (k_h, k_w) of the window at input (h, w) on ((h + pad_top - k_h d_h) / s_h, (w + pad_left -
  /// k_w d_w) / s_w) where both divide evenly and fall inside the output, nowhere otherwise.
  void scatterTargets(const Unfolding& u, std::int64_t window,
                      std::vector<std::pair<std::int64_t, std::int64_t>>& targets) const;
};

/// The window of a CONV or POOL node.
Window windowOf(const NetworkNode& n);

/// Whether `u` is a scatter unfolding whose windows are single input pixels (I,OK2,1).
bool isInputPixelWindow(const Unfolding& u);

/// Per output pixel of layer `l` (a scatter unfolding, window `w`), the blocks its windows add to it;
/// InputError naming the layer of `network` when one receives none (it reads padding only). `visit`, when
/// given, sees every (window, output pixel) pair of the walk, so a caller needing more of it walks once.
std::vector<std::int64_t> scatterContributions(
    const Window& w, const LayerPartition& l, std::string_view network,
    const std::function<void(std::int64_t window, std::int64_t pixel)>& visit = {});

}  // namespace pim::crossbar
