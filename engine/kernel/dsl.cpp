// SPDX-License-Identifier: Apache-2.0
// Kernel DSL parser (grammar in docs/dsl.md): a recursive-descent parser per logical line of the lexer
// (dsl_lexer.h).
#include "engine/kernel/dsl.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/kernel/dsl_expr.h"
#include "engine/kernel/dsl_lexer.h"
#include "engine/kernel/intrinsics.h"

namespace pim {
namespace {

using namespace dsl_detail;

// ---------------------------------------------------------------------------------------------------------
// Parser

class Parser : private ExprParser {
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

  void parseStatement(Kernel& k) {
    const Token& forTok = next();
    Statement st;
    st.line = forTok.line;
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
    st.value = parseValue(k, nest);
    expectEnd();
    st.indexPos = takeIndexPositions();

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
