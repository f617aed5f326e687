// SPDX-License-Identifier: Apache-2.0
#include "engine/kernel/reference_run.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "engine/common/error.h"
#include "engine/kernel/intrinsics.h"

namespace pim {
namespace {

struct TensorLayout {
  std::vector<std::int64_t> extents;
  std::int64_t size = 1;
};

// The running state of a select, unique or prefix along its loop, per point of the other loops.
struct AlongState {
  double sum = 0;
  std::int64_t kept = 0;
  bool hasPrevious = false;
  double previous = 0;
};

class Runner {
 public:
  Runner(const Kernel& k, const Shape& s, TensorValues& v) : m_k(k), m_shape(s), m_values(v) {
    if (v.size() != k.tensors.size())
      throw InputError("reference run of " + k.name + ": " + std::to_string(v.size()) + " value arrays for " +
                       std::to_string(k.tensors.size()) + " tensors");
    for (std::size_t t = 0; t < k.tensors.size(); ++t) {
      TensorLayout l;
      l.extents = tensorExtents(k, static_cast<int>(t), s);
      for (auto e : l.extents) l.size *= e;
      if (static_cast<std::int64_t>(v[t].size()) != l.size)
        throw InputError("reference run of " + k.name + ": tensor " + k.tensors[t].name + " has " +
                         std::to_string(v[t].size()) + " values, its shape " + std::to_string(l.size));
      m_layouts.push_back(std::move(l));
    }
    m_point.assign(k.loops.size() + k.dims.size(), 0);
    for (std::size_t d = 0; d < k.dims.size(); ++d) m_point[k.loops.size() + d] = s.values[d];
  }

  void run() {
    initialiseWritten();
    for (const Statement& st : m_k.statements) {
      m_along.clear();
      m_leastSeen.clear();
      visit(st, 0);
    }
  }

 private:
  void initialiseWritten() {
    std::vector<bool> seen(m_k.tensors.size(), false);
    for (const Statement& st : m_k.statements) {
      const auto t = static_cast<std::size_t>(st.target.tensor);
      if (seen[t] || m_k.tensors[t].role == TensorRole::Input) continue;
      seen[t] = true;
      const double inf = std::numeric_limits<double>::infinity();
      const double neutral = st.op == AssignOp::Max      ? -inf
                             : st.op == AssignOp::Min    ? inf
                             : st.op == AssignOp::ArgMin ? -1.0
                                                         : 0.0;
      m_values[t].assign(m_values[t].size(), neutral);
    }
  }

  void visit(const Statement& st, std::size_t depth) {
    if (depth == st.loops.size()) {
      for (const Condition& c : st.guards)
        if (!holds(c)) return;
      apply(st);
      return;
    }
    const int l = st.loops[depth];
    const auto [lo, hi] = loopBounds(m_k, l, m_shape);
    for (std::int64_t i = lo; i < hi; ++i) {
      m_point[static_cast<std::size_t>(l)] = i;
      visit(st, depth + 1);
    }
  }

  bool holds(const Condition& c) const {
    const std::int64_t a = c.lhs.eval(m_point), b = c.rhs.eval(m_point);
    switch (c.op) {
      case CmpOp::Lt:
        return a < b;
      case CmpOp::Le:
        return a <= b;
      case CmpOp::Gt:
        return a > b;
      case CmpOp::Ge:
        return a >= b;
      case CmpOp::Eq:
        return a == b;
      case CmpOp::Ne:
        return a != b;
    }
    return false;
  }

  double& at(const TensorRef& r) {
    const auto t = static_cast<std::size_t>(r.tensor);
    const TensorLayout& l = m_layouts[t];
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < r.index.size(); ++d) {
      const std::int64_t i = r.index[d].eval(m_point);
      if (i < 0 || i >= l.extents[d])
        throw InputError("reference run of " + m_k.name + ": index " + std::to_string(i) + " of " +
                         m_k.tensors[t].name + " is outside its extent " + std::to_string(l.extents[d]));
      flat = flat * l.extents[d] + i;
    }
    return m_values[t][static_cast<std::size_t>(flat)];
  }

  double eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Const:
        return e.value;
      case Expr::Kind::Ref:
        return at(e.ref);
      case Expr::Kind::Unary:
        return -eval(e.args[0]);
      case Expr::Kind::Binary: {
        const double a = eval(e.args[0]), b = eval(e.args[1]);
        if (e.op == "+") return a + b;
        if (e.op == "-") return a - b;
        if (e.op == "*") return a * b;
        if (e.op == "/") return a / b;
        return e.op == "max" ? std::max(a, b) : std::min(a, b);
      }
      case Expr::Kind::Call:
        if (e.op == "relu") return std::max(eval(e.args[0]), 0.0);
        if (e.op == "exp") return std::exp(eval(e.args[0]));
        throw InputError("reference run of " + m_k.name + ": '" + e.op + "' is not computed here");
    }
    return 0;
  }

  void apply(const Statement& st) {
    if (const auto id = intrinsicOf(st)) {
      applyIntrinsic(st, *id);
      return;
    }
    const double v = eval(st.value);
    double& y = at(st.target);
    switch (st.op) {
      case AssignOp::Set:
        y = v;
        return;
      case AssignOp::Add:
        y += v;
        return;
      case AssignOp::Max:
        y = std::max(y, v);
        return;
      case AssignOp::Min:
        y = std::min(y, v);
        return;
      case AssignOp::ArgMin: {  // the loops run upwards, so a strict < keeps the first position on ties
        const auto [least, first] = m_leastSeen.try_emplace(&y, v);
        if (first || v < least->second) {
          least->second = v;
          y = static_cast<double>(m_point[static_cast<std::size_t>(st.reducedLoops().front())]);
        }
        return;
      }
    }
  }

  // The point of the other loops of the statement: the key of an along-loop's running state.
  std::vector<std::int64_t> otherLoops(const Statement& st, int along) const {
    std::vector<std::int64_t> key;
    for (int l : st.loops)
      if (l != along) key.push_back(m_point[static_cast<std::size_t>(l)]);
    return key;
  }

  // Writes `v` at the target's index with the along loop at its lower bound + `slot` (packed results).
  void writePacked(const Statement& st, int along, std::int64_t slot, double v) {
    const auto l = static_cast<std::size_t>(along);
    const std::int64_t saved = m_point[l];
    m_point[l] = loopBounds(m_k, along, m_shape).first + slot;
    at(st.target) = v;
    m_point[l] = saved;
  }

  void applyIntrinsic(const Statement& st, Intrinsic id) {
    const Expr& call = st.value;
    const int along = call.reduceVar;
    const std::int64_t loopValue = m_point[static_cast<std::size_t>(along)];
    switch (id) {
      case Intrinsic::Prefix: {
        AlongState& s = m_along[otherLoops(st, along)];
        s.sum += eval(call.args[0]);
        at(st.target) = s.sum;
        return;
      }
      case Intrinsic::Select:
      case Intrinsic::Unique: {
        AlongState& s = m_along[otherLoops(st, along)];
        const double v = eval(call.args[0]);
        const bool keep = id == Intrinsic::Select ? (static_cast<std::int64_t>(v) & 1) != 0
                                                  : !s.hasPrevious || v != s.previous;
        s.hasPrevious = true;
        s.previous = v;
        if (keep) writePacked(st, along, s.kept++, v);
        return;
      }
      case Intrinsic::Hist: {
        const auto [lo, hi] = loopBounds(m_k, along, m_shape);
        const double v = eval(call.args[0]), range = call.args[1].value;
        if (v < 0 || v >= range) return;
        const auto bin = static_cast<std::int64_t>(std::floor(v * static_cast<double>(hi - lo) / range));
        if (bin == loopValue - lo) at(st.target) += 1;
        return;
      }
      case Intrinsic::Search: {
        const double found = eval(call.args[0]) == eval(call.args[1]) ? static_cast<double>(loopValue) : -1;
        double& y = at(st.target);
        y = std::max(y, found);
        return;
      }
    }
  }

  const Kernel& m_k;
  const Shape& m_shape;
  TensorValues& m_values;
  std::vector<TensorLayout> m_layouts;
  std::vector<std::int64_t> m_point;  // loop values, then dimension sizes (Condition's numbering)
  std::map<std::vector<std::int64_t>, AlongState> m_along;
  std::map<const double*, double> m_leastSeen;  // argmin=: the least value seen per target element
};

}  // namespace

void runReference(const Kernel& k, const Shape& s, TensorValues& values) { Runner(k, s, values).run(); }

}  // namespace pim
