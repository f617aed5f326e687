// SPDX-License-Identifier: Apache-2.0
// The expressions of a kernel DSL statement (grammar in docs/dsl.md): affine bounds, indices and conditions,
// tensor references and value expressions, with overflow and depth checks.
#include "engine/kernel/dsl_expr.h"

#include <algorithm>
#include <utility>

#include "engine/kernel/dsl.h"
#include "engine/kernel/intrinsics.h"

namespace pim::dsl_detail {
namespace {

// The parser recurses once per '(' , sign or call and later stages walk the value tree recursively: both are
// bounded, so that a million nested parentheses is an error at the first one too many, not a stack overflow.
[[noreturn]] void tooDeep(const Token& at) { fail(at, tooDeepMessage()); }

std::int64_t checkedMul(std::int64_t a, std::int64_t b, const Token& at) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) fail(at, "integer overflow in affine expression");
  return r;
}
AffineExpr scaled(const AffineExpr& e, std::int64_t k, const Token& at) {
  AffineExpr r;
  r.constant = checkedMul(e.constant, k, at);
  if (k == 0) return r;
  for (const auto& [v, c] : e.terms) r.terms.emplace_back(v, checkedMul(c, k, at));
  return r;
}
void addChecked(AffineExpr& a, const AffineExpr& b, std::int64_t sign, const Token& at) {
  // sign * x overflows for x = INT64_MIN and sign = -1, so scale first, checked, then add checked.
  const AffineExpr s = scaled(b, sign, at);
  std::int64_t c = 0;
  if (__builtin_add_overflow(a.constant, s.constant, &c)) fail(at, "integer overflow in affine expression");
  for (const auto& [v, coeff] : s.terms) {
    for (const auto& [v2, c2] : a.terms) {
      std::int64_t dummy = 0;
      if (v2 == v && __builtin_add_overflow(c2, coeff, &dummy))
        fail(at, "integer overflow in affine expression");
    }
  }
  a.addScaled(s, 1);
}

std::vector<ExprParser::Value> vec(ExprParser::Value a) {
  std::vector<ExprParser::Value> v;
  v.push_back(std::move(a));
  return v;
}
std::vector<ExprParser::Value> vec(ExprParser::Value a, ExprParser::Value b) {
  std::vector<ExprParser::Value> v = vec(std::move(a));
  v.push_back(std::move(b));
  return v;
}

// A call that names the loop it runs along after its value operands: softmax (the loop it normalises
// over) and the data-dependent intrinsics (intrinsics.h), hist with its value range after the loop.
struct AlongForm {
  int valueArgs = 1;
  bool constantAfterLoop = false;
  std::string signature;
};
std::optional<AlongForm> alongForm(const std::string& fn) {
  if (fn == "softmax") return AlongForm{1, false, "softmax(value, loop)"};
  if (const auto i = intrinsicNamed(fn))
    return AlongForm{i->valueArgs, i->constantAfterLoop, std::string(i->signature)};
  return std::nullopt;
}

}  // namespace

std::string joinNames(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

class ExprParser::Nested {
 public:
  Nested(ExprParser& p, const Token& at) : m_p(p) {
    if (m_p.m_nesting >= kMaxDslNesting) tooDeep(at);
    ++m_p.m_nesting;
  }
  ~Nested() { --m_p.m_nesting; }
  Nested(const Nested&) = delete;
  Nested& operator=(const Nested&) = delete;

 private:
  ExprParser& m_p;
};

Expr ExprParser::parseValue(const Kernel& k, const Nest& nest) { return parseValueTree(k, nest).e; }

AffineExpr ExprParser::parseAffine(const Resolver& resolve) {
  AffineExpr e = parseAffineTerm(resolve);
  while (isPunct("+") || isPunct("-")) {
    const Token& op = next();
    AffineExpr rhs = parseAffineTerm(resolve);
    addChecked(e, rhs, op.text == "+" ? 1 : -1, op);
  }
  return e;
}
AffineExpr ExprParser::parseAffineTerm(const Resolver& resolve) {
  AffineExpr e = parseAffineFactor(resolve);
  while (isPunct("*") || isPunct("/")) {
    const Token& op = next();
    if (op.text == "/") fail(op, "'/' is not allowed in an affine expression");
    AffineExpr rhs = parseAffineFactor(resolve);
    if (!e.isConstant() && !rhs.isConstant())
      fail(op, "non-affine expression: product of two variable terms");
    e = e.isConstant() ? scaled(rhs, e.constant, op) : scaled(e, rhs.constant, op);
  }
  return e;
}
AffineExpr ExprParser::parseAffineFactor(const Resolver& resolve) {
  const Token& t = peek();
  if (isPunct("-")) {
    const Nested n(*this, next());
    return scaled(parseAffineFactor(resolve), -1, t);
  }
  if (isPunct("+")) {
    const Nested n(*this, next());
    return parseAffineFactor(resolve);
  }
  if (isPunct("(")) {
    const Nested n(*this, next());
    AffineExpr e = parseAffine(resolve);
    expectPunct(")", "to close the parenthesis");
    return e;
  }
  if (t.kind == Tok::Int) {
    next();
    return AffineExpr::ofConst(t.ival);
  }
  if (t.kind == Tok::Float) fail(t, "affine expressions take integer constants, found '" + t.text + "'");
  if (t.kind == Tok::Ident) {
    next();
    const auto v = resolve(t);
    if (!v) fail(t, "unknown name '" + t.text + "'");
    return AffineExpr::ofVar(*v);
  }
  fail(t, "expected an affine expression, found " + describe(t));
}

std::optional<int> ExprParser::loopVar(const Nest& nest, const Token& id) {
  const int l = nest.find(id.text);
  if (l < 0) {
    fail(id, "unknown loop variable '" + id.text + "' (the loops of this statement are " +
                 joinNames(nest.names) + ")");
  }
  return l;
}

Condition ExprParser::parseCondition(const Kernel& k, const Nest& nest) {
  auto resolver = [&](const Token& id) -> std::optional<int> {
    const int l = nest.find(id.text);
    if (l >= 0) return l;
    const int d = k.dimIndex(id.text);
    if (d >= 0) return kDimBase + d;
    fail(id, "unknown name '" + id.text + "' in condition (loop variables: " + joinNames(nest.names) +
                 "; dimensions: " + joinNames(k.dims) + ")");
  };
  Condition c;
  c.lhs = parseAffine(resolver);
  const Token& op = peek();
  static const std::pair<const char*, CmpOp> kOps[] = {{"<", CmpOp::Lt},  {"<=", CmpOp::Le},
                                                       {">", CmpOp::Gt},  {">=", CmpOp::Ge},
                                                       {"==", CmpOp::Eq}, {"!=", CmpOp::Ne}};
  bool found = false;
  for (const auto& [text, cmp] : kOps) {
    if (op.kind == Tok::Punct && op.text == text) {
      c.op = cmp;
      found = true;
    }
  }
  if (!found) fail(op, "expected a comparison (<, <=, >, >=, ==, !=), found " + describe(op));
  next();
  c.rhs = parseAffine(resolver);
  return c;
}

// NAME already consumed: [idx][idx]...
TensorRef ExprParser::parseRefAfterName(const Kernel& k, const Nest& nest, const Token& name) {
  TensorRef ref;
  ref.tensor = k.tensorIndex(name.text);
  if (ref.tensor < 0) {
    std::vector<std::string> names;
    for (const auto& t : k.tensors) names.push_back(t.name);
    fail(name, "unknown tensor '" + name.text + "' (tensors: " + joinNames(names) + ")");
  }
  const Tensor& t = k.tensors[ref.tensor];
  auto resolver = [&](const Token& id) { return loopVar(nest, id); };
  std::vector<SourcePos>& positions = m_indexPos.emplace_back();
  while (isPunct("[")) {
    const Token& open = next();
    if (ref.index.size() == t.shape.size()) {
      fail(open, "too many indices for tensor '" + t.name + "' (it has " + std::to_string(t.shape.size()) +
                     " dimension" + (t.shape.size() == 1 ? "" : "s") + ")");
    }
    if (isPunct("]")) fail(peek(), "expected an index expression, found ']'");
    positions.push_back({peek().line, peek().col});
    ref.index.push_back(parseAffine(resolver));
    expectPunct("]", "to close the index");
  }
  if (ref.index.size() != t.shape.size()) {
    fail(name, "tensor '" + t.name + "' has " + std::to_string(t.shape.size()) + " dimension" +
                   (t.shape.size() == 1 ? "" : "s") + " but " + std::to_string(ref.index.size()) + " ind" +
                   (ref.index.size() == 1 ? "ex is" : "ices are") + " given");
  }
  return ref;
}

// ---- value expressions ----
ExprParser::Value ExprParser::node(Expr::Kind kind, std::string op, std::vector<Value> args,
                                   const Token& at) {
  Value v;
  v.e.kind = kind;
  v.e.op = std::move(op);
  for (Value& a : args) {
    v.depth = std::max(v.depth, a.depth + 1);
    v.e.args.push_back(std::move(a.e));
  }
  if (v.depth > kMaxDslNesting) tooDeep(at);
  return v;
}

ExprParser::Value ExprParser::parseValueTree(const Kernel& k, const Nest& nest) {
  Value e = parseValueTerm(k, nest);
  while (isPunct("+") || isPunct("-")) {
    const Token& op = next();
    Value rhs = parseValueTerm(k, nest);
    e = node(Expr::Kind::Binary, op.text, vec(std::move(e), std::move(rhs)), op);
  }
  return e;
}
ExprParser::Value ExprParser::parseValueTerm(const Kernel& k, const Nest& nest) {
  Value e = parseValueUnary(k, nest);
  while (isPunct("*") || isPunct("/")) {
    const Token& op = next();
    Value rhs = parseValueUnary(k, nest);
    e = node(Expr::Kind::Binary, op.text, vec(std::move(e), std::move(rhs)), op);
  }
  return e;
}
ExprParser::Value ExprParser::parseValueUnary(const Kernel& k, const Nest& nest) {
  if (isPunct("-")) {
    const Token& op = next();
    const Nested n(*this, op);
    Value inner = parseValueUnary(k, nest);
    if (inner.e.kind == Expr::Kind::Const) {
      inner.e.value = -inner.e.value;
      return inner;
    }
    return node(Expr::Kind::Unary, "-", vec(std::move(inner)), op);
  }
  if (isPunct("+")) {
    const Nested n(*this, next());
    return parseValueUnary(k, nest);
  }
  return parseValuePrimary(k, nest);
}
ExprParser::Value ExprParser::parseValuePrimary(const Kernel& k, const Nest& nest) {
  const Token& t = peek();
  if (t.kind == Tok::Int || t.kind == Tok::Float) {
    next();
    Value c;
    c.e.kind = Expr::Kind::Const;
    c.e.value = t.fval;
    return c;
  }
  if (isPunct("(")) {
    const Nested n(*this, next());
    Value e = parseValueTree(k, nest);
    expectPunct(")", "to close the parenthesis");
    return e;
  }
  if (t.kind == Tok::Ident) {
    next();
    if (isPunct("(")) return parseCall(k, nest, t);
    Value r;
    r.e.kind = Expr::Kind::Ref;
    r.e.ref = parseRefAfterName(k, nest, t);
    return r;
  }
  fail(t, "expected a value (number, tensor reference, function call or '('), found " + describe(t));
}
void ExprParser::expectComma(const std::string& signature) {
  if (!isPunct(",")) fail(peek(), signature + " takes more arguments, found " + describe(peek()));
  next();
}
ExprParser::Value ExprParser::parseCall(const Kernel& k, const Nest& nest, const Token& fn) {
  static const std::pair<const char*, int> kFns[] = {
      {"relu", 1}, {"exp", 1}, {"max", 2}, {"min", 2}, {"softmax", 2}};
  int arity = -1;
  for (const auto& [name, n] : kFns)
    if (fn.text == name) arity = n;
  const std::optional<AlongForm> along = alongForm(fn.text);
  if (arity < 0 && !along)
    fail(fn, "unknown function '" + fn.text +
                 "' (known: relu, exp, max, min, softmax, select, unique, prefix, hist, search)");
  const Nested n(*this, expectPunct("(", "after the function name"));
  std::vector<Value> args = vec(parseValueTree(k, nest));
  int reduceVar = -1;
  if (along) {
    for (int a = 1; a < along->valueArgs; ++a) {
      expectComma(along->signature);
      args.push_back(parseValueTree(k, nest));
    }
    expectComma(along->signature);
    const Token& var = expectIdent("the loop variable of " + along->signature);
    reduceVar = *loopVar(nest, var);
    if (along->constantAfterLoop) {
      expectComma(along->signature);
      const Token& c = peek();
      if (c.kind != Tok::Int || c.ival < 1)
        fail(c, along->signature + ": the value range must be a positive integer, found " + describe(c));
      next();
      Value range;
      range.e.kind = Expr::Kind::Const;
      range.e.value = c.fval;
      args.push_back(std::move(range));
    }
    arity = static_cast<int>(args.size()) + 1;
  } else {
    for (int a = 1; a < arity; ++a) {
      if (!isPunct(","))
        fail(peek(),
             "'" + fn.text + "' takes " + std::to_string(arity) + " arguments, found " + describe(peek()));
      next();
      args.push_back(parseValueTree(k, nest));
    }
  }
  if (isPunct(","))
    fail(peek(),
         along ? along->signature + " takes no more arguments"
               : "'" + fn.text + "' takes " + std::to_string(arity) + " argument" + (arity == 1 ? "" : "s"));
  expectPunct(")", "to close the call");
  Value call = node((fn.text == "max" || fn.text == "min") ? Expr::Kind::Binary : Expr::Kind::Call, fn.text,
                    std::move(args), fn);
  call.e.reduceVar = reduceVar;
  return call;
}
}  // namespace pim::dsl_detail
