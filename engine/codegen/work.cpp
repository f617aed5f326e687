// SPDX-License-Identifier: Apache-2.0
#include <algorithm>

#include "engine/codegen/lowering.h"
#include "engine/common/error.h"
#include "engine/common/int_math.h"

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

}  // namespace

std::vector<StatementOperands> statementOperands(const Kernel& k) {
  std::vector<StatementOperands> out;
  for (const Statement& st : k.statements) {
    StatementOperands sh;
    sh.target = st.target.tensor;
    bool softmax = false;
    collect(st.value, sh.operands, softmax);
    // Scalars (geva's c and d) sit in registers; they are not streamed.
    std::erase_if(sh.operands, [&](int t) { return k.tensors[t].shape.empty(); });
    if (softmax) {
      sh.kind = StatementWork::Kind::Softmax;
    } else if (st.op != AssignOp::Set) {
      sh.kind = sh.operands.size() >= 2 ? StatementWork::Kind::Mac : StatementWork::Kind::Reduce;
    } else {
      sh.kind = StatementWork::Kind::Elementwise;
    }
    out.push_back(std::move(sh));
  }
  return out;
}

namespace {

// Work of statement `s` on a core: the largest operand tile is streamed from the banks, the second one is
// broadcast (or streamed too, for an element-wise op); of equal tiles the earlier operand.
StatementWork workOf(const StatementOperands& sh, int s, std::span<const std::int64_t> elements) {
  int first = -1, second = -1;
  for (int t : sh.operands) {
    if (first < 0 || elements[t] > elements[first]) {
      second = first;
      first = t;
    } else if (second < 0 || elements[t] > elements[second]) {
      second = t;
    }
  }
  StatementWork w;
  w.statement = s;
  w.kind = sh.kind;
  w.outputElems = elements[sh.target];
  if (first >= 0) {
    w.streamTensor = first;
    w.streamElems = elements[first];
  }
  if (second >= 0) {
    if (w.kind == StatementWork::Kind::Elementwise) {
      w.secondStream = second;
    } else {
      w.broadcastTensor = second;
      w.broadcastElems = elements[second];
    }
  }
  return w;
}

}  // namespace

std::vector<StatementWork> statementWork(const Kernel& k, std::span<const std::int64_t> elements) {
  std::vector<StatementWork> out;
  const auto shapes = statementOperands(k);
  for (std::size_t s = 0; s < shapes.size(); ++s)
    out.push_back(workOf(shapes[s], static_cast<int>(s), elements));
  return out;
}

std::vector<StatementWork> statementKinds(const Kernel& k) {
  return statementWork(k, std::vector<std::int64_t>(k.tensors.size(), 0));
}

std::vector<StatementWork> groupWork(const Kernel& k, const DraftFootprints& m, int group) {
  return groupWork(statementOperands(k), m, group);
}

std::vector<StatementWork> groupWork(const std::vector<StatementOperands>& shapes, const DraftFootprints& m,
                                     int group) {
  std::vector<StatementWork> out;
  std::span<const std::int64_t> previous;
  for (int c = 0; c < m.coresPerGroup; ++c) {
    const std::span<const std::int64_t> elements(m.elements.data() + m.coreIndex(group, c) * m.tensorCount,
                                                 m.tensorCount);
    // Cores with the tiles of the one before add nothing to the maxima (most cores of a group, usually).
    if (c > 0 && std::equal(elements.begin(), elements.end(), previous.begin())) continue;
    previous = elements;
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      const StatementWork w = workOf(shapes[s], static_cast<int>(s), elements);
      if (c == 0) {
        out.push_back(w);
        continue;
      }
      out[s].streamElems = std::max(out[s].streamElems, w.streamElems);
      out[s].broadcastElems = std::max(out[s].broadcastElems, w.broadcastElems);
      out[s].outputElems = std::max(out[s].outputElems, w.outputElems);
    }
  }
  return out;
}

namespace {

std::int64_t fullElements(const Kernel& k, int t, const Shape& s) {
  std::int64_t n = 1;
  for (auto e : tensorExtents(k, t, s)) n *= e;
  return n;
}

}  // namespace

ReductionRows reductionRows(const Problem& p, const StatementWork& w, int bytesPerColumn) {
  ReductionRows r;
  if (w.kind != StatementWork::Kind::Reduce || w.streamTensor < 0 || w.outputElems <= 0) return r;
  const Kernel& k = p.kernel();
  const int target = k.statements[w.statement].target.tensor;
  r.target = target;
  const std::int64_t banks = p.backend().core.banksPerCore;
  const std::int64_t bytes = dtypeBytes(k.tensors[w.streamTensor].dtype);
  // A core's rows are split over its banks; with fewer rows than banks, each row is split instead.
  const std::int64_t rowOnCore = ceilDiv(w.streamElems, w.outputElems);
  const std::int64_t banksPerRow = std::max<std::int64_t>(1, banks / w.outputElems);
  r.rows = ceilDiv(w.outputElems, banks);
  r.rowElems = ceilDiv(rowOnCore, banksPerRow);
  r.columnsPerRow = ceilDiv(r.rowElems * bytes, bytesPerColumn);
  const std::int64_t fullRow = ceilDiv(fullElements(k, w.streamTensor, p.shape()),
                                       std::max<std::int64_t>(1, fullElements(k, target, p.shape())));
  r.partialsPerOutput = ceilDiv(fullRow, rowOnCore);
  r.banksPerRow = banksPerRow;
  return r;
}

bool sameTileOnEveryCore(const Problem& p, const Draft& d, int t) {
  const DimensionSets& sets = p.space().sets();
  for (std::size_t i = 0; i < d.parts.size() && i < sets.sets.size(); ++i) {
    if (d.parts[i].cores <= 1) continue;
    const auto& dims = sets.sets[i].dims;
    if (std::any_of(dims.begin(), dims.end(), [t](const TensorDim& td) { return td.tensor == t; }))
      return false;
  }
  return true;
}

BankRegions bankRegions(const LoweringInput& in, int group, const std::vector<StatementWork>* given) {
  const Problem& p = in.problem;
  const DraftFootprints& m = in.mapping;
  const sim::DeviceConfig& d = in.device;
  const Kernel& k = p.kernel();
  const Backend& b = p.backend();
  BankRegions r;
  r.tensorRow.assign(k.tensors.size(), 0);
  r.tensorBurstsPerBank.assign(k.tensors.size(), 0);
  // A reduction's operand is stored row-segmented (reductionRows): its padded rows take more columns than
  // the packed tile when a row does not fill whole columns. A family that leaves lane partial sums needs a
  // column per accumulator written back in its output tile.
  std::vector<std::int64_t> segmented(k.tensors.size(), 0);
  // The family's own layout of a MAC's register operand (none in the banks when the host writes it into the
  // registers), unless another statement streams that tensor from the banks.
  std::vector<std::optional<std::int64_t>> registerLayout(k.tensors.size());
  if (group < m.groupsUsed) {
    const std::vector<StatementWork> computed = given ? std::vector<StatementWork>{} : groupWork(k, m, group);
    const std::vector<StatementWork>& work = given ? *given : computed;
    for (const StatementWork& w : work) {
      const ReductionRows rr = reductionRows(p, w, d.bytesPerColumn);
      if (rr.rows > 0) segmented[w.streamTensor] = std::max(segmented[w.streamTensor], rr.columns());
      if (const auto lp = in.generator.lanePartials(p, w, d.bytesPerColumn)) {
        const int target = k.statements[w.statement].target.tensor;
        segmented[target] = std::max(segmented[target], lp->columnsPerCore);
      }
      if (w.kind == StatementWork::Kind::Mac && w.broadcastTensor >= 0)
        registerLayout[w.broadcastTensor] = in.generator.registerOperandBursts(in, w);
    }
    for (const StatementWork& w : work)
      for (int t : {w.streamTensor, w.secondStream})
        if (t >= 0) registerLayout[t].reset();
  }
  std::int64_t row = 0;
  // Inputs first, then outputs and temporaries: each tile padded to the group's largest, so every bank of the
  // group holds tensor t at the same rows and one broadcast command addresses them all. Within a role the
  // streamed tensors come first, so a call's copies (and a preload's) each cover one contiguous region.
  struct Slot {
    TensorRole role;
    bool resident;
  };
  for (const Slot slot :
       {Slot{TensorRole::Input, false}, Slot{TensorRole::Input, true}, Slot{TensorRole::Output, false},
        Slot{TensorRole::Output, true}, Slot{TensorRole::Temp, false}}) {
    for (std::size_t t = 0; t < k.tensors.size(); ++t) {
      if (k.tensors[t].role != slot.role || p.isResident(static_cast<int>(t)) != slot.resident) continue;
      std::int64_t elems = 0;
      for (int c = 0; c < m.coresPerGroup; ++c)
        elems = std::max(elems, m.elementsOf(group, c, static_cast<int>(t)));
      const std::int64_t bytes =
          ceilDiv(elems * static_cast<std::int64_t>(dtypeBytes(k.tensors[t].dtype)), b.core.banksPerCore);
      r.tensorBurstsPerBank[t] =
          registerLayout[t].value_or(std::max(ceilDiv(bytes, d.bytesPerColumn), segmented[t]));
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
