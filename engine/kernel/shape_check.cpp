// SPDX-License-Identifier: Apache-2.0
#include "engine/kernel/shape_check.h"

#include <string>
#include <vector>

#include "engine/common/checked.h"
#include "engine/common/error.h"
#include "engine/common/int_math.h"

namespace pim {
namespace {

struct Range {
  std::int64_t lo = 0, hi = -1;  // inclusive; empty when lo > hi
};

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

/// acc * x when it stays within `limit`; false (acc unchanged) when it does not or overflows.
bool mulWithin(std::int64_t& acc, std::int64_t x, std::int64_t limit) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(acc, x, &r) || r > limit) return false;
  acc = r;
  return true;
}

enum class Narrowed { Yes, Empty, Unsupported };

class ShapeChecker {
 public:
  ShapeChecker(const Kernel& k, const Shape& s) : m_k(k), m_s(s), m_shape(shapeString(k, s)) {
    for (int l = 0; l < static_cast<int>(k.loops.size()); ++l) {
      const auto [lo, hi] = loopBounds(k, l, s);
      m_loops.push_back({lo, hi - 1});
    }
  }

  void tensors() const {
    for (std::size_t t = 0; t < m_k.tensors.size(); ++t) {
      const Tensor& tensor = m_k.tensors[t];
      const auto ext = tensorExtents(m_k, static_cast<int>(t), m_s);
      std::int64_t bytes = static_cast<std::int64_t>(dtypeBytes(tensor.dtype));
      std::string dims;
      bool fits = true;
      for (std::size_t a = 0; a < ext.size(); ++a) {
        dims += (a ? " x " : "") + std::to_string(ext[a]);
        fits = fits && mulWithin(bytes, ext[a], kMaxTensorBytes);
      }
      if (!fits) {
        throw InputError("kernel " + m_k.name + ": tensor '" + tensor.name + "' is " + dims + " " +
                         std::string(dtypeName(tensor.dtype)) + " elements under shape " + m_shape +
                         ", more than the 2^56 bytes of the largest tensor PIMScope models");
      }
    }
  }

  void statement(std::size_t si) const {
    const Statement& st = m_k.statements[si];
    std::int64_t iterations = 1;
    for (int l : st.loops) {
      const Range& r = m_loops[static_cast<std::size_t>(l)];
      if (!mulWithin(iterations, r.hi - r.lo + 1, kMaxStatementIterations)) {
        throw InputError(where(st, si) + "the statement's loops run more than 2^60 iterations under shape " +
                         m_shape);
      }
    }
    std::vector<Range> box = m_loops;
    for (const Condition& g : st.guards) {
      const Narrowed n = narrow(g, box, where(st, si) + "guard");
      if (n == Narrowed::Empty) return;        // never runs: nothing it indexes is touched
      if (n == Narrowed::Unsupported) return;  // not provably out of range: accept
    }
    checkIndices(st, si, box);
  }

 private:
  /// "origin:line: " for a statement, or "kernel NAME: " when the kernel was built in code.
  std::string where(const Statement& st, std::size_t si) const {
    if (!m_k.origin.empty() && st.line > 0) return m_k.origin + ":" + std::to_string(st.line) + ": ";
    return "kernel " + m_k.name + ": statement " + std::to_string(si + 1) + ": ";
  }
  std::string whereIndex(const Statement& st, std::size_t si, std::size_t ref, std::size_t axis) const {
    if (!m_k.origin.empty() && ref < st.indexPos.size() && axis < st.indexPos[ref].size()) {
      const SourcePos& p = st.indexPos[ref][axis];
      return m_k.origin + ":" + std::to_string(p.line) + ":" + std::to_string(p.col) + ": ";
    }
    return where(st, si);
  }

  // Narrows the box by a guard "lhs op rhs" over one loop variable (others: dimensions or constants).
  Narrowed narrow(const Condition& g, std::vector<Range>& box, const std::string& what) const {
    const int loopCount = static_cast<int>(m_k.loops.size());
    std::int64_t rest = checkedAdd(g.lhs.constant, checkedMul(g.rhs.constant, std::int64_t{-1}, what), what);
    int var = -1;
    std::int64_t coeff = 0;
    for (const auto* side : {&g.lhs, &g.rhs}) {
      const std::int64_t sign = side == &g.lhs ? 1 : -1;
      for (const auto& [v, c] : side->terms) {
        const std::int64_t sc = checkedMul(c, sign, what);
        if (v >= loopCount) {
          const auto d = static_cast<std::size_t>(v - loopCount);
          if (d >= m_s.values.size()) return Narrowed::Unsupported;
          rest = checkedAdd(rest, checkedMul(sc, m_s.values[d], what), what);
        } else if (var < 0 || var == v) {
          var = v;
          coeff = checkedAdd(coeff, sc, what);
        } else {
          return Narrowed::Unsupported;  // a relation between two loop variables
        }
      }
    }
    // coeff * var + rest  op  0
    if (var < 0 || coeff == 0) return holds(g.op, rest) ? Narrowed::Yes : Narrowed::Empty;
    Range& r = box[static_cast<std::size_t>(var)];
    const std::int64_t minusRest = checkedMul(rest, std::int64_t{-1}, what);
    auto atMost = [&](std::int64_t bound) {  // coeff * var <= bound
      if (coeff > 0)
        r.hi = std::min(r.hi, floorDiv(bound, coeff));
      else
        r.lo = std::max(r.lo, ceilDiv(bound, coeff));
    };
    auto atLeast = [&](std::int64_t bound) {  // coeff * var >= bound
      if (coeff > 0)
        r.lo = std::max(r.lo, ceilDiv(bound, coeff));
      else
        r.hi = std::min(r.hi, floorDiv(bound, coeff));
    };
    switch (g.op) {
      case CmpOp::Lt:
        atMost(checkedAdd(minusRest, std::int64_t{-1}, what));
        break;
      case CmpOp::Le:
        atMost(minusRest);
        break;
      case CmpOp::Gt:
        atLeast(checkedAdd(minusRest, std::int64_t{1}, what));
        break;
      case CmpOp::Ge:
        atLeast(minusRest);
        break;
      case CmpOp::Eq:
        atMost(minusRest), atLeast(minusRest);
        break;
      case CmpOp::Ne:
        return Narrowed::Unsupported;
    }
    return r.lo > r.hi ? Narrowed::Empty : Narrowed::Yes;
  }

  static bool holds(CmpOp op, std::int64_t v) {  // v op 0
    switch (op) {
      case CmpOp::Lt:
        return v < 0;
      case CmpOp::Le:
        return v <= 0;
      case CmpOp::Gt:
        return v > 0;
      case CmpOp::Ge:
        return v >= 0;
      case CmpOp::Eq:
        return v == 0;
      case CmpOp::Ne:
        return v != 0;
    }
    return true;
  }

  void checkIndices(const Statement& st, std::size_t si, const std::vector<Range>& box) const {
    // references() lists every statement's references in order; count this statement's.
    std::size_t ordinal = 0;
    const auto names = m_k.loopVarNames();
    for (const auto& [stmt, ref] : m_k.references()) {
      if (static_cast<std::size_t>(stmt) != si) continue;
      const Tensor& tensor = m_k.tensors[static_cast<std::size_t>(ref.tensor)];
      const auto ext = tensorExtents(m_k, ref.tensor, m_s);
      for (std::size_t a = 0; a < ref.index.size(); ++a) {
        const AffineExpr& e = ref.index[a];
        const std::string at = whereIndex(st, si, ordinal, a);
        const std::string what =
            at + "index " + e.str(names) + " of tensor '" + tensor.name + "' under shape " + m_shape;
        std::int64_t lo = e.constant, hi = e.constant;
        for (const auto& [v, c] : e.terms) {
          const Range& r = box[static_cast<std::size_t>(v)];
          const std::int64_t x = checkedMul(c, c > 0 ? r.lo : r.hi, what);
          const std::int64_t y = checkedMul(c, c > 0 ? r.hi : r.lo, what);
          lo = checkedAdd(lo, x, what);
          hi = checkedAdd(hi, y, what);
        }
        if (lo < 0 || hi >= ext[a]) {
          throw InputError(what + " takes values " + std::to_string(lo) + ".." + std::to_string(hi) +
                           ", outside its extent " + tensor.shape[a].str(m_k.dims) + " = " +
                           std::to_string(ext[a]) + " (indices 0.." + std::to_string(ext[a] - 1) + ")");
        }
      }
      ++ordinal;
    }
  }

  const Kernel& m_k;
  const Shape& m_s;
  std::string m_shape;
  std::vector<Range> m_loops;
};

}  // namespace

void checkShapeFits(const Kernel& k, const Shape& s) {
  const ShapeChecker c(k, s);
  c.tensors();
  for (std::size_t i = 0; i < k.statements.size(); ++i) c.statement(i);
}

}  // namespace pim
