// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/kernel.h"

namespace pim {
namespace {

const char* const kExample = R"(# DCC section 4.2 example kernel
kernel dcc_example(n = 12, m = 3, p = 16)
  doc "DCC 4.2 example: references A[b][i], A[b+1][i*2], B[i][k], C[b][k]"
  input  A: f16[n][2*m]
  input  B: f16[m][p]
  output C: f16[n][p]
  for b < n - 1, i < m, k < p: C[b][k] += A[b][i] * B[i][k] + A[b+1][i*2] * B[i][k]
end
)";

std::string errorOf(std::string_view text) {
  try {
    parseKernel(text, "k.pim");
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

// Checks the "origin:line:col: " prefix and that the message mentions `needle`.
void expectError(std::string_view text, const std::string& prefix, const std::string& needle) {
  const std::string msg = errorOf(text);
  EXPECT_EQ(msg.rfind(prefix, 0), 0u) << "message: " << msg << "\nexpected prefix: " << prefix;
  EXPECT_NE(msg.find(needle), std::string::npos) << "message: " << msg << "\nexpected to contain: " << needle;
}

std::string refStr(const Kernel& k, const TensorRef& r) {
  const auto vars = k.loopVarNames();
  std::string s = k.tensors[r.tensor].name;
  for (const auto& e : r.index) s += "[" + e.str(vars) + "]";
  return s;
}

TEST(DslParse, DccExample) {
  const Kernel k = parseKernel(kExample, "dcc_example.pim");
  EXPECT_EQ(k.name, "dcc_example");
  EXPECT_EQ(k.description, "DCC 4.2 example: references A[b][i], A[b+1][i*2], B[i][k], C[b][k]");
  EXPECT_EQ(k.dims, (std::vector<std::string>{"n", "m", "p"}));
  ASSERT_EQ(k.dimDefaults.size(), 3u);
  EXPECT_EQ(k.dimDefaults[0], 12);
  EXPECT_EQ(k.dimDefaults[1], 3);
  EXPECT_EQ(k.dimDefaults[2], 16);
  ASSERT_EQ(k.tensors.size(), 3u);
  ASSERT_EQ(k.loops.size(), 3u);
  ASSERT_EQ(k.statements.size(), 1u);
  EXPECT_EQ(k.source, kExample);

  const Tensor& a = k.tensors[0];
  EXPECT_EQ(a.name, "A");
  EXPECT_EQ(a.role, TensorRole::Input);
  EXPECT_EQ(a.dtype, DType::F16);
  ASSERT_EQ(a.shape.size(), 2u);
  EXPECT_EQ(a.shape[0], AffineExpr::ofVar(0));     // n
  EXPECT_EQ(a.shape[1], AffineExpr::ofVar(1, 2));  // 2*m
  EXPECT_EQ(a.shape[0].str(k.dims), "n");
  EXPECT_EQ(k.tensors[2].role, TensorRole::Output);

  EXPECT_EQ(k.loopVarNames(), (std::vector<std::string>{"b", "i", "k"}));
  EXPECT_EQ(k.loops[0].lower, AffineExpr::ofConst(0));
  EXPECT_EQ(k.loops[0].upper, AffineExpr::ofVar(0, 1, -1));  // n - 1
  EXPECT_EQ(k.loops[0].upper.str(k.dims), "n-1");

  const Statement& st = k.statements[0];
  EXPECT_EQ(st.loops, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(st.op, AssignOp::Add);
  EXPECT_EQ(st.line, 7);
  EXPECT_EQ(refStr(k, st.target), "C[b][k]");

  std::vector<std::string> refs;
  for (const auto& [s, r] : k.references()) {
    EXPECT_EQ(s, 0);
    refs.push_back(refStr(k, r));
  }
  EXPECT_EQ(refs, (std::vector<std::string>{"C[b][k]", "A[b][i]", "B[i][k]", "A[b+1][i*2]", "B[i][k]"}));
  EXPECT_EQ(k.requiredOps(), (std::vector<std::string>{"mac", "add"}));

  const Shape s = parseShape(k, "");
  EXPECT_EQ(tensorExtents(k, 0, s), (std::vector<std::int64_t>{12, 6}));
  EXPECT_EQ(loopBounds(k, 0, s), (std::pair<std::int64_t, std::int64_t>{0, 11}));
}

TEST(DslParse, ShippedExampleFileMatches) {
  const Kernel k = loadKernelFile(std::string(PIMSCOPE_DATA_DIR) + "/kernels/dcc_example.pim");
  EXPECT_EQ(k.source, kExample);
}

TEST(DslParse, FullGrammar) {
  const Kernel k = parseKernel(R"(kernel g(b, out = 8, in = 16)   # dims named like keywords
  doc "all \"features\""
  input  W: bf16[out][in]
  input  x: i8[b][in + 1]
  input  s: f32
  temp   t: i32[b][out]
  output y: f32[b][out]
  for bb < b, o in [0, out), i < in: t[bb][o] += W[o][i] * x[bb][i + 1]
  for bb < b, o in [0, out):
      if o >= 1 and o + 1 < out and bb != b - 1:
      y[bb][o] = max(-t[bb][o] * s, min(2.5e0, (t[bb][o - 1] + 1) / 2)) - exp(relu(s))
  for bb < b, \
      o in [0, out): y[bb][o] max= softmax(y[bb][o], o)
end
)",
                               "g.pim");
  EXPECT_EQ(k.description, "all \"features\"");
  EXPECT_EQ(k.dims, (std::vector<std::string>{"b", "out", "in"}));
  EXPECT_FALSE(k.dimDefaults[0].has_value());
  ASSERT_EQ(k.tensors.size(), 5u);
  EXPECT_EQ(k.tensors[1].dtype, DType::I8);
  EXPECT_EQ(k.tensors[1].shape[1].str(k.dims), "in+1");
  EXPECT_TRUE(k.tensors[2].shape.empty());
  EXPECT_EQ(k.tensors[3].role, TensorRole::Temp);
  ASSERT_EQ(k.loops.size(), 3u);
  ASSERT_EQ(k.statements.size(), 3u);
  const Statement& s1 = k.statements[1];
  EXPECT_EQ(s1.loops, (std::vector<int>{0, 1}));
  ASSERT_EQ(s1.guards.size(), 3u);
  EXPECT_EQ(s1.guards[0].op, CmpOp::Ge);
  EXPECT_EQ(s1.guards[1].op, CmpOp::Lt);
  EXPECT_EQ(s1.guards[2].op, CmpOp::Ne);
  // Dimension variables in guards come after the loop variables: out -> 3 + 1, b -> 3 + 0.
  EXPECT_EQ(s1.guards[1].rhs, AffineExpr::ofVar(4));
  EXPECT_EQ(s1.guards[2].rhs, AffineExpr::ofVar(3, 1, -1));
  EXPECT_EQ(s1.value.kind, Expr::Kind::Binary);
  EXPECT_EQ(s1.value.op, "-");
  EXPECT_EQ(s1.value.args[0].op, "max");
  EXPECT_EQ(s1.line, 9);
  const Statement& s2 = k.statements[2];
  EXPECT_EQ(s2.op, AssignOp::Max);
  EXPECT_EQ(s2.value.reduceVar, 1);
  EXPECT_EQ(s2.line, 12);
}

TEST(DslParse, LoopVariablesSharedAcrossStatements) {
  const Kernel k = parseKernel(
      "kernel t(n = 4)\n"
      "  input x: f16[n]\n"
      "  output y: f16[n]\n"
      "  output z: f16\n"
      "  for i < n: y[i] = x[i]\n"
      "  for i < n: z += y[i]\n"
      "end",
      "t.pim");
  ASSERT_EQ(k.loops.size(), 1u);
  EXPECT_EQ(k.statements[0].loops, k.statements[1].loops);
  EXPECT_EQ(k.statements[1].target.index.size(), 0u);
}

TEST(DslErrors, Header) {
  expectError("", "k.pim:1:1: ", "kernel");
  expectError("# only a comment\n  foo(n)\n", "k.pim:2:3: ", "expected 'kernel");
  expectError("kernel k(n, m, n)\nend\n", "k.pim:1:16: ", "duplicate dimension 'n'");
  expectError("kernel k(n = 0)\nend\n", "k.pim:1:14: ", "not a valid size");
  expectError("kernel k(n = -4)\nend\n", "k.pim:1:14: ", "positive integer");
  expectError("kernel k(n = 4\nend\n", "k.pim:1:15: ", "expected ')'");
}

TEST(DslErrors, MissingEndAndTrailingText) {
  expectError("kernel k(n = 4)\n  input x: f16[n]\n  output y: f16[n]\n  for i < n: y[i] = x[i]\n",
              "k.pim:5:1: ", "missing 'end'");
  expectError("kernel k(n = 4)\n  output y: f16[n]\n  for i < n: y[i] = 1\nend\nkernel j()\n",
              "k.pim:5:1: ", "after 'end'");
  expectError("kernel k(n = 4)\n  output y: f16[n]\nend\n", "k.pim:3:1: ", "no statements");
}

TEST(DslErrors, Lexical) {
  expectError("kernel k(n = 4)\n  doc \"never closed\n", "k.pim:2:7: ", "unterminated string");
  expectError("kernel k(n = 4)\n  output y: f16[n]\n  for i < n: y[i] = 1 @ 2\nend\n",
              "k.pim:3:23: ", "unexpected character '@'");
  expectError("kernel k(n = 4)\n  output y: f16[n]\n  for i < n: y[i] = 1 \\ 2\nend\n",
              "k.pim:3:23: ", "'\\'");
}

TEST(DslErrors, Declarations) {
  expectError("kernel k(n = 4)\n  input x: f8[n]\nend\n", "k.pim:2:12: ", "unknown dtype 'f8'");
  expectError("kernel k(n = 4)\n  input x: f16[n]\n  output x: f16[n]\nend\n",
              "k.pim:3:10: ", "duplicate tensor 'x'");
  expectError("kernel k(n = 4)\n  input x: f16[n][q + 1]\nend\n", "k.pim:2:19: ", "unknown dimension 'q'");
  expectError("kernel k(n = 4)\n  input x: f16[n*n]\nend\n", "k.pim:2:17: ", "non-affine");
  expectError("kernel k(n = 4)\n  doc \"a\"\n  doc \"b\"\nend\n", "k.pim:3:3: ", "duplicate 'doc'");
  expectError("kernel k(n = 4)\n  inptu x: f16[n]\nend\n", "k.pim:2:3: ", "expected 'doc', 'input'");
  expectError("kernel k(n = 4)\n  input x f16[n]\nend\n", "k.pim:2:11: ", "expected ':'");
}

TEST(DslErrors, Statements) {
  const std::string head = "kernel k(n = 4, m = 2)\n  input x: f16[n][m]\n  output y: f16[n]\n";
  // line 4 is the statement
  expectError(head + "  for i < n, j < m: y[i] += z[i][j]\nend\n", "k.pim:4:29: ", "unknown tensor 'z'");
  expectError(head + "  for i < n, j < m: y[i] += x[i]\nend\n",
              "k.pim:4:29: ", "has 2 dimensions but 1 index");
  expectError(head + "  for i < n, j < m: y[i] += x[i][j][0]\nend\n", "k.pim:4:36: ", "too many indices");
  expectError(head + "  for i < n, j < m: y[i] += x[i][q]\nend\n",
              "k.pim:4:34: ", "unknown loop variable 'q'");
  expectError(head + "  for i < n, j < m: y[i] += x[i][i*j]\nend\n", "k.pim:4:35: ", "non-affine");
  expectError(head + "  for i < n, j < q: y[i] += x[i][j]\nend\n", "k.pim:4:18: ", "unknown dimension 'q'");
  expectError(head + "  for i < n, j < m: x[i][j] = 1\nend\n", "k.pim:4:21: ", "input tensor 'x'");
  expectError(head + "  for i < n: y[i] = 0\n  for i < n - 1, j < m: y[i] += x[i][j]\nend\n",
              "k.pim:5:7: ", "loop variable 'i'");
  expectError(head + "  for i < n, i < m: y[i] = 0\nend\n", "k.pim:4:14: ", "appears twice");
  expectError(head + "  for i < n: y[i] -= 1\nend\n",
              "k.pim:4:19: ", "expected '=', '+=', 'max=', 'min=' or 'argmin='");
  expectError(head + "  for i < n: y[i] = foo(1)\nend\n", "k.pim:4:21: ", "unknown function 'foo'");
  expectError(head + "  for i < n: y[i] = max(1)\nend\n", "k.pim:4:26: ", "takes 2 arguments");
  expectError(head + "  for i < n: y[i] = softmax(y[i], z)\nend\n",
              "k.pim:4:35: ", "unknown loop variable 'z'");
  expectError(head + "  for i < n: if i < q: y[i] = 0\nend\n", "k.pim:4:21: ", "unknown name 'q'");
  expectError(head + "  for i < n: if i y[i] = 0\nend\n", "k.pim:4:19: ", "expected a comparison");
  expectError(head + "  for i < n: y[i] = (1 + 2\nend\n", "k.pim:4:27: ", "expected ')'");
  expectError(head + "  for i < n: y[i] = 1 2\nend\n", "k.pim:4:23: ", "unexpected '2'");
  expectError(head + "  for i < n, j in [0, m]: y[i] += x[i][j]\nend\n", "k.pim:4:24: ", "expected ')'");
  expectError(head + "  for i < n y[i] = 0\nend\n", "k.pim:4:13: ", "expected ':'");
  expectError(head + "  for i < n: y[i] = x[i][1.5]\nend\n", "k.pim:4:26: ", "integer constants");
}

TEST(DslErrors, ContinuationLinesKeepPhysicalPositions) {
  const std::string head = "kernel k(n = 4, m = 2)\n  input x: f16[n][m]\n  output y: f16[n]\n";
  expectError(head + "  for i < n, j < m:\n      y[i] += x[i][w]\nend\n",
              "k.pim:5:20: ", "unknown loop variable 'w'");
  expectError(head + "  for i < n, j < m: \\\ny[i] += x[i][w]\nend\n",
              "k.pim:5:14: ", "unknown loop variable 'w'");
  // A less indented line is not a continuation: the statement is incomplete.
  expectError(head + "  for i < n, j < m:\n  y[i] += x[i][j]\nend\n", "k.pim:4:20: ", "target tensor");
}

TEST(DslErrors, NeverPartial) {
  // Many truncations of a valid kernel: each either parses completely or throws InputError.
  const std::string text = kExample;
  for (std::size_t cut = 0; cut < text.size(); ++cut) {
    const std::string part = text.substr(0, cut);
    try {
      const Kernel k = parseKernel(part, "cut.pim");
      EXPECT_EQ(k.statements.size(), 1u);
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("cut.pim:", 0), 0u) << e.what();
    }
  }
}

}  // namespace
}  // namespace pim
