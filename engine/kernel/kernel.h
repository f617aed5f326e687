// SPDX-License-Identifier: Apache-2.0
// Kernel IR: affine loop nests over typed tensors (DCC section 4.5). A kernel is written once with symbolic
// dimensions (gemv(b,out,in)); a Shape binds them to sizes.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pim {

// I64 and F64 are UPMEM's int64 and double (PrIM's RED, SCAN, SEL run on int64); new types go last so stored
// values keep their meaning.
enum class DType : std::uint8_t { F16, BF16, F32, I8, I32, I64, F64 };
std::size_t dtypeBytes(DType t);
std::string_view dtypeName(DType t);
std::optional<DType> parseDType(std::string_view name);

/// sum(coeff * var) + constant. "var" indexes the kernel's loop variables (in index functions) or the
/// kernel's dimensions (in tensor shapes and loop bounds). Terms are sorted by var and have no zero coeff.
struct AffineExpr {
  std::vector<std::pair<int, std::int64_t>> terms;
  std::int64_t constant = 0;

  static AffineExpr ofVar(int var, std::int64_t coeff = 1, std::int64_t constant = 0);
  static AffineExpr ofConst(std::int64_t c);
  bool isConstant() const { return terms.empty(); }
  bool isSingleVar() const { return terms.size() == 1; }
  /// Value with the given variable values (indexed by var).
  std::int64_t eval(std::span<const std::int64_t> values) const;
  /// Human form with the given variable names, e.g. "i*2", "b+1", "n-1".
  std::string str(std::span<const std::string> names) const;
  /// Adds `other` scaled by `k` (keeps terms sorted, drops zeros).
  AffineExpr& addScaled(const AffineExpr& other, std::int64_t k);
  bool operator==(const AffineExpr&) const = default;
};

enum class TensorRole : std::uint8_t { Input, Output, Temp };

struct Tensor {
  std::string name;
  DType dtype = DType::F16;
  TensorRole role = TensorRole::Input;
  std::vector<AffineExpr> shape;  // over kernel dimensions
  /// Declared default residency (residency.h): kept in the banks between calls rather than moved from the
  /// host layout on every call. Where data lives is not what is computed, so equality ignores it.
  bool resident = false;
  bool operator==(const Tensor& o) const {
    return name == o.name && dtype == o.dtype && role == o.role && shape == o.shape;
  }
};

/// A reference T[e0][e1]... with affine index functions of loop variables.
struct TensorRef {
  int tensor = -1;
  std::vector<AffineExpr> index;
  bool operator==(const TensorRef&) const = default;
};

/// Right-hand-side expression tree.
struct Expr {
  enum class Kind : std::uint8_t { Const, Ref, Unary, Binary, Call };
  Kind kind = Kind::Const;
  double value = 0.0;      // Const
  TensorRef ref;           // Ref
  std::string op;          // Unary: "-", Binary: "+ - * / max min", Call: "relu", "exp", "softmax"
  std::vector<Expr> args;  // Unary/Binary/Call operands
  int reduceVar = -1;      // Call "softmax": the loop variable it normalises over
  bool operator==(const Expr&) const = default;
};

/// "=", "+=", "max=", "min=", "argmin=". `y argmin= v` over the statement's one reduced loop stores that
/// loop's value at which v is least (the first on ties, PrIM TS's strict `<`), -1 before any iteration.
enum class AssignOp : std::uint8_t { Set, Add, Max, Min, ArgMin };
enum class CmpOp : std::uint8_t { Lt, Le, Gt, Ge, Eq, Ne };

/// A guard "lhs op rhs" over loop variables and kernel dimensions (vars >= loopCount are dims).
struct Condition {
  AffineExpr lhs, rhs;
  CmpOp op = CmpOp::Lt;
  bool operator==(const Condition&) const = default;
};

struct Loop {
  std::string var;
  AffineExpr lower;  // over kernel dimensions; range is [lower, upper)
  AffineExpr upper;
  bool operator==(const Loop&) const = default;
};

/// Where a piece of DSL text starts (1-based line and column), for messages; 0 when the kernel was built in
/// code.
struct SourcePos {
  int line = 0;
  int col = 0;
};

/// One statement inside a perfect loop nest: for loops...: [if cond] target op= value.
struct Statement {
  std::vector<int> loops;  // indices into Kernel::loops, outermost first
  TensorRef target;
  AssignOp op = AssignOp::Set;
  Expr value;
  std::vector<Condition> guards;
  int line = 0;  // source line, for messages
  /// Where each index expression starts: one entry per reference of the statement in references() order
  /// (the target, then the value's references left to right), one position per index. Empty when unknown.
  std::vector<std::vector<SourcePos>> indexPos;

  /// Whether loop `loop` indexes the target: a loop of the statement that does not is reduced over.
  bool targetUses(int loop) const;
  /// The loops it reduces over (in `loops` order): in its loops, in no index of its target.
  std::vector<int> reducedLoops() const;
};

struct Kernel {
  std::string name;
  std::string description;
  std::vector<std::string> dims;                         // symbolic size names, e.g. {"b","out","in"}
  std::vector<std::optional<std::int64_t>> dimDefaults;  // defaults, same order as dims
  std::vector<Tensor> tensors;
  std::vector<Loop> loops;
  std::vector<Statement> statements;
  std::string source;  // DSL text it was parsed from
  std::string origin;  // what messages call the text: a file path or "<library:gemv>"; empty if built in code

  int tensorIndex(std::string_view name) const;  // -1 if absent
  int dimIndex(std::string_view name) const;
  int loopIndex(std::string_view var) const;
  std::vector<std::string> loopVarNames() const;
  /// Every tensor reference in statement order (targets and operands), with the statement index.
  std::vector<std::pair<int, TensorRef>> references() const;
  /// Operations the kernel needs from a backend: "mac", "add", "mul", "max", "relu", "exp", "softmax", "div".
  std::vector<std::string> requiredOps() const;
};

/// `k` with every tensor of element type `t` (`--dtype`: PrIM's kernels run in int32 and int64 where the
/// library's are f16). The name is kept; the computation hash changes with the types.
Kernel retyped(Kernel k, DType t);

/// Same dimensions, tensors, loops and statements: the same computation, whatever the kernel's name,
/// description, default sizes and source text.
bool sameComputation(const Kernel& a, const Kernel& b);
/// What stored results are keyed by: "ir1:" and the SHA-256 of a canonical form of everything
/// sameComputation compares (dimension names, tensors with dtypes and roles, loops, statements, guards),
/// none of the name, description, defaults, comments or layout of the text.
std::string computationHash(const Kernel& k);

/// Sizes bound to a kernel's dimensions (same order as Kernel::dims).
struct Shape {
  std::vector<std::int64_t> values;
};

/// Largest dimension size accepted anywhere (2^40); larger or non-positive sizes are input errors.
inline constexpr std::int64_t kMaxDimension = std::int64_t{1} << 40;

/// Parses "b=1,out=4096,in=4096" against the kernel's dims (defaults fill the rest). Throws InputError naming
/// the offending dimension for unknown names, missing values, 0, negatives or values above kMaxDimension.
Shape parseShape(const Kernel& k, std::string_view text);
/// Concrete sizes of tensor `t`'s dimensions and loop `l`'s bounds under `s`. Evaluated with overflow checks:
/// an extent or bound that overflows or is not positive is an InputError naming the tensor or loop and `s`.
std::vector<std::int64_t> tensorExtents(const Kernel& k, int t, const Shape& s);
std::pair<std::int64_t, std::int64_t> loopBounds(const Kernel& k, int l, const Shape& s);
std::string shapeString(const Kernel& k, const Shape& s);

}  // namespace pim
