// SPDX-License-Identifier: Apache-2.0
#include "engine/kernel/kernel.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "engine/common/checked.h"
#include "engine/common/error.h"

namespace pim {

std::size_t dtypeBytes(DType t) {
  switch (t) {
    case DType::F16:
    case DType::BF16:
      return 2;
    case DType::F32:
    case DType::I32:
      return 4;
    case DType::I8:
      return 1;
    case DType::I64:
    case DType::F64:
      return 8;
  }
  return 0;
}

std::string_view dtypeName(DType t) {
  switch (t) {
    case DType::F16:
      return "f16";
    case DType::BF16:
      return "bf16";
    case DType::F32:
      return "f32";
    case DType::I8:
      return "i8";
    case DType::I32:
      return "i32";
    case DType::I64:
      return "i64";
    case DType::F64:
      return "f64";
  }
  return "?";
}

Kernel retyped(Kernel k, DType t) {
  for (auto& tensor : k.tensors) tensor.dtype = t;
  return k;
}

std::optional<DType> parseDType(std::string_view name) {
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::I8, DType::I32, DType::I64, DType::F64}) {
    if (dtypeName(t) == name) return t;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------------------
// AffineExpr

AffineExpr AffineExpr::ofVar(int var, std::int64_t coeff, std::int64_t constant) {
  AffineExpr e;
  if (coeff != 0) e.terms.emplace_back(var, coeff);
  e.constant = constant;
  return e;
}

AffineExpr AffineExpr::ofConst(std::int64_t c) {
  AffineExpr e;
  e.constant = c;
  return e;
}

std::int64_t AffineExpr::eval(std::span<const std::int64_t> values) const {
  std::int64_t v = constant;
  for (const auto& [var, coeff] : terms) {
    const std::int64_t x = (var >= 0 && static_cast<std::size_t>(var) < values.size()) ? values[var] : 0;
    v += coeff * x;
  }
  return v;
}

std::string AffineExpr::str(std::span<const std::string> names) const {
  std::string out;
  auto nameOf = [&](int var) {
    if (var >= 0 && static_cast<std::size_t>(var) < names.size()) return names[var];
    return "?" + std::to_string(var);
  };
  for (const auto& [var, coeff] : terms) {
    const bool neg = coeff < 0;
    const std::uint64_t mag =
        neg ? (0 - static_cast<std::uint64_t>(coeff)) : static_cast<std::uint64_t>(coeff);
    if (neg) {
      out += '-';
    } else if (!out.empty()) {
      out += '+';
    }
    out += nameOf(var);
    if (mag != 1) out += "*" + std::to_string(mag);
  }
  if (constant != 0 || out.empty()) {
    if (constant >= 0 && !out.empty()) out += '+';
    out += std::to_string(constant);
  }
  return out;
}

AffineExpr& AffineExpr::addScaled(const AffineExpr& other, std::int64_t k) {
  constant += other.constant * k;
  for (const auto& [var, coeff] : other.terms) {
    auto it = std::lower_bound(terms.begin(), terms.end(), var,
                               [](const std::pair<int, std::int64_t>& t, int v) { return t.first < v; });
    if (it != terms.end() && it->first == var) {
      it->second += coeff * k;
      if (it->second == 0) terms.erase(it);
    } else if (coeff * k != 0) {
      terms.insert(it, {var, coeff * k});
    }
  }
  return *this;
}

// ---------------------------------------------------------------------------------------------------------
// Kernel

bool Statement::targetUses(int loop) const {
  return std::any_of(target.index.begin(), target.index.end(), [&](const AffineExpr& e) {
    return std::any_of(e.terms.begin(), e.terms.end(), [&](const auto& t) { return t.first == loop; });
  });
}

std::vector<int> Statement::reducedLoops() const {
  std::vector<int> out;
  for (int l : loops)
    if (!targetUses(l)) out.push_back(l);
  return out;
}

int Kernel::tensorIndex(std::string_view n) const {
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == n) return static_cast<int>(i);
  return -1;
}

int Kernel::dimIndex(std::string_view n) const {
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (dims[i] == n) return static_cast<int>(i);
  return -1;
}

int Kernel::loopIndex(std::string_view var) const {
  for (std::size_t i = 0; i < loops.size(); ++i)
    if (loops[i].var == var) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> Kernel::loopVarNames() const {
  std::vector<std::string> names;
  names.reserve(loops.size());
  for (const auto& l : loops) names.push_back(l.var);
  return names;
}

namespace {

void collectRefs(const Expr& e, int stmt, std::vector<std::pair<int, TensorRef>>& out) {
  if (e.kind == Expr::Kind::Ref) {
    out.emplace_back(stmt, e.ref);
    return;
  }
  for (const auto& a : e.args) collectRefs(a, stmt, out);
}

bool isProductOfRefs(const Expr& e) {
  return e.kind == Expr::Kind::Binary && e.op == "*" && e.args.size() == 2 &&
         e.args[0].kind == Expr::Kind::Ref && e.args[1].kind == Expr::Kind::Ref;
}

bool containsProductOfRefs(const Expr& e) {
  if (isProductOfRefs(e)) return true;
  return std::any_of(e.args.begin(), e.args.end(), containsProductOfRefs);
}

// Adds the ops `e` needs; products of two refs are folded into "mac" when `macFold` is set.
void collectOps(const Expr& e, bool macFold, std::vector<std::string>& ops) {
  switch (e.kind) {
    case Expr::Kind::Const:
    case Expr::Kind::Ref:
      return;
    case Expr::Kind::Unary:
      ops.push_back("mul");  // negation is a multiply by -1
      break;
    case Expr::Kind::Binary:
      if (e.op == "+" || e.op == "-") {
        ops.push_back("add");
      } else if (e.op == "*") {
        if (!(macFold && isProductOfRefs(e))) ops.push_back("mul");
      } else if (e.op == "/") {
        ops.push_back("div");
      } else if (e.op == "max" || e.op == "min") {
        ops.push_back("max");
      }
      break;
    case Expr::Kind::Call:
      ops.push_back(e.op);
      break;
  }
  for (const auto& a : e.args) collectOps(a, macFold, ops);
}

}  // namespace

std::vector<std::pair<int, TensorRef>> Kernel::references() const {
  std::vector<std::pair<int, TensorRef>> out;
  for (std::size_t s = 0; s < statements.size(); ++s) {
    const int si = static_cast<int>(s);
    out.emplace_back(si, statements[s].target);
    collectRefs(statements[s].value, si, out);
  }
  return out;
}

std::vector<std::string> Kernel::requiredOps() const {
  std::vector<std::string> ops;
  for (const auto& st : statements) {
    bool macFold = false;
    if (st.op == AssignOp::Add) {
      if (containsProductOfRefs(st.value)) {
        ops.push_back("mac");
        macFold = true;
      } else if (st.value.kind == Expr::Kind::Ref) {
        ops.push_back("reduce");
      } else {
        ops.push_back("add");
      }
    } else if (st.op == AssignOp::Max || st.op == AssignOp::Min) {
      ops.push_back("max");  // a compare and select, as for the max and min of values
    } else if (st.op == AssignOp::ArgMin) {
      ops.push_back("argmin");  // also keeps a position: no broadcast PIM command does
    }
    collectOps(st.value, macFold, ops);
  }
  static const char* const kOrder[] = {"mac", "reduce", "add",  "mul", "div",
                                       "max", "argmin", "relu", "exp", "softmax"};
  std::vector<std::string> result;
  for (const char* o : kOrder)
    if (std::find(ops.begin(), ops.end(), o) != ops.end()) result.emplace_back(o);
  for (const auto& o : ops)  // anything not in the canonical list, in first-use order
    if (std::find(result.begin(), result.end(), o) == result.end()) result.push_back(o);
  return result;
}

// ---------------------------------------------------------------------------------------------------------
// Shapes

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

std::string sizeRangeError(std::string_view dim, std::string_view value) {
  return "dimension '" + std::string(dim) + "': " + std::string(value) +
         " is not a valid size (must be 1..2^40)";
}

}  // namespace

Shape parseShape(const Kernel& k, std::string_view text) {
  Shape s;
  std::vector<std::optional<std::int64_t>> given(k.dims.size());
  std::string_view rest = text;
  while (!trim(rest).empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (item.empty()) {
      throw InputError("shape '" + std::string(text) + "': empty item (expected NAME=VALUE, e.g. " +
                       (k.dims.empty() ? std::string("n") : k.dims.front()) + "=64)");
    }
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw InputError("shape item '" + std::string(item) + "' must be NAME=VALUE (dimensions of " + k.name +
                       ": " + joined(k.dims) + ")");
    }
    const std::string_view name = trim(item.substr(0, eq));
    const std::string_view value = trim(item.substr(eq + 1));
    const int d = k.dimIndex(name);
    if (d < 0) {
      throw InputError("unknown dimension '" + std::string(name) + "' for kernel " + k.name +
                       " (valid dimensions: " + joined(k.dims) + ")");
    }
    if (given[d]) throw InputError("dimension '" + std::string(name) + "' is given more than once");
    if (value.empty()) throw InputError("dimension '" + std::string(name) + "': missing value");
    std::int64_t v = 0;
    const char* first = value.data();
    const char* last = value.data() + value.size();
    if (*first == '+') ++first;
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec == std::errc::result_out_of_range) throw InputError(sizeRangeError(name, value));
    if (ec != std::errc{} || ptr != last) {
      throw InputError("dimension '" + std::string(name) + "': '" + std::string(value) +
                       "' is not an integer");
    }
    if (v < 1 || v > kMaxDimension) throw InputError(sizeRangeError(name, value));
    given[d] = v;
  }
  s.values.resize(k.dims.size());
  for (std::size_t d = 0; d < k.dims.size(); ++d) {
    std::optional<std::int64_t> v = given[d];
    if (!v && d < k.dimDefaults.size()) v = k.dimDefaults[d];
    if (!v) {
      throw InputError("dimension '" + k.dims[d] + "' of kernel " + k.name +
                       " has no default and no value (give e.g. " + k.dims[d] + "=64)");
    }
    s.values[d] = *v;
  }
  return s;
}

namespace {

void checkShape(const Kernel& k, const Shape& s) {
  if (s.values.size() != k.dims.size()) {
    throw InputError("kernel " + k.name + ": shape has " + std::to_string(s.values.size()) +
                     " values but the kernel has " + std::to_string(k.dims.size()) + " dimensions (" +
                     joined(k.dims) + ")");
  }
}

}  // namespace

namespace {

// An extent or bound evaluated without wrapping: a shape near 2^40 times a coefficient must not come back as
// a small or negative number (then "is 0" instead of naming the overflow). `what()` names the expression; it
// is built only for a message (building it for every extent was a fifth of lowering a draft).
template <class Describe>
std::int64_t evalChecked(const AffineExpr& e, std::span<const std::int64_t> values, const Describe& what) {
  std::int64_t v = e.constant;
  for (const auto& [var, coeff] : e.terms) {
    const std::int64_t x = (var >= 0 && static_cast<std::size_t>(var) < values.size()) ? values[var] : 0;
    std::int64_t term = 0, sum = 0;
    if (__builtin_mul_overflow(coeff, x, &term) || __builtin_add_overflow(v, term, &sum)) {
      const std::string w = what();
      (void)checkedAdd(v, checkedMul(coeff, x, w), w);  // throws, naming the expression
    }
    v = sum;
  }
  return v;
}

}  // namespace

std::vector<std::int64_t> tensorExtents(const Kernel& k, int t, const Shape& s) {
  checkShape(k, s);
  if (t < 0 || static_cast<std::size_t>(t) >= k.tensors.size())
    throw InputError("kernel " + k.name + ": no tensor #" + std::to_string(t));
  const Tensor& tensor = k.tensors[t];
  std::vector<std::int64_t> out;
  out.reserve(tensor.shape.size());
  for (std::size_t i = 0; i < tensor.shape.size(); ++i) {
    auto what = [&] {
      return "kernel " + k.name + ": tensor '" + tensor.name + "' dimension " + std::to_string(i) + " (" +
             tensor.shape[i].str(k.dims) + ") under shape " + shapeString(k, s);
    };
    const std::int64_t v = evalChecked(tensor.shape[i], s.values, what);
    if (v <= 0) throw InputError(what() + " is " + std::to_string(v) + " (must be positive)");
    out.push_back(v);
  }
  return out;
}

std::pair<std::int64_t, std::int64_t> loopBounds(const Kernel& k, int l, const Shape& s) {
  checkShape(k, s);
  if (l < 0 || static_cast<std::size_t>(l) >= k.loops.size())
    throw InputError("kernel " + k.name + ": no loop #" + std::to_string(l));
  const Loop& loop = k.loops[l];
  auto what = [&] {
    return "kernel " + k.name + ": loop '" + loop.var + "' range [" + loop.lower.str(k.dims) + ", " +
           loop.upper.str(k.dims) + ")";
  };
  auto under = [&] { return " under shape " + shapeString(k, s); };
  auto whatUnder = [&] { return what() + under(); };
  const std::int64_t lo = evalChecked(loop.lower, s.values, whatUnder);
  const std::int64_t hi = evalChecked(loop.upper, s.values, whatUnder);
  if (lo < 0 || hi <= lo) {
    throw InputError(what() + " is [" + std::to_string(lo) + ", " + std::to_string(hi) + ")" + under() +
                     " (must be non-empty and start at >= 0)");
  }
  return {lo, hi};
}

std::string shapeString(const Kernel& k, const Shape& s) {
  std::string out;
  for (std::size_t d = 0; d < k.dims.size() && d < s.values.size(); ++d) {
    if (!out.empty()) out += ',';
    out += k.dims[d] + "=" + std::to_string(s.values[d]);
  }
  return out;
}

bool sameComputation(const Kernel& a, const Kernel& b) {
  if (a.dims != b.dims || a.tensors != b.tensors || a.loops != b.loops) return false;
  if (a.statements.size() != b.statements.size()) return false;
  for (std::size_t i = 0; i < a.statements.size(); ++i) {
    const Statement& x = a.statements[i];
    const Statement& y = b.statements[i];
    if (x.loops != y.loops || !(x.target == y.target) || x.op != y.op || !(x.value == y.value) ||
        x.guards != y.guards)
      return false;
  }
  return true;
}

}  // namespace pim
