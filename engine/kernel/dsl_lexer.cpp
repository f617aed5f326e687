// SPDX-License-Identifier: Apache-2.0
#include "engine/kernel/dsl_lexer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <locale>
#include <sstream>

#include "engine/common/json_output.h"
#include "engine/kernel/dsl.h"

namespace pim::dsl_detail {

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

std::string tooDeepMessage() {
  return "expression nested deeper than " + std::to_string(kMaxDslNesting) +
         " levels (parentheses, signs, calls or a chain of operators); split it";
}

namespace {

/// "0xff".
std::string hexByte(char c) {
  static const char* hex = "0123456789abcdef";
  const auto b = static_cast<unsigned char>(c);
  return std::string("0x") + hex[b >> 4] + hex[b & 15];
}

bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

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
}  // namespace

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

const Token& TokenCursor::peek(std::size_t ahead) const {
  const std::size_t i = std::min(m_pos + ahead, m_toks->size() - 1);
  return (*m_toks)[i];
}

const Token& TokenCursor::next() {
  const Token& t = (*m_toks)[m_pos];
  if (m_pos + 1 < m_toks->size()) ++m_pos;
  return t;
}

bool TokenCursor::isPunct(std::string_view p, std::size_t ahead) const {
  const Token& t = peek(ahead);
  return t.kind == Tok::Punct && t.text == p;
}

bool TokenCursor::isWord(std::string_view w, std::size_t ahead) const {
  const Token& t = peek(ahead);
  return t.kind == Tok::Ident && t.text == w;
}

const Token& TokenCursor::expectPunct(std::string_view p, std::string_view context) {
  if (!isPunct(p))
    fail(peek(), "expected '" + std::string(p) + "' " + std::string(context) + ", found " + describe(peek()));
  return next();
}

const Token& TokenCursor::expectIdent(std::string_view what) {
  if (peek().kind != Tok::Ident)
    fail(peek(), "expected " + std::string(what) + ", found " + describe(peek()));
  return next();
}

void TokenCursor::expectEnd() {
  if (peek().kind != Tok::End)
    fail(peek(), "unexpected " + describe(peek()) + " (expected the end of the line)");
}

}  // namespace pim::dsl_detail
