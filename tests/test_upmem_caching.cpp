// SPDX-License-Identifier: Apache-2.0
// Operands kept in WRAM (KernelStyle::cacheOperands): which operands a reduction's outputs share, what the
// templates read once instead of per output (hand-derived below), the WRAM it takes, and PrIM's TS, whose
// query and series window stay in WRAM, as its vendor schedule.
#include <gtest/gtest.h>

#include <string>

#include "engine/codegen/upmem_codegen.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/library.h"
#include "engine/search/baselines.h"
#include "engine/target/registry.h"
#include "engine/target/upmem/upmem_params.h"
#include "tests/test_util.h"

namespace {

using namespace pim;
using R = OperandReuse;

std::vector<OperandReuse> reuseOf(const char* kernel, std::size_t statement) {
  const Kernel k = retyped(KernelLibrary::builtin().get(kernel), DType::I32);
  return upmemStatementShapes(k, {}).at(statement).reuse;
}

TEST(UpmemCaching, SharedOperandsAreFoundFromTheirIndices) {
  // ts: dot[i] += t[i + j] * q[j]: the series slides with the output, every output reads the whole query.
  EXPECT_EQ(reuseOf("ts", 0), (std::vector<R>{R::Window, R::AllOutputs}));
  // gemv: y[b][o] += A[o][i] * x[b][i]: each operand misses an output loop, so the outputs of a DPU holding
  // one batch share the vector, those of a DPU holding one row share the row.
  EXPECT_EQ(reuseOf("gemv", 0), (std::vector<R>{R::SomeOutputs, R::SomeOutputs}));
  // red: y[b] += x[b][i], and va (nothing reduced): nothing shared.
  EXPECT_EQ(reuseOf("red", 0), (std::vector<R>{R::None}));
  EXPECT_EQ(reuseOf("va", 0), (std::vector<R>{R::None, R::None}));
}

// GEMV's operands (A[o][i], bit 0; x[b][i], bit 1) on DPUs holding b x o outputs: a DPU of one batch shares
// the vector whole, one of one row shares the row whole, and one of several of each shares the vector by runs
// of its rows (b is the outer output loop); the row, indexed by the inner loop, is nobody's.
TEST(UpmemCaching, RunsOfOutputsShareAnOperandOfTheOuterLoops) {
  const Kernel k = retyped(KernelLibrary::builtin().get("gemv"), DType::I32);
  const StatementShape sh = upmemStatementShapes(k, {}).at(0);
  ASSERT_EQ(sh.outLoops.size(), 2u);
  auto sharing = [&](std::int64_t batches, std::int64_t rows) {
    return sh.sharingOnDpu([&](int v) { return v == sh.outLoops[0] ? batches : rows; });
  };
  EXPECT_EQ(sharing(1, 8), (DpuSharing{0b10, 0, 0}));
  EXPECT_EQ(sharing(2, 1), (DpuSharing{0b01, 0, 0}));
  EXPECT_EQ(sharing(2, 8), (DpuSharing{0, 0b10, 8}));
  EXPECT_EQ(sharing(1, 1), (DpuSharing{0b11, 0, 0}));
  const StatementShape onDpu = sh.onDpu(sharing(2, 8));
  EXPECT_EQ(onDpu.reuse, (std::vector<R>{R::None, R::PerRun}));
  EXPECT_EQ(onDpu.outputsPerRun, 8);
}

// A TS-like reduction: 128 int32 outputs of 8 elements each, a window operand and a whole one, 64-element
// (256-B) blocks, 2 tasklets, all of IMTP's passes.
StatementShape slidingShape() {
  StatementShape sh;
  sh.outLoops = {0};
  sh.reduceLoops = {1};
  sh.streamedBytes = {4, 4};
  sh.reuse = {R::Window, R::AllOutputs};
  sh.targetBytes = 4;
  sh.perElement = 10;
  sh.accumulate = 1;
  sh.blockElements = 64;
  return sh;
}

LoopCounts countsOf(const StatementShape& sh, bool cache, std::int64_t outs, std::int64_t reduced) {
  KernelStyle style;
  style.cacheOperands = cache;
  std::vector<sim::dpu::TaskletProgram> tasklets(2);
  return KernelBuilder(sh, 2, 2048, TaskletSplit::Auto, style).append(tasklets, outs, reduced);
}

// Streamed: each of the 128 outputs reads its 8 elements of both operands in one block each: 256 reads.
// Kept: each tasklet takes one run of 64 consecutive outputs (a 256-B block's worth) and reads the whole
// operand once (8 x 4 = 32 B) and its window once ((64 + 8 - 1) x 4 = 284 B, 288 with the SDK's 8-B unit):
// 4 reads. Both write the 128 results in 64 pairs and iterate 128 x 8 times.
TEST(UpmemCaching, KeptOperandsAreReadOncePerTaskletAndRun) {
  const StatementShape sh = slidingShape();
  EXPECT_EQ(countsOf(sh, false, 128, 8), (LoopCounts{1024, 0, 256, 64}));
  EXPECT_EQ(countsOf(sh, true, 128, 8), (LoopCounts{1024, 0, 4, 64}));
  KernelStyle style;
  style.cacheOperands = true;
  const KernelBuilder kept(sh, 2, 2048, TaskletSplit::Auto, style);
  EXPECT_EQ(kept.cachedWramPerTasklet(128, 8), 288 + 32);
  // Without a window the outputs go in pairs, as streamed: 64 pairs for 2 tasklets, each reading the whole
  // operand once and the other operand per output (128 reads).
  StatementShape whole = sh;
  whole.reuse = {R::None, R::AllOutputs};
  EXPECT_EQ(countsOf(whole, true, 128, 8), (LoopCounts{1024, 0, 2 + 128, 64}));
  // Where tasklets split each reduction instead (fewer outputs than tasklets), nothing is kept.
  EXPECT_EQ(countsOf(sh, true, 1, 8), countsOf(sh, false, 1, 8));
  EXPECT_EQ(KernelBuilder(sh, 2, 2048, TaskletSplit::Auto, style).cachedWramPerTasklet(1, 8), 0);
}

// GEMV 8 x 48 on one DPU and one tasklet, 64-B tiles (IMTP's Fig. 8 set-up, tests/test_upmem_boundary.cpp):
// streamed, 8 rows x 3 tiles x 2 operands = 48 reads; keeping the vector of the DPU's one batch, 1 read of
// its 192 B and 8 x 3 of the matrix. With two batches on the DPU the outputs go batch by batch (a run of 8
// rows), each batch's vector read once for its run: 2 x (1 + 24) = 50 reads, against 96 streamed. With two
// tasklets each run's four row pairs are dealt in turn: each tasklet reads the vector once per run and its
// 4 rows x 3 tiles: 2 runs x 2 tasklets x 13 = 52. A matrix-vector product without a batch (x[i]: every
// output's) keeps it too.
TEST(UpmemCaching, GemvKeepsTheVectorOfEachBatch) {
  auto reads = [](const Kernel& k, const std::string& dims, bool cache, int tasklets = 1) {
    const Problem p(builtinBackends().get("upmem"), k, parseShape(k, dims));
    UpmemCodegenOptions o = upmemParams(p.backend()).codegen;
    o.tasklets = tasklets;
    o.blockBytes = 64;
    o.style.cacheOperands = cache;
    return lowerUpmem(p, p.space().draft(0), o).kernelLoops.at(0).at(0).dmaReads;
  };
  const Kernel gemv = retyped(KernelLibrary::builtin().get("gemv"), DType::I32);
  EXPECT_EQ(reads(gemv, "b=1,out=8,in=48", false), 48);
  EXPECT_EQ(reads(gemv, "b=1,out=8,in=48", true), 25);
  EXPECT_EQ(reads(gemv, "b=2,out=8,in=48", false), 96);
  EXPECT_EQ(reads(gemv, "b=2,out=8,in=48", true), 50);
  EXPECT_EQ(reads(gemv, "b=2,out=8,in=48", false, 2), 96);
  EXPECT_EQ(reads(gemv, "b=2,out=8,in=48", true, 2), 52);
  const Kernel mv = parseKernel(
      "kernel mv(out = 8, in = 48)\n  input A: i32[out][in]\n  input x: i32[in]\n  output y: i32[out]\n"
      "  for o < out, i < in: y[o] += A[o][i] * x[i]\nend\n",
      "mv.pim");
  EXPECT_EQ(reads(mv, "", true), 25);
}

// The WRAM the kept operands take is checked: a query of 8,192 int32 (32 KB) per tasklet cannot be kept by
// 16 tasklets in 64 KB, and the violation says what was kept.
TEST(UpmemCaching, KeptOperandsCountInTheWramCheck) {
  const Kernel k = KernelLibrary::builtin().get("ts");
  const Problem p(builtinBackends().get("upmem"), k, parseShape(k, "n=65536,m=8192"));
  UpmemCodegenOptions o = upmemParams(p.backend()).codegen;
  o.blockBytes = 256;
  const Draft d = p.space().draft(0);
  o.style.cacheOperands = false;
  EXPECT_TRUE(upmemViolations(p, d, o).empty());
  o.style.cacheOperands = true;
  const auto why = upmemViolations(p, d, o);
  ASSERT_EQ(why.size(), 1u);
  EXPECT_NE(why[0].message.find("of operands kept in WRAM"), std::string::npos) << why[0].message;
}

// PrIM's TS keeps its query and its block of the series in WRAM, so a DPU moves tens of bytes per position
// between MRAM and WRAM, not the query's length twice over (2 x 256 x 4 = 2,048 B) as when streamed.
TEST(UpmemCaching, VendorTsMovesTensOfBytesPerPosition) {
  const Kernel k = KernelLibrary::builtin().get("ts");
  const Problem p(builtinBackends().get("upmem"), k, parseShape(k, "n=524288,m=256"));
  const Baseline v = vendorBaseline(p);
  ASSERT_TRUE(v.available) << v.reason;
  const UnitStatistics& s = v.eval.unitStats;
  double bytes = 0, dpus = 0;
  for (std::size_t u = 0; u < s.units(); ++u)
    if (s.at(u, 3) > 0) {  // dma_bytes (dpuStatistics' order)
      bytes += s.at(u, 3);
      ++dpus;
    }
  ASSERT_GT(dpus, 0);
  const double perPosition = bytes / 524288;
  EXPECT_GT(perPosition, 24);
  EXPECT_LT(perPosition, 100);
}

}  // namespace
