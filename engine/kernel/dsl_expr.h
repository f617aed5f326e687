// SPDX-License-Identifier: Apache-2.0
// The kernel DSL's expression parser (grammar in docs/dsl.md), internal to engine/kernel: what a statement
// line holds after its loop list (affine bounds and indices, conditions, tensor references, value
// expressions). dsl.cpp's parser of headers, tensors and statements builds on it.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/kernel/dsl_lexer.h"
#include "engine/kernel/kernel.h"

namespace pim::dsl_detail {

/// Dimension variables in conditions are numbered from here while parsing, then renumbered to
/// loops.size() + dim once every loop of the kernel is known.
inline constexpr int kDimBase = 1 << 24;

/// The loops of the statement being parsed: kernel loop indices and their variable names, in order.
struct Nest {
  std::vector<int> loops;
  std::vector<std::string> names;
  int find(std::string_view n) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == n) return loops[i];
    return -1;
  }
};

/// "a, b, c", or "none": names as the messages list them.
std::string joinNames(const std::vector<std::string>& v);

class ExprParser : protected TokenCursor {
 public:
  /// A value expression and the depth of its tree: later stages walk (and destroy) the tree recursively, so
  /// a long chain of operators ("a + a + ... + a") is bounded like nesting.
  struct Value {
    Expr e;
    int depth = 1;
  };

 protected:
  /// A name in an affine expression to its variable number, or a failure naming the names it may be.
  using Resolver = std::function<std::optional<int>(const Token&)>;

  AffineExpr parseAffine(const Resolver& resolve);
  Condition parseCondition(const Kernel& k, const Nest& nest);
  /// NAME already consumed: [idx][idx]... Records the index positions for takeIndexPositions().
  TensorRef parseRefAfterName(const Kernel& k, const Nest& nest, const Token& name);
  Expr parseValue(const Kernel& k, const Nest& nest);
  /// The index positions of the references parsed since the last call (Statement::indexPos).
  std::vector<std::vector<SourcePos>> takeIndexPositions() { return std::exchange(m_indexPos, {}); }

 private:
  class Nested;  // one level of '(', sign or call, bounded by kMaxDslNesting
  int m_nesting = 0;
  std::vector<std::vector<SourcePos>> m_indexPos;

  AffineExpr parseAffineTerm(const Resolver& resolve);
  AffineExpr parseAffineFactor(const Resolver& resolve);
  static std::optional<int> loopVar(const Nest& nest, const Token& id);
  static Value node(Expr::Kind kind, std::string op, std::vector<Value> args, const Token& at);
  Value parseValueTree(const Kernel& k, const Nest& nest);
  Value parseValueTerm(const Kernel& k, const Nest& nest);
  Value parseValueUnary(const Kernel& k, const Nest& nest);
  Value parseValuePrimary(const Kernel& k, const Nest& nest);
  void expectComma(const std::string& signature);
  Value parseCall(const Kernel& k, const Nest& nest, const Token& fn);
};

}  // namespace pim::dsl_detail
