// SPDX-License-Identifier: Apache-2.0
// The kernel DSL's lexer (grammar in docs/dsl.md), internal to engine/kernel: physical lines become tokens,
// continuation lines are joined into logical lines, and TokenCursor walks one logical line for the parser.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pim::dsl_detail {

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

[[noreturn]] inline void fail(const Token& t, std::string msg) {
  throw DslError(t.line, t.col, std::move(msg));
}

/// "'x'", "end of line" or "string \"...\"": a token as messages name it.
std::string describe(const Token& t);
/// The message of an expression nested past kMaxDslNesting.
std::string tooDeepMessage();

/// Splits the text into logical lines. A line ending with '\' continues on the next line; a `for` line also
/// continues on every following line that is more indented than it. `eof` receives the position after the
/// text. Throws DslError.
std::vector<LogicalLine> lex(std::string_view text, Token& eof);

/// Reading one logical line's tokens: look ahead, take, and expect with a message naming what was found.
class TokenCursor {
 public:
  void startLine(const LogicalLine& line) {
    m_toks = &line.toks;
    m_pos = 0;
  }
  const Token& peek(std::size_t ahead = 0) const;
  const Token& next();
  bool isPunct(std::string_view p, std::size_t ahead = 0) const;
  bool isWord(std::string_view w, std::size_t ahead = 0) const;
  const Token& expectPunct(std::string_view p, std::string_view context);
  const Token& expectIdent(std::string_view what);
  void expectEnd();

 private:
  const std::vector<Token>* m_toks = nullptr;
  std::size_t m_pos = 0;
};

}  // namespace pim::dsl_detail
