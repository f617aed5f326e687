// SPDX-License-Identifier: Apache-2.0
// Kernel DSL parser (grammar in docs/dsl.md). Two stages: a lexer that turns physical lines into tokens and
// joins continuation lines into logical lines, then a recursive-descent parser per logical line.
#include "engine/kernel/dsl.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <sstream>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/json_output.h"
#include "engine/kernel/intrinsics.h"

namespace pim {
namespace {

enum class Tok : std::uint8_t { Ident, Int, Float, String, Punct, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;  // identifier / punctuation / string contents / number spelling
  std::int64_t ival = 0;
  double fval = 0.0;
  int line = 0;
  int col = 0;
};

struct LogicalLine {
  std::vector<Token> toks;  // ends with a Tok::End token placed just after the last real token
};

class DslError {
 public:
  DslError(int line, int col, std::string msg) : line(line), col(col), msg(std::move(msg)) {}
  int line, col;
  std::string msg;
};

[[noreturn]] void fail(const Token& t, std::string msg) { throw DslError(t.line, t.col, std::move(msg)); }

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::End:
      return "end of line";
    case Tok::String:
      return "string \"" + t.text + "\"";
    default:
      return "'" + t.text + "'";
  }
}

/// "0xff".
std::string hexByte(char c) {
  static const char* hex = "0123456789abcdef";
  const auto b = static_cast<unsigned char>(c);
  return std::string("0x") + hex[b >> 4] + hex[b & 15];
}

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string tooDeepMessage() {
  return "expression nested deeper than " + std::to_string(kMaxDslNesting) +
         " levels (parentheses, signs, calls or a chain of operators); split it";
}

// ---------------------------------------------------------------------------------------------------------
// Lexer

/// The parser's nesting limit, checked while lexing: a 16 MiB file of '(' fails at the 257th one instead of
/// after all 16 million tokens are built (about a gigabyte). It counts open parentheses plus the current run
/// of unary signs, a lower bound of the parser's count (every '(' and unary sign is one level there), so it
/// refuses nothing the parser accepts and fails on the same token where nesting is all parentheses or signs.
class NestingGuard {
 public:
  /// A statement starts: nothing is open.
  void reset() { *this = NestingGuard(); }
  void see(const Token& t) {
    if (t.kind != Tok::Punct) {
      m_afterOperand = true;
      m_signs = 0;
      return;
    }
    if ((t.text == "-" || t.text == "+") && !m_afterOperand) {
      ++m_signs;
    } else if (t.text == "(") {
      ++m_parens;
    } else {
      m_signs = 0;
      if (t.text == ")") m_parens = std::max(0, m_parens - 1);
    }
    if (m_parens + m_signs > kMaxDslNesting) throw DslError(t.line, t.col, tooDeepMessage());
    if (t.text == "(") m_signs = 0;
    m_afterOperand = t.text == ")" || t.text == "]";
  }

 private:
  int m_parens = 0;
  int m_signs = 0;
  bool m_afterOperand = false;
};

struct PhysLine {
  std::vector<Token> toks;
  int indent = 0;          // column of the first token
  bool backslash = false;  // ends with a continuation backslash
};

/// `tokens`: the tokens of the text so far, checked against kMaxDslTokens as each one is made.
PhysLine lexLine(std::string_view s, int lineNo, NestingGuard& guard, std::size_t& tokens) {
  PhysLine pl;
  std::size_t i = 0;
  auto col = [&](std::size_t at) { return static_cast<int>(at) + 1; };
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
      continue;
    }
    if (c == '#') break;
    Token t;
    t.line = lineNo;
    t.col = col(i);
    if (c == '\\') {
      // Must be the last thing on the line (apart from blanks and a comment).
      std::size_t j = i + 1;
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r')) ++j;
      if (j < s.size() && s[j] != '#') throw DslError(lineNo, t.col, "'\\' continues a line and must end it");
      pl.backslash = true;
      break;
    }
    if (isIdentStart(c)) {
      std::size_t j = i;
      while (j < s.size() && isIdentChar(s[j])) ++j;
      t.kind = Tok::Ident;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      std::size_t j = i;
      bool isFloat = false;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && s[j] == '.') {
        isFloat = true;
        ++j;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      }
      if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
          isFloat = true;
          j = k;
          while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        }
      }
      t.text = std::string(s.substr(i, j - i));
      if (isFloat) {
        t.kind = Tok::Float;
        std::istringstream in(t.text);
        in.imbue(std::locale::classic());
        in >> t.fval;
        if (!in) throw DslError(lineNo, t.col, "bad number '" + t.text + "'");
      } else {
        t.kind = Tok::Int;
        const auto [p, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), t.ival);
        if (ec != std::errc{} || p != t.text.data() + t.text.size())
          throw DslError(lineNo, t.col, "integer '" + t.text + "' is too large");
        t.fval = static_cast<double>(t.ival);
      }
      i = j;
    } else if (c == '"') {
      std::size_t j = i + 1;
      std::string text;
      bool closed = false;
      while (j < s.size()) {
        if (s[j] == '\\' && j + 1 < s.size() && (s[j + 1] == '"' || s[j + 1] == '\\')) {
          text += s[j + 1];
          j += 2;
          continue;
        }
        if (s[j] == '"') {
          closed = true;
          break;
        }
        text += s[j++];
      }
      if (!closed) throw DslError(lineNo, t.col, "unterminated string");
      t.kind = Tok::String;
      t.text = std::move(text);
      i = j + 1;
    } else {
      static const char* const kTwo[] = {"+=", "<=", ">=", "==", "!="};
      t.kind = Tok::Punct;
      bool matched = false;
      for (const char* two : kTwo) {
        if (s.substr(i, 2) == two) {
          t.text = two;
          i += 2;
          matched = true;
          break;
        }
      }
      if (!matched) {
        if (std::string_view("()[],:=<>+-*/").find(c) == std::string_view::npos) {
          const std::string shown =
              std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "\\x" + hexByte(c).substr(2);
          throw DslError(lineNo, t.col, "unexpected character '" + shown + "'");
        }
        t.text = std::string(1, c);
        ++i;
      }
    }
    guard.see(t);
    if (++tokens > kMaxDslTokens)
      throw DslError(t.line, t.col,
                     "more than " + std::to_string(kMaxDslTokens) + " tokens, the limit for a kernel text");
    pl.toks.push_back(std::move(t));
  }
  if (!pl.toks.empty()) pl.indent = pl.toks.front().col;
  return pl;
}

/// Splits the text into logical lines. A line ending with '\' continues on the next line; a `for` line also
/// continues on every following line that is more indented than it.
std::vector<LogicalLine> lex(std::string_view text, Token& eof) {
  std::vector<PhysLine> phys;
  int lineNo = 0;
  std::size_t pos = 0;
  int lastCol = 1;
  NestingGuard guard;
  std::size_t tokens = 0;
  while (pos <= text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    ++lineNo;
    // Kernel text is UTF-8: its source is written into schedule files and JSON, and read back exactly.
    if (const std::size_t bad = firstInvalidUtf8(line); bad != std::string_view::npos) {
      throw DslError(lineNo, static_cast<int>(bad) + 1,
                     "invalid UTF-8 (byte " + hexByte(line[bad]) + "); a kernel file is UTF-8 text");
    }
    // A line continued with '\' is one statement with the next; any other line ends its statement.
    if (phys.empty() || !phys.back().backslash) guard.reset();
    phys.push_back(lexLine(line, lineNo, guard, tokens));
    lastCol = static_cast<int>(line.size()) + 1;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  eof.kind = Tok::End;
  eof.line = lineNo;
  eof.col = lastCol;

  std::vector<LogicalLine> out;
  std::size_t i = 0;
  while (i < phys.size()) {
    if (phys[i].toks.empty() && !phys[i].backslash) {
      ++i;
      continue;
    }
    LogicalLine ll;
    const int indent = phys[i].indent;
    const bool isFor = !phys[i].toks.empty() && phys[i].toks.front().kind == Tok::Ident &&
                       phys[i].toks.front().text == "for";
    bool cont = true;
    int lastLine = phys[i].toks.empty() ? static_cast<int>(i) + 1 : phys[i].toks.back().line;
    int lastCol2 = 0;
    while (cont) {
      const PhysLine& p = phys[i];
      for (const auto& t : p.toks) ll.toks.push_back(t);
      if (!p.toks.empty()) {
        lastLine = p.toks.back().line;
        lastCol2 = p.toks.back().col + static_cast<int>(p.toks.back().text.size());
      }
      ++i;
      if (p.backslash) {
        cont = i < phys.size();
      } else if (isFor) {
        // Skip blank lines only if a more indented line follows them.
        std::size_t j = i;
        while (j < phys.size() && phys[j].toks.empty() && !phys[j].backslash) ++j;
        cont = j < phys.size() && !phys[j].toks.empty() && phys[j].indent > indent;
        if (cont) i = j;
      } else {
        cont = false;
      }
    }
    if (ll.toks.empty()) continue;
    Token end;
    end.kind = Tok::End;
    end.line = lastLine;
    end.col = lastCol2 > 0 ? lastCol2 : 1;
    // The end-of-line token points just past the last token (strings are wider than their text).
    const Token& last = ll.toks.back();
    if (last.kind == Tok::String) end.col = last.col + static_cast<int>(last.text.size()) + 2;
    ll.toks.push_back(end);
    out.push_back(std::move(ll));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Parser

/// Dimension variables in conditions are numbered from here while parsing, then renumbered to
/// loops.size() + dim once every loop of the kernel is known.
constexpr int kDimBase = 1 << 24;

class Parser {
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
  const std::vector<Token>* m_toks = nullptr;
  std::size_t m_pos = 0;
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

  void startLine(std::size_t li) {
    m_toks = &m_lines[li].toks;
    m_pos = 0;
  }
  const Token& peek(std::size_t ahead = 0) const {
    const std::size_t i = std::min(m_pos + ahead, m_toks->size() - 1);
    return (*m_toks)[i];
  }
  const Token& next() {
    const Token& t = (*m_toks)[m_pos];
    if (m_pos + 1 < m_toks->size()) ++m_pos;
    return t;
  }
  bool isPunct(std::string_view p, std::size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind == Tok::Punct && t.text == p;
  }
  bool isWord(std::string_view w, std::size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind == Tok::Ident && t.text == w;
  }
  const Token& expectPunct(std::string_view p, std::string_view context) {
    if (!isPunct(p))
      fail(peek(),
           "expected '" + std::string(p) + "' " + std::string(context) + ", found " + describe(peek()));
    return next();
  }
  const Token& expectIdent(std::string_view what) {
    if (peek().kind != Tok::Ident)
      fail(peek(), "expected " + std::string(what) + ", found " + describe(peek()));
    return next();
  }
  void expectEnd() {
    if (peek().kind != Tok::End)
      fail(peek(), "unexpected " + describe(peek()) + " (expected the end of the line)");
  }

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
    } else if (isWord("max") && isPunct("=", 1) && peek(1).line == peek().line &&
               peek(1).col == peek().col + 3) {
      next();
      next();
      st.op = AssignOp::Max;
    } else {
      fail(peek(), "expected '=', '+=' or 'max=' after the target, found " + describe(peek()));
    }
    const Token& valueTok = peek();
    st.value = parseValue(k, nest).e;
    expectEnd();
    st.indexPos = std::move(m_indexPos);

    for (auto& l : newLoops) k.loops.push_back(std::move(l));
    // The whole kernel is dropped on an error, so the loops committed above need no undoing.
    if (const std::string why = intrinsicMisuse(k, st); !why.empty()) fail(valueTok, why);
    k.statements.push_back(std::move(st));
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
