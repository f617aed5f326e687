// SPDX-License-Identifier: Apache-2.0
// Kernel DSL parser (grammar in docs/dsl.md): a recursive-descent parser per logical line of the lexer
// (dsl_lexer.h).
#include "engine/kernel/dsl.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/kernel/dsl_lexer.h"
#include "engine/kernel/intrinsics.h"

namespace pim {
namespace {

using namespace dsl_detail;

// ---------------------------------------------------------------------------------------------------------
// Parser

/// Dimension variables in conditions are numbered from here while parsing, then renumbered to
/// loops.size() + dim once every loop of the kernel is known.
constexpr int kDimBase = 1 << 24;

class Parser : private TokenCursor {
 public:
  explicit Parser(std::vector<LogicalLine> lines, Token eof)
      : m_lines(std::move(lines)), m_eof(std::move(eof)) {}

  Kernel run() {
    Kernel k;
    if (m_lines.empty()) fail(m_eof, "expected 'kernel NAME(...)', found no kernel");
    std::size_t li = 0;
    startLine(li);
    parseHeader(k);
    bool ended = false;
    const Token* endTok = nullptr;
    for (++li; li < m_lines.size(); ++li) {
      startLine(li);
      const Token& t = peek();
      if (t.kind != Tok::Ident)
        fail(t, "expected 'doc', 'input', 'output', 'temp', 'for' or 'end', found " + describe(t));
      if (t.text == "end") {
        endTok = &t;
        next();
        expectEnd();
        ended = true;
        break;
      }
      if (t.text == "doc") {
        parseDoc(k);
      } else if (t.text == "input" || t.text == "output" || t.text == "temp") {
        parseTensor(k);
      } else if (t.text == "for") {
        parseStatement(k);
      } else {
        fail(t, "expected 'doc', 'input', 'output', 'temp', 'for' or 'end', found " + describe(t));
      }
    }
    if (!ended)
      fail(m_eof, "missing 'end' for kernel '" + k.name + "' (opened on line " +
                      std::to_string(m_lines.front().toks.front().line) + ")");
    if (li + 1 < m_lines.size()) {
      fail(m_lines[li + 1].toks.front(), "unexpected text after 'end' (one kernel per text)");
    }
    if (k.statements.empty()) fail(*endTok, "kernel '" + k.name + "' has no statements");
    // Renumber dimension variables in guards now that the loop count is final.
    const int loopCount = static_cast<int>(k.loops.size());
    for (auto& st : k.statements) {
      for (auto& g : st.guards) {
        for (AffineExpr* e : {&g.lhs, &g.rhs})
          for (auto& term : e->terms)
            if (term.first >= kDimBase) term.first = term.first - kDimBase + loopCount;
      }
    }
    return k;
  }

 private:
  std::vector<LogicalLine> m_lines;
  Token m_eof;
  bool m_hasDoc = false;
  int m_nesting = 0;  // open parentheses, signs and calls of the expression being parsed
  std::vector<std::vector<SourcePos>> m_indexPos;  // the statement's index positions (Statement::indexPos)

  // The parser recurses once per '(' , sign or call: bounded, so that a million nested parentheses is an
  // error at the first one too many rather than a stack overflow.
  class Nested {
   public:
    Nested(Parser& p, const Token& at) : m_p(p) {
      if (m_p.m_nesting >= kMaxDslNesting) tooDeep(at);
      ++m_p.m_nesting;
    }
    ~Nested() { --m_p.m_nesting; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    Parser& m_p;
  };
  [[noreturn]] static void tooDeep(const Token& at) { fail(at, tooDeepMessage()); }

  void startLine(std::size_t li) { TokenCursor::startLine(m_lines[li]); }

  // kernel NAME(dim [= default], ...)
  void parseHeader(Kernel& k) {
    if (!isWord("kernel")) fail(peek(), "expected 'kernel NAME(...)', found " + describe(peek()));
    next();
    k.name = expectIdent("kernel name").text;
    expectPunct("(", "after the kernel name");
    if (!isPunct(")")) {
      while (true) {
        const Token& d = expectIdent("dimension name");
        if (k.dimIndex(d.text) >= 0) fail(d, "duplicate dimension '" + d.text + "'");
        std::optional<std::int64_t> def;
        if (isPunct("=")) {
          next();
          const Token& v = peek();
          if (isPunct("-") && peek(1).kind == Tok::Int)
            fail(v, "default of dimension '" + d.text + "' must be a positive integer");
          if (v.kind != Tok::Int)
            fail(v, "default of dimension '" + d.text + "' must be a positive integer, found " + describe(v));
          if (v.ival < 1 || v.ival > kMaxDimension)
            fail(v, "default of dimension '" + d.text + "': " + v.text +
                        " is not a valid size (must be 1..2^40)");
          def = v.ival;
          next();
        }
        k.dims.push_back(d.text);
        k.dimDefaults.push_back(def);
        if (isPunct(",")) {
          next();
          continue;
        }
        break;
      }
    }
    expectPunct(")", "to close the dimension list");
    expectEnd();
  }

  void parseDoc(Kernel& k) {
    const Token& kw = next();
    if (m_hasDoc) fail(kw, "duplicate 'doc' line");
    if (peek().kind != Tok::String)
      fail(peek(), "expected a quoted string after 'doc', found " + describe(peek()));
    k.description = next().text;
    m_hasDoc = true;
    expectEnd();
  }

  // input|output|temp NAME: DTYPE[e0][e1]... [resident]
  void parseTensor(Kernel& k) {
    const Token& kw = next();
    Tensor t;
    t.role = kw.text == "input"    ? TensorRole::Input
             : kw.text == "output" ? TensorRole::Output
                                   : TensorRole::Temp;
    const Token& name = expectIdent("tensor name");
    if (k.tensorIndex(name.text) >= 0) fail(name, "duplicate tensor '" + name.text + "'");
    t.name = name.text;
    expectPunct(":", "after the tensor name");
    const Token& dt = expectIdent("a dtype (f16, bf16, f32, f64, i8, i32, i64)");
    const auto dtype = parseDType(dt.text);
    if (!dtype) fail(dt, "unknown dtype '" + dt.text + "' (expected f16, bf16, f32, f64, i8, i32 or i64)");
    t.dtype = *dtype;
    while (isPunct("[")) {
      next();
      if (isPunct("]")) fail(peek(), "expected an extent expression, found ']'");
      t.shape.push_back(parseAffine([&](const Token& id) { return dimVar(k, id); }));
      expectPunct("]", "to close the extent");
    }
    if (isWord("resident")) {
      if (t.role == TensorRole::Temp)
        fail(peek(), "a temporary cannot be resident: it never leaves the banks");
      next();
      t.resident = true;
    }
    expectEnd();
    k.tensors.push_back(std::move(t));
  }

  std::optional<int> dimVar(const Kernel& k, const Token& id) {
    const int d = k.dimIndex(id.text);
    if (d < 0) fail(id, "unknown dimension '" + id.text + "' (dimensions: " + joinNames(k.dims) + ")");
    return d;
  }

  static std::string joinNames(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? "none" : out;
  }

  // ---- affine expressions ----
  using Resolver = std::function<std::optional<int>(const Token&)>;

  static std::int64_t checkedMul(std::int64_t a, std::int64_t b, const Token& at) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r)) fail(at, "integer overflow in affine expression");
    return r;
  }
  static AffineExpr scaled(const AffineExpr& e, std::int64_t k, const Token& at) {
    AffineExpr r;
    r.constant = checkedMul(e.constant, k, at);
    if (k == 0) return r;
    for (const auto& [v, c] : e.terms) r.terms.emplace_back(v, checkedMul(c, k, at));
    return r;
  }
  static void addChecked(AffineExpr& a, const AffineExpr& b, std::int64_t sign, const Token& at) {
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

  AffineExpr parseAffine(const Resolver& resolve) {
    AffineExpr e = parseAffineTerm(resolve);
    while (isPunct("+") || isPunct("-")) {
      const Token& op = next();
      AffineExpr rhs = parseAffineTerm(resolve);
      addChecked(e, rhs, op.text == "+" ? 1 : -1, op);
    }
    return e;
  }
  AffineExpr parseAffineTerm(const Resolver& resolve) {
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
  AffineExpr parseAffineFactor(const Resolver& resolve) {
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

  // ---- statements ----
  struct Nest {
    std::vector<int> loops;
    std::vector<std::string> names;  // loop var names, same order
    int find(std::string_view n) const {
      for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == n) return loops[i];
      return -1;
    }
  };

  std::optional<int> loopVar(const Kernel& k, const Nest& nest, const Token& id) {
    const int l = nest.find(id.text);
    if (l < 0) {
      fail(id, "unknown loop variable '" + id.text + "' (the loops of this statement are " +
                   joinNames(nest.names) + ")");
    }
    (void)k;
    return l;
  }

  void parseStatement(Kernel& k) {
    const Token& forTok = next();
    Statement st;
    st.line = forTok.line;
    m_indexPos.clear();
    Nest nest;
    std::vector<Loop> newLoops;  // committed only when the whole statement parsed
    auto dimResolver = [&](const Token& id) { return dimVar(k, id); };
    while (true) {
      const Token& var = expectIdent("a loop variable");
      if (nest.find(var.text) >= 0)
        fail(var, "loop variable '" + var.text + "' appears twice in this statement");
      Loop loop;
      loop.var = var.text;
      if (isPunct("<")) {
        next();
        loop.lower = AffineExpr::ofConst(0);
        loop.upper = parseAffine(dimResolver);
      } else if (isWord("in")) {
        next();
        expectPunct("[", "to open the range [lower, upper)");
        loop.lower = parseAffine(dimResolver);
        expectPunct(",", "between the range bounds");
        loop.upper = parseAffine(dimResolver);
        expectPunct(")", "to close the half-open range [lower, upper)");
      } else {
        fail(peek(),
             "expected '<' or 'in' after loop variable '" + var.text + "', found " + describe(peek()));
      }
      int idx = k.loopIndex(loop.var);
      if (idx >= 0) {
        const Loop& prev = k.loops[idx];
        if (!(prev.lower == loop.lower) || !(prev.upper == loop.upper)) {
          fail(var, "loop variable '" + loop.var + "' has range [" + loop.lower.str(k.dims) + ", " +
                        loop.upper.str(k.dims) + ") here but [" + prev.lower.str(k.dims) + ", " +
                        prev.upper.str(k.dims) + ") in an earlier statement");
        }
      } else {
        auto it =
            std::find_if(newLoops.begin(), newLoops.end(), [&](const Loop& l) { return l.var == loop.var; });
        idx = static_cast<int>(k.loops.size() + (it - newLoops.begin()));
        if (it == newLoops.end()) newLoops.push_back(loop);
      }
      nest.loops.push_back(idx);
      nest.names.push_back(loop.var);
      if (isPunct(",")) {
        next();
        continue;
      }
      break;
    }
    expectPunct(":", "after the loop list");
    st.loops = nest.loops;

    if (isWord("if")) {
      next();
      while (true) {
        st.guards.push_back(parseCondition(k, nest));
        if (isWord("and")) {
          next();
          continue;
        }
        break;
      }
      expectPunct(":", "after the condition");
    }

    // target
    const Token& tname = expectIdent("the target tensor");
    st.target = parseRefAfterName(k, nest, tname);
    const Tensor& target = k.tensors[st.target.tensor];
    if (target.role == TensorRole::Input) fail(tname, "cannot assign to input tensor '" + target.name + "'");

    // assignment operator
    if (isPunct("=")) {
      next();
      st.op = AssignOp::Set;
    } else if (isPunct("+=")) {
      next();
      st.op = AssignOp::Add;
    } else if (const auto word = wordAssignment()) {
      next();
      next();
      st.op = *word;
    } else {
      fail(peek(),
           "expected '=', '+=', 'max=', 'min=' or 'argmin=' after the target, found " + describe(peek()));
    }
    const Token& valueTok = peek();
    st.value = parseValue(k, nest).e;
    expectEnd();
    st.indexPos = std::move(m_indexPos);

    for (auto& l : newLoops) k.loops.push_back(std::move(l));
    // The whole kernel is dropped on an error, so the loops committed above need no undoing.
    if (const std::string why = intrinsicMisuse(k, st); !why.empty()) fail(valueTok, why);
    if (const std::string why = argminMisuse(k, st); !why.empty()) fail(valueTok, why);
    k.statements.push_back(std::move(st));
  }

  // "max=", "min=" or "argmin=" at the cursor: the word and '=' written together, as one operator.
  std::optional<AssignOp> wordAssignment() const {
    static constexpr std::pair<std::string_view, AssignOp> kWords[] = {
        {"max", AssignOp::Max}, {"min", AssignOp::Min}, {"argmin", AssignOp::ArgMin}};
    for (const auto& [word, op] : kWords)
      if (isWord(word) && isPunct("=", 1) && peek(1).line == peek().line &&
          peek(1).col == peek().col + static_cast<int>(word.size()))
        return op;
    return std::nullopt;
  }

  // argmin= stores a loop's value, so exactly one loop of the statement may be reduced over.
  static std::string argminMisuse(const Kernel& k, const Statement& st) {
    if (st.op != AssignOp::ArgMin) return {};
    const std::vector<int> reduced = st.reducedLoops();
    if (reduced.size() == 1) return {};
    std::string names;
    for (int l : reduced)
      names += (names.empty() ? "'" : ", '") + k.loops[static_cast<std::size_t>(l)].var + "'";
    return "argmin= stores the position along the one loop that does not index its target; this statement "
           "reduces over " +
           (reduced.empty() ? std::string("none") : names);
  }

  Condition parseCondition(const Kernel& k, const Nest& nest) {
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
  TensorRef parseRefAfterName(const Kernel& k, const Nest& nest, const Token& name) {
    TensorRef ref;
    ref.tensor = k.tensorIndex(name.text);
    if (ref.tensor < 0) {
      std::vector<std::string> names;
      for (const auto& t : k.tensors) names.push_back(t.name);
      fail(name, "unknown tensor '" + name.text + "' (tensors: " + joinNames(names) + ")");
    }
    const Tensor& t = k.tensors[ref.tensor];
    auto resolver = [&](const Token& id) { return loopVar(k, nest, id); };
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
  // A value expression and the depth of its tree: later stages walk (and destroy) the tree recursively, so a
  // long chain of operators ("a + a + ... + a") is bounded like nesting.
  struct Value {
    Expr e;
    int depth = 1;
  };
  static Value node(Expr::Kind kind, std::string op, std::vector<Value> args, const Token& at) {
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

  Value parseValue(const Kernel& k, const Nest& nest) {
    Value e = parseValueTerm(k, nest);
    while (isPunct("+") || isPunct("-")) {
      const Token& op = next();
      Value rhs = parseValueTerm(k, nest);
      e = node(Expr::Kind::Binary, op.text, vec(std::move(e), std::move(rhs)), op);
    }
    return e;
  }
  Value parseValueTerm(const Kernel& k, const Nest& nest) {
    Value e = parseValueUnary(k, nest);
    while (isPunct("*") || isPunct("/")) {
      const Token& op = next();
      Value rhs = parseValueUnary(k, nest);
      e = node(Expr::Kind::Binary, op.text, vec(std::move(e), std::move(rhs)), op);
    }
    return e;
  }
  Value parseValueUnary(const Kernel& k, const Nest& nest) {
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
  static std::vector<Value> vec(Value a) {
    std::vector<Value> v;
    v.push_back(std::move(a));
    return v;
  }
  static std::vector<Value> vec(Value a, Value b) {
    std::vector<Value> v = vec(std::move(a));
    v.push_back(std::move(b));
    return v;
  }
  Value parseValuePrimary(const Kernel& k, const Nest& nest) {
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
      Value e = parseValue(k, nest);
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
  // A call that names the loop it runs along after its value operands: softmax (the loop it normalises
  // over) and the data-dependent intrinsics (intrinsics.h), hist with its value range after the loop.
  struct AlongForm {
    int valueArgs = 1;
    bool constantAfterLoop = false;
    std::string signature;
  };
  static std::optional<AlongForm> alongForm(const std::string& fn) {
    if (fn == "softmax") return AlongForm{1, false, "softmax(value, loop)"};
    if (const auto i = intrinsicNamed(fn))
      return AlongForm{i->valueArgs, i->constantAfterLoop, std::string(i->signature)};
    return std::nullopt;
  }
  void expectComma(const std::string& signature) {
    if (!isPunct(",")) fail(peek(), signature + " takes more arguments, found " + describe(peek()));
    next();
  }
  Value parseCall(const Kernel& k, const Nest& nest, const Token& fn) {
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
    std::vector<Value> args = vec(parseValue(k, nest));
    int reduceVar = -1;
    if (along) {
      for (int a = 1; a < along->valueArgs; ++a) {
        expectComma(along->signature);
        args.push_back(parseValue(k, nest));
      }
      expectComma(along->signature);
      const Token& var = expectIdent("the loop variable of " + along->signature);
      reduceVar = *loopVar(k, nest, var);
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
        args.push_back(parseValue(k, nest));
      }
    }
    if (isPunct(","))
      fail(peek(), along ? along->signature + " takes no more arguments"
                         : "'" + fn.text + "' takes " + std::to_string(arity) + " argument" +
                               (arity == 1 ? "" : "s"));
    expectPunct(")", "to close the call");
    Value call = node((fn.text == "max" || fn.text == "min") ? Expr::Kind::Binary : Expr::Kind::Call, fn.text,
                      std::move(args), fn);
    call.e.reduceVar = reduceVar;
    return call;
  }
};

}  // namespace

Kernel parseKernel(std::string_view text, std::string_view origin) {
  try {
    Token eof;
    std::vector<LogicalLine> lines = lex(text, eof);
    Kernel k = Parser(std::move(lines), eof).run();
    k.source = std::string(text);
    k.origin = std::string(origin);
    return k;
  } catch (const DslError& e) {
    throw InputError(std::string(origin) + ":" + std::to_string(e.line) + ":" + std::to_string(e.col) + ": " +
                     e.msg);
  }
}

Kernel loadKernelFile(const std::string& path) {
  return parseKernel(readInputFile(path, "kernel file"), path);
}

}  // namespace pim
