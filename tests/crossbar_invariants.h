// SPDX-License-Identifier: Apache-2.0
// The crossbar compiler's MVM invariant (../shared/specs/crossbar.md, "Invariants"), shared by the
// schedulers' tests and fuzz_crossbar: every window of every CONV layer runs every AG band of every matrix
// once, and an FC runs each band once. Counted from the node list, not from the partitioner, so that a
// partitioning error shows. Grouped convolutions count as PIMCOMP-NN places them: dense K_h K_w C_in x C_out.
#pragma once
#include <cstdint>
#include <string_view>

#include "engine/kernel/network.h"

namespace pim::test {

/// MVMs of `net` on arrays of `rows` rows with every CONV layer in `unfolding`: "im2col" (one matrix of
/// K_h K_w C rows), "I,O,K2" (K_h K_w matrices of C rows) or "IK,O,K" (K_h matrices of K_w C rows), a window
/// per output pixel; or a scatter format (LL only): "I,OK2,1" (C rows, a window per input pixel) or "IK,OK,1"
/// (K_h C rows, a window per output row and input column).
inline std::int64_t expectedMvms(const Network& net, std::int64_t rows,
                                 std::string_view unfolding = "im2col") {
  const auto bands = [rows](std::int64_t height) { return (height + rows - 1) / rows; };
  std::int64_t n = 0;
  for (const NetworkNode& node : net.nodes) {
    if (node.op == NetworkOp::Fc) n += bands(node.fc.num_input);
    if (node.op != NetworkOp::Conv) continue;
    const ConvParams& c = node.conv;
    const std::int64_t windows = node.output_dim[2] * node.output_dim[3];
    const std::int64_t inH = node.input_dim[2], inW = node.input_dim[3];
    if (unfolding == "I,OK2,1")
      n += inH * inW * bands(c.input_channel);
    else if (unfolding == "IK,OK,1")
      n += node.output_dim[2] * inW * bands(c.kernel_h * c.input_channel);
    else if (unfolding == "I,O,K2")
      n += windows * c.kernel_h * c.kernel_w * bands(c.input_channel);
    else if (unfolding == "IK,O,K")
      n += windows * c.kernel_h * bands(c.kernel_w * c.input_channel);
    else
      n += windows * bands(c.kernel_h * c.kernel_w * c.input_channel);
  }
  return n;
}

}  // namespace pim::test
