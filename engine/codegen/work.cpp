// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "engine/codegen/lowering.h"
#include "engine/common/error.h"

namespace pim {
namespace {

void collect(const Expr& e, std::vector<int>& tensors, bool& softmax) {
  if (e.kind == Expr::Kind::Ref) {
    if (std::find(tensors.begin(), tensors.end(), e.ref.tensor) == tensors.end())
      tensors.push_back(e.ref.tensor);
  }
  if (e.kind == Expr::Kind::Call && e.op == "softmax") softmax = true;
  for (const auto& a : e.args) collect(a, tensors, softmax);
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::vector<StatementWork> statementWork(const Kernel& k, const CoreTile& core) {
  std::vector<StatementWork> out;
  for (std::size_t s = 0; s < k.statements.size(); ++s) {
    const Statement& st = k.statements[s];
    std::vector<int> operands;
    bool softmax = false;
    collect(st.value, operands, softmax);
    // Scalars (geva's c and d) sit in registers; they are not streamed.
    std::erase_if(operands, [&](int t) { return k.tensors[t].shape.empty(); });
    std::sort(operands.begin(), operands.end(),
              [&](int a, int b) { return core.tensors[a].elements > core.tensors[b].elements; });
    StatementWork w;
    w.statement = static_cast<int>(s);
    w.outputElems = core.tensors[st.target.tensor].elements;
    if (softmax) {
      w.kind = StatementWork::Kind::Softmax;
    } else if (st.op != AssignOp::Set) {
      w.kind = operands.size() >= 2 ? StatementWork::Kind::Mac : StatementWork::Kind::Reduce;
    } else {
      w.kind = StatementWork::Kind::Elementwise;
    }
    if (!operands.empty()) {
      w.streamTensor = operands[0];
      w.streamElems = core.tensors[operands[0]].elements;
    }
    if (operands.size() >= 2) {
      if (w.kind == StatementWork::Kind::Elementwise) {
        w.secondStream = operands[1];
      } else {
        w.broadcastTensor = operands[1];
        w.broadcastElems = core.tensors[operands[1]].elements;
      }
    }
    out.push_back(w);
  }
  return out;
}

std::vector<StatementWork> groupWork(const Kernel& k, const TileMapping& m, int group) {
  std::vector<StatementWork> out;
  for (int c = 0; c < m.coresPerGroup; ++c) {
    const auto w = statementWork(k, m.at(group, c));
    if (out.empty()) {
      out = w;
      continue;
    }
    for (std::size_t s = 0; s < w.size(); ++s) {
      out[s].streamElems = std::max(out[s].streamElems, w[s].streamElems);
      out[s].broadcastElems = std::max(out[s].broadcastElems, w[s].broadcastElems);
      out[s].outputElems = std::max(out[s].outputElems, w[s].outputElems);
    }
  }
  return out;
}

BankRegions bankRegions(const Kernel& k, const TileMapping& m, const Backend& b, const sim::DeviceConfig& d,
                        int group) {
  BankRegions r;
  r.tensorRow.assign(k.tensors.size(), 0);
  r.tensorBurstsPerBank.assign(k.tensors.size(), 0);
  std::int64_t row = 0;
  // Inputs first, then outputs and temporaries: each tile padded to the group's largest, so every bank of the
  // group holds tensor t at the same rows and one broadcast command addresses them all.
  for (const TensorRole role : {TensorRole::Input, TensorRole::Output, TensorRole::Temp}) {
    for (std::size_t t = 0; t < k.tensors.size(); ++t) {
      if (k.tensors[t].role != role) continue;
      std::int64_t elems = 0;
      for (int c = 0; c < m.coresPerGroup; ++c) elems = std::max(elems, m.at(group, c).tensors[t].elements);
      const std::int64_t bytes =
          ceilDiv(elems * static_cast<std::int64_t>(dtypeBytes(k.tensors[t].dtype)), b.core.banksPerCore);
      r.tensorBurstsPerBank[t] = ceilDiv(bytes, d.bytesPerColumn);
      r.tensorRow[t] = static_cast<std::uint32_t>(row);
      row += ceilDiv(r.tensorBurstsPerBank[t], d.columns);
    }
  }
  r.hostRow = static_cast<std::uint32_t>(d.rows / 2);
  if (row > r.hostRow) {
    throw InputError("draft " + std::to_string(m.draft.id) + ": its tiles need " + std::to_string(row) +
                     " rows per bank, more than the " + std::to_string(r.hostRow) +
                     " rows of a bank's PIM region on " + b.name);
  }
  return r;
}

}  // namespace pim
