// SPDX-License-Identifier: Apache-2.0
#include "engine/codegen/codegen_common.h"

#include "engine/kernel/intrinsics.h"

namespace pim::codegen {

std::int64_t burstsPerBank(const LoweringInput& in, int t, std::int64_t elems) {
  const std::int64_t bytes =
      elems * static_cast<std::int64_t>(dtypeBytes(in.problem.kernel().tensors[t].dtype));
  const std::int64_t perBank =
      (bytes + in.problem.backend().core.banksPerCore - 1) / in.problem.backend().core.banksPerCore;
  return (perBank + in.device.bytesPerColumn - 1) / in.device.bytesPerColumn;
}

std::int64_t bursts(const LoweringInput& in, int t, std::int64_t elems) {
  const std::int64_t bytes =
      elems * static_cast<std::int64_t>(dtypeBytes(in.problem.kernel().tensors[t].dtype));
  return (bytes + in.device.bytesPerColumn - 1) / in.device.bytesPerColumn;
}

bool useGroupCommands(const LoweringInput& in) {
  return in.options.groupCommands && in.problem.backend().group.broadcast;
}

std::string firstUnsupported(const Kernel& k, bool elementwise, bool softmax,
                             const std::string& elementwiseWhy, const std::string& softmaxWhy) {
  // A data-dependent intrinsic places its results (or picks the counter it increments) by the data, which
  // no broadcast command to a group of banks can address.
  for (const Statement& st : k.statements) {
    if (const auto id = intrinsicOf(st))
      return "'" + st.value.op + "' (" + std::string(intrinsicNamed(st.value.op)->meaning) +
             ") depends on the data, which DRAM-PIM commands cannot: it has no PIM command template here";
    if (st.op == AssignOp::ArgMin)
      return "'argmin=' (the position of the least value) keeps a position chosen by the data, which "
             "DRAM-PIM commands cannot: it has no PIM command template here";
  }
  // Classify statements with an empty tile: only the kinds matter here.
  for (const StatementWork& w : statementKinds(k)) {
    if (!elementwise && w.kind == StatementWork::Kind::Elementwise) return elementwiseWhy;
    if (!softmax && w.kind == StatementWork::Kind::Softmax) return softmaxWhy;
  }
  return {};
}

}  // namespace pim::codegen
