// SPDX-License-Identifier: Apache-2.0
// Each statement as the UPMEM templates see it (upmem_codegen.h has the templates' sources): its loops, the
// operands it streams and how its outputs share them, and its instructions per element.
#include <algorithm>
#include <vector>

#include "engine/codegen/upmem_codegen.h"
#include "sim/dpu/dpu_ops.h"

namespace pim {
namespace {

using sim::dpu::DpuOp;
using sim::dpu::DpuType;
using sim::dpu::instructionsOf;

constexpr std::int64_t kStoreInstructions = 2;   // element-wise: shift and store
constexpr std::int64_t kIndexInstructions = 2;   // element-wise: index add and branch
constexpr std::int64_t kBranchInstructions = 1;  // reduction: compare-branch on the streamed pointer

bool usesLoopVar(const TensorRef& r) {
  return std::any_of(r.index.begin(), r.index.end(), [](const AffineExpr& e) { return !e.isConstant(); });
}

// A comparison-and-select (max, min, relu): integer types compare and move (2); the soft-float library
// compares through its subtraction (upmem.md gives no separate figure).
std::int64_t compareInstructions(DpuType t) {
  return t == DpuType::Float || t == DpuType::Double ? instructionsOf(DpuOp::Sub, t) : 2;
}

// What folding one value into the target costs: an add, a compare and select, or for argmin= also the move
// of the loop's position (PrIM TS: `if (d < min) { min = d; index = i + k; }`).
std::int64_t accumulateInstructions(AssignOp op, DpuType t) {
  switch (op) {
    case AssignOp::Max:
    case AssignOp::Min:
      return compareInstructions(t);
    case AssignOp::ArgMin:
      return compareInstructions(t) + 1;
    case AssignOp::Set:
    case AssignOp::Add:
      break;
  }
  return instructionsOf(DpuOp::Add, t);
}

std::int64_t exprInstructions(const Expr& e, DpuType t, const UpmemCodegenOptions& o) {
  std::int64_t n = 0;
  for (const Expr& a : e.args) n += exprInstructions(a, t, o);
  switch (e.kind) {
    case Expr::Kind::Const:
    case Expr::Kind::Ref:
      return n;
    case Expr::Kind::Unary:
      return n + instructionsOf(DpuOp::Sub, t);
    case Expr::Kind::Binary:
      if (e.op == "+") return n + instructionsOf(DpuOp::Add, t);
      if (e.op == "-") return n + instructionsOf(DpuOp::Sub, t);
      if (e.op == "*") {
        const bool hardware = o.hwMulInstructions > 0 && (t == DpuType::Int32 || t == DpuType::Int8or16);
        return n + (hardware ? o.hwMulInstructions : instructionsOf(DpuOp::Mul, t, o.mulOperandBits));
      }
      if (e.op == "/") return n + instructionsOf(DpuOp::Div, t);
      return n + compareInstructions(t);  // max, min
    case Expr::Kind::Call:
      return n + (e.op == "relu" ? 2 : compareInstructions(t));  // relu: sign test and select
  }
  return n;
}

// The output loops in operand `r`'s index, in sh.outLoops' order.
std::vector<int> outLoopsOf(const TensorRef& r, const StatementShape& sh) {
  std::vector<int> used;
  for (int v : sh.outLoops)
    for (const AffineExpr& e : r.index)
      if (std::any_of(e.terms.begin(), e.terms.end(), [v](const auto& t) { return t.first == v; }) &&
          std::find(used.begin(), used.end(), v) == used.end())
        used.push_back(v);
  return used;
}

// How the outputs of a reduction share operand `r` (OperandReuse).
OperandReuse reuseOf(const TensorRef& r, const StatementShape& sh) {
  if (!sh.reduces()) return OperandReuse::None;
  const std::vector<int> used = outLoopsOf(r, sh);
  if (used.empty()) return OperandReuse::AllOutputs;
  // A window: one index `out + reduced` (unit steps), every other index constant.
  if (sh.outLoops.size() != 1 || sh.reduceLoops.size() != 1)
    return used.size() < sh.outLoops.size() ? OperandReuse::SomeOutputs : OperandReuse::None;
  const std::vector<std::pair<int, std::int64_t>> slide = {{std::min(sh.outLoops[0], sh.reduceLoops[0]), 1},
                                                           {std::max(sh.outLoops[0], sh.reduceLoops[0]), 1}};
  int sliding = 0;
  for (const AffineExpr& e : r.index) {
    if (e.terms == slide)
      ++sliding;
    else if (!e.isConstant())
      return OperandReuse::None;
  }
  if (sliding == 1) return OperandReuse::Window;
  return used.size() < sh.outLoops.size() ? OperandReuse::SomeOutputs : OperandReuse::None;
}

void collectRefs(const Expr& e, std::vector<const TensorRef*>& out) {
  if (e.kind == Expr::Kind::Ref) out.push_back(&e.ref);
  for (const Expr& a : e.args) collectRefs(a, out);
}

StatementShape shapeOf(const Kernel& k, const Statement& s, const UpmemCodegenOptions& o) {
  StatementShape sh;
  const Tensor& target = k.tensors[static_cast<std::size_t>(s.target.tensor)];
  const DpuType t = upmemDpuType(target.dtype);
  sh.targetBytes = static_cast<int>(dtypeBytes(target.dtype));
  for (int l : s.loops) (s.targetUses(l) ? sh.outLoops : sh.reduceLoops).push_back(l);
  std::vector<const TensorRef*> refs;
  collectRefs(s.value, refs);
  if (s.op != AssignOp::Set && !sh.reduces()) refs.push_back(&s.target);  // y += x reads y
  for (const TensorRef* r : refs) {
    if (!usesLoopVar(*r)) {
      ++sh.scalars;
      continue;
    }
    sh.streamedBytes.push_back(
        static_cast<int>(dtypeBytes(k.tensors[static_cast<std::size_t>(r->tensor)].dtype)));
    sh.reuse.push_back(reuseOf(*r, sh));
    sh.operandOutLoops.push_back(outLoopsOf(*r, sh));
  }
  int widest = sh.targetBytes;
  for (int b : sh.streamedBytes) widest = std::max(widest, b);
  sh.blockElements = std::max(1, o.blockBytes / widest);
  if ((sh.intrinsic = intrinsicOf(s))) {
    sh.perElement = intrinsicPerElement(*sh.intrinsic, t, o.keptFraction, o.mulOperandBits);
    sh.accumulate = instructionsOf(DpuOp::Add, t);
    return sh;
  }
  const std::int64_t operands =
      kUpmemOperandInstructions * static_cast<std::int64_t>(sh.streamedBytes.size());
  const std::int64_t op = exprInstructions(s.value, t, o);
  // upmem.md: an int64 sum carried across iterations costs about 3 more 32-bit adds per element.
  const std::int64_t carry = t == DpuType::Int64 ? 3 : 0;
  sh.accumulate = accumulateInstructions(s.op, t);
  const std::int64_t guards = static_cast<std::int64_t>(s.guards.size());  // each a dynamic branch
  if (sh.reduces())
    sh.perElement = operands + op + sh.accumulate + carry + kBranchInstructions + guards;
  else
    sh.perElement = operands + op + (s.op == AssignOp::Set ? 0 : sh.accumulate) + kStoreInstructions +
                    kIndexInstructions + guards;
  return sh;
}

}  // namespace

sim::dpu::DpuType upmemDpuType(DType t) {
  using sim::dpu::DpuType;
  switch (t) {
    case DType::I8:
      return DpuType::Int8or16;
    case DType::I32:
      return DpuType::Int32;
    case DType::I64:
      return DpuType::Int64;
    case DType::F64:
      return DpuType::Double;
    case DType::F32:
    case DType::F16:
    case DType::BF16:
      return DpuType::Float;
  }
  return DpuType::Int32;
}

std::vector<StatementShape> upmemStatementShapes(const Kernel& k, const UpmemCodegenOptions& o) {
  std::vector<StatementShape> shapes;
  for (const Statement& s : k.statements) shapes.push_back(shapeOf(k, s, o));
  return shapes;
}

}  // namespace pim
