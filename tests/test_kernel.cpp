// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/kernel.h"
#include "engine/kernel/library.h"

namespace pim {
namespace {

std::string errorOf(auto&& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(KernelDType, NamesSizesAndParsing) {
  EXPECT_EQ(dtypeBytes(DType::F16), 2u);
  EXPECT_EQ(dtypeBytes(DType::BF16), 2u);
  EXPECT_EQ(dtypeBytes(DType::F32), 4u);
  EXPECT_EQ(dtypeBytes(DType::I8), 1u);
  EXPECT_EQ(dtypeBytes(DType::I32), 4u);
  for (DType t : {DType::F16, DType::BF16, DType::F32, DType::I8, DType::I32}) {
    ASSERT_TRUE(parseDType(dtypeName(t)).has_value());
    EXPECT_EQ(*parseDType(dtypeName(t)), t);
  }
  EXPECT_FALSE(parseDType("f8").has_value());
  EXPECT_EQ(dtypeBytes(*parseDType("i64")), 8u);
  EXPECT_EQ(dtypeBytes(*parseDType("f64")), 8u);
  EXPECT_FALSE(parseDType("").has_value());
}

TEST(KernelAffine, EvalAndStr) {
  const std::vector<std::string> names = {"b", "i", "j"};
  const std::vector<std::int64_t> vals = {5, 3, 7};
  const AffineExpr bPlus1 = AffineExpr::ofVar(0, 1, 1);
  EXPECT_EQ(bPlus1.eval(vals), 6);
  EXPECT_EQ(bPlus1.str(names), "b+1");
  const AffineExpr i2 = AffineExpr::ofVar(1, 2);
  EXPECT_EQ(i2.eval(vals), 6);
  EXPECT_EQ(i2.str(names), "i*2");
  EXPECT_EQ(AffineExpr::ofVar(0, 1, -1).str(names), "b-1");
  EXPECT_EQ(AffineExpr::ofVar(1, -1).str(names), "-i");
  EXPECT_EQ(AffineExpr::ofVar(1, -3, 2).str(names), "-i*3+2");
  EXPECT_EQ(AffineExpr::ofConst(0).str(names), "0");
  EXPECT_EQ(AffineExpr::ofConst(-4).str(names), "-4");
  EXPECT_EQ(AffineExpr::ofVar(2).str(names), "j");
  EXPECT_TRUE(AffineExpr::ofConst(3).isConstant());
  EXPECT_TRUE(i2.isSingleVar());

  AffineExpr sum = AffineExpr::ofVar(2);
  sum.addScaled(AffineExpr::ofVar(1, 1, -1), 1);  // j + i - 1
  ASSERT_EQ(sum.terms.size(), 2u);
  EXPECT_EQ(sum.terms[0].first, 1);  // sorted by var
  EXPECT_EQ(sum.str(names), "i+j-1");
  EXPECT_EQ(sum.eval(vals), 9);
  sum.addScaled(AffineExpr::ofVar(2), -1);  // drops j
  EXPECT_EQ(sum, AffineExpr::ofVar(1, 1, -1));
  sum.addScaled(AffineExpr::ofVar(0, 2), -1);
  EXPECT_EQ(sum.str(names), "-b*2+i-1");
}

TEST(KernelShape, DefaultsAndOverrides) {
  const Kernel k = KernelLibrary::builtin().get("gemv");
  ASSERT_EQ(k.dims, (std::vector<std::string>{"b", "out", "in"}));
  Shape s = parseShape(k, "");
  EXPECT_EQ(s.values, (std::vector<std::int64_t>{1, 4096, 4096}));
  EXPECT_EQ(shapeString(k, s), "b=1,out=4096,in=4096");
  s = parseShape(k, " in = 1024 , b=4");
  EXPECT_EQ(s.values, (std::vector<std::int64_t>{4, 4096, 1024}));
  EXPECT_EQ(shapeString(k, s), "b=4,out=4096,in=1024");
  s = parseShape(k, "b=1,out=4096,in=4096");
  EXPECT_EQ(shapeString(k, s), "b=1,out=4096,in=4096");
  s = parseShape(k, "in=1099511627776");  // exactly 2^40
  EXPECT_EQ(s.values[2], kMaxDimension);

  const int w = k.tensorIndex("W");
  ASSERT_GE(w, 0);
  s = parseShape(k, "out=8,in=16");
  EXPECT_EQ(tensorExtents(k, w, s), (std::vector<std::int64_t>{8, 16}));
  EXPECT_EQ(loopBounds(k, k.loopIndex("i"), s), (std::pair<std::int64_t, std::int64_t>{0, 16}));
}

TEST(KernelShape, BadValues) {
  const Kernel k = KernelLibrary::builtin().get("gemv");
  std::string msg = errorOf([&] { parseShape(k, "b=1,out=4096,in=0"); });
  EXPECT_NE(msg.find("dimension 'in': 0 is not a valid size (must be 1..2^40)"), std::string::npos) << msg;

  msg = errorOf([&] { parseShape(k, "out=1099511627777"); });
  EXPECT_NE(msg.find("dimension 'out': 1099511627777 is not a valid size (must be 1..2^40)"),
            std::string::npos)
      << msg;

  msg = errorOf([&] { parseShape(k, "b=-3"); });
  EXPECT_NE(msg.find("dimension 'b': -3 is not a valid size"), std::string::npos) << msg;

  msg = errorOf([&] { parseShape(k, "b=99999999999999999999999"); });
  EXPECT_NE(msg.find("dimension 'b'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a valid size"), std::string::npos) << msg;

  msg = errorOf([&] { parseShape(k, "rows=4"); });
  EXPECT_NE(msg.find("unknown dimension 'rows'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("b, out, in"), std::string::npos) << msg;

  msg = errorOf([&] { parseShape(k, "in=4,in=8"); });
  EXPECT_NE(msg.find("dimension 'in'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("more than once"), std::string::npos) << msg;

  msg = errorOf([&] { parseShape(k, "in=abc"); });
  EXPECT_NE(msg.find("dimension 'in': 'abc' is not an integer"), std::string::npos) << msg;

  msg = errorOf([&] { parseShape(k, "in"); });
  EXPECT_NE(msg.find("NAME=VALUE"), std::string::npos) << msg;

  msg = errorOf([&] { parseShape(k, "in=4,,b=2"); });
  EXPECT_NE(msg.find("empty item"), std::string::npos) << msg;
}

TEST(KernelShape, MissingDefaultAndEmptyExtents) {
  const Kernel k = parseKernel(
      "kernel t(n, m = 4)\n"
      "  input  x: f16[n][m - 3]\n"
      "  output y: f16[n]\n"
      "  for i < n - 2, j < m - 3: y[i] += x[i][j]\n"
      "end\n",
      "t.pim");
  const std::string msg = errorOf([&] { parseShape(k, "m=8"); });
  EXPECT_NE(msg.find("dimension 'n'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no default"), std::string::npos) << msg;

  const Shape s = parseShape(k, "n=2,m=3");
  const std::string ext = errorOf([&] { tensorExtents(k, k.tensorIndex("x"), s); });
  EXPECT_NE(ext.find("tensor 'x'"), std::string::npos) << ext;
  EXPECT_NE(ext.find("m-3"), std::string::npos) << ext;
  const std::string loop = errorOf([&] { loopBounds(k, k.loopIndex("i"), s); });
  EXPECT_NE(loop.find("loop 'i'"), std::string::npos) << loop;
  EXPECT_EQ(tensorExtents(k, k.tensorIndex("y"), s), (std::vector<std::int64_t>{2}));
}

TEST(KernelOps, RequiredOps) {
  const auto& lib = KernelLibrary::builtin();
  using V = std::vector<std::string>;
  EXPECT_EQ(lib.get("gemv").requiredOps(), (V{"mac"}));
  EXPECT_EQ(lib.get("relu").requiredOps(), (V{"relu"}));
  EXPECT_EQ(lib.get("attn").requiredOps(), (V{"mac", "softmax"}));
  EXPECT_EQ(lib.get("red").requiredOps(), (V{"reduce"}));
  EXPECT_EQ(lib.get("va").requiredOps(), (V{"add"}));
  EXPECT_EQ(lib.get("mul").requiredOps(), (V{"mul"}));
  EXPECT_EQ(lib.get("geva").requiredOps(), (V{"add", "mul"}));
  EXPECT_EQ(lib.get("gemm").requiredOps(), (V{"mac"}));
  const Kernel k = parseKernel(
      "kernel t(n = 8)\n"
      "  input x: f32[n]\n"
      "  output y: f32[n]\n"
      "  output z: f32\n"
      "  for i < n: y[i] = exp(x[i]) / max(x[i], 1.5)\n"
      "  for i < n: z max= x[i]\n"
      "end\n",
      "t.pim");
  EXPECT_EQ(k.requiredOps(), (V{"div", "max", "exp"}));
}

TEST(KernelIR, IndexHelpersAndReferences) {
  const Kernel k = KernelLibrary::builtin().get("attn");
  EXPECT_EQ(k.dims, (std::vector<std::string>{"b", "h", "l", "d"}));
  EXPECT_EQ(k.dimDefaults[1], 32);
  EXPECT_EQ(k.dimDefaults[2], 2048);
  EXPECT_EQ(k.tensorIndex("K"), 1);
  EXPECT_EQ(k.tensorIndex("nope"), -1);
  EXPECT_EQ(k.dimIndex("d"), 3);
  EXPECT_EQ(k.dimIndex("x"), -1);
  EXPECT_EQ(k.loopVarNames(), (std::vector<std::string>{"x", "y", "t", "e"}));
  EXPECT_EQ(k.loopIndex("t"), 2);
  ASSERT_EQ(k.statements.size(), 3u);
  EXPECT_EQ(k.statements[2].loops, (std::vector<int>{0, 1, 3, 2}));
  EXPECT_EQ(k.statements[1].value.kind, Expr::Kind::Call);
  EXPECT_EQ(k.statements[1].value.op, "softmax");
  EXPECT_EQ(k.statements[1].value.reduceVar, 2);
  const auto refs = k.references();
  ASSERT_EQ(refs.size(), 8u);  // 3 + 2 + 3
  EXPECT_EQ(refs[0].first, 0);
  EXPECT_EQ(refs[0].second.tensor, k.tensorIndex("s"));
  EXPECT_EQ(refs[3].first, 1);
  EXPECT_EQ(refs[7].first, 2);
  EXPECT_EQ(refs[7].second.tensor, k.tensorIndex("p"));
  EXPECT_EQ(k.tensors[k.tensorIndex("s")].role, TensorRole::Temp);
}

TEST(KernelLibrary, EveryKernelParsesAndMatchesItsFile) {
  const auto& lib = KernelLibrary::builtin();
  const std::vector<std::string> expected = {"gemv",     "red", "va",   "mul",  "geva",   "relu",      "attn",
                                             "attn_gqa", "ttv", "mmtv", "gemm", "conv2d", "conv2d_s2", "fc",
                                             "sel",      "uni", "hst",  "scan", "bs",     "ts"};
  ASSERT_EQ(lib.entries().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const LibraryKernel& e = lib.entries()[i];
    SCOPED_TRACE(e.name);
    EXPECT_EQ(e.name, expected[i]);
    EXPECT_FALSE(e.summary.empty());
    EXPECT_EQ(e.summary.find('\n'), std::string::npos);
    Kernel k;
    ASSERT_NO_THROW(k = lib.get(e.name));
    EXPECT_EQ(k.name, e.name);
    EXPECT_EQ(k.source, e.dsl);
    EXPECT_FALSE(k.description.empty());
    EXPECT_FALSE(k.statements.empty());
    const Shape s = parseShape(k, "");  // every dimension has a default
    for (std::size_t t = 0; t < k.tensors.size(); ++t)
      EXPECT_NO_THROW(tensorExtents(k, static_cast<int>(t), s));
    for (std::size_t l = 0; l < k.loops.size(); ++l) EXPECT_NO_THROW(loopBounds(k, static_cast<int>(l), s));
    const std::string path = std::string(PIMSCOPE_DATA_DIR) + "/kernels/" + e.name + ".pim";
    EXPECT_EQ(readFile(path), e.dsl) << path << " differs from the library text";
    Kernel fromFile;
    ASSERT_NO_THROW(fromFile = loadKernelFile(path));
    EXPECT_EQ(fromFile.statements.size(), k.statements.size());
  }
}

TEST(KernelLibrary, ShapesOfLibraryKernels) {
  const auto& lib = KernelLibrary::builtin();
  const Kernel mmtv = lib.get("mmtv");
  EXPECT_EQ(shapeString(mmtv, parseShape(mmtv, "")), "i=32,j=128,k=128");
  const Kernel ttv = lib.get("ttv");
  EXPECT_EQ(shapeString(ttv, parseShape(ttv, "")), "i=64,j=64,k=64");
  const Kernel gemm = lib.get("gemm");
  EXPECT_EQ(shapeString(gemm, parseShape(gemm, "")), "m=512,n=512,k=512");
  const Kernel attn = lib.get("attn");
  EXPECT_EQ(shapeString(attn, parseShape(attn, "")), "b=1,h=32,l=2048,d=128");
  const Kernel red = lib.get("red");
  EXPECT_EQ(shapeString(red, parseShape(red, "")), "b=1,n=4096");
  const Kernel geva = lib.get("geva");
  EXPECT_TRUE(geva.tensors[geva.tensorIndex("c")].shape.empty());
}

TEST(KernelLibrary, UnknownKernelListsKnownNames) {
  const std::string msg = errorOf([] { KernelLibrary::builtin().get("conv"); });
  EXPECT_NE(msg.find("unknown kernel 'conv'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("gemv"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mmtv"), std::string::npos) << msg;
}

TEST(KernelLibrary, LoadMissingFileNamesPath) {
  const std::string msg = errorOf([] { loadKernelFile("/nonexistent/dir/k.pim"); });
  EXPECT_NE(msg.find("/nonexistent/dir/k.pim"), std::string::npos) << msg;
}

}  // namespace
}  // namespace pim
