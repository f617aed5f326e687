// SPDX-License-Identifier: Apache-2.0
// IMTP's boundary-check passes on generated UPMEM kernels (engine/codegen/upmem_kernel_builder.h), on the
// example of IMTP's Fig. 8: a 7 x 40 int32 GEMV on one tasklet, rows in pairs (8-B aligned writes) and
// 16-element caching tiles, so both the rows (7 of 8) and the columns (40 of 48) end inside a tile. The
// figures are hand-derived in the comments.
#include <gtest/gtest.h>

#include "engine/codegen/upmem_codegen.h"
#include "engine/search/evaluate.h"
#include "engine/target/upmem/upmem_params.h"
#include "tests/test_util.h"

namespace {

using namespace pim;

std::unique_ptr<Problem> gemv(const std::string& dims, const Backend& b = builtinBackends().get("upmem")) {
  const Kernel k = retyped(KernelLibrary::builtin().get("gemv"), DType::I32);
  return std::make_unique<Problem>(b, k, parseShape(k, dims));
}

// What the one DPU's kernel does with one tasklet, 64-B tiles (16 int32) and the passes `on`.
LoopCounts loopsOf(const Problem& p, BoundaryPasses on, bool handWritten = false) {
  UpmemCodegenOptions o = upmemParams(p.backend()).codegen;
  o.tasklets = 1;
  o.blockBytes = 64;
  o.style.handWritten = handWritten;
  o.style.passes = on;
  const UpmemProgram prog = lowerUpmem(p, p.space().draft(0), o);
  EXPECT_EQ(prog.kernelLoops.size(), 1u);
  EXPECT_EQ(prog.kernelLoops.at(0).size(), 1u);
  return prog.kernelLoops.at(0).at(0);
}

constexpr BoundaryPasses kNone{false, false, false};
constexpr BoundaryPasses kDma{true, false, false};
constexpr BoundaryPasses kDmaTight{true, true, false};
constexpr BoundaryPasses kAll{true, true, true};

// The boundary row pair of Fig. 8 (row 6 valid, row 7 past the extent), as a GEMV of one row: IMTP's table
// gives 96 -> 80 -> 40 inner iterations, 40x fewer guards and half the DMAs after hoisting.
// - DMA-aware elimination alone: 2 rows x 3 tiles x 16 = 96 iterations, each checking (row, column): 96
//   guards; per row and tile one DMA of W and one of x: 12 reads; one 8-B write of the pair.
// - + loop tightening: the column tiles run 16 + 16 + 8 = 40 iterations a row, 80 in all; the row check
//   stays in each: 80 guards.
// - + invariant branch hoisting: the row check runs once per row (2 guards, 40x fewer) and the dead row
//   skips its DMAs and computes: 40 iterations, 6 reads.
// - none of them: copies go element by element, each copy loop checking its 16 elements (2 rows x 3 tiles
//   x 2 operands x 16 = 192 guards beside the 96 compute ones) and each valid element an 8-B MRAM access
//   (2 rows x 40 x 2 = 160; the dead row copies too).
TEST(UpmemBoundaryPasses, ImtpFig8BoundaryRowPair) {
  const auto p = gemv("b=1,out=1,in=40");
  EXPECT_EQ(loopsOf(*p, kDma), (LoopCounts{96, 96, 12, 1}));
  EXPECT_EQ(loopsOf(*p, kDmaTight), (LoopCounts{80, 80, 12, 1}));
  EXPECT_EQ(loopsOf(*p, kAll), (LoopCounts{40, 2, 6, 1}));
  EXPECT_EQ(loopsOf(*p, kNone), (LoopCounts{96, 96 + 192, 160, 1}));
  // PrIM's hand-written loops: one row, blocks sized to what is left, no guard.
  EXPECT_EQ(loopsOf(*p, kNone, true), (LoopCounts{40, 0, 6, 1}));
}

// The whole 7 x 40 kernel: 3 full row pairs and the boundary pair. All passes: 7 x 40 = 280 iterations, a
// row check per row of the 4 pairs (8), 7 x 3 x 2 = 42 reads, 4 pair writes. Without hoisting every
// iteration of all 8 rows checks its row: 8 x 40 = 320.
TEST(UpmemBoundaryPasses, ImtpFig8WholeKernel) {
  const auto p = gemv("b=1,out=7,in=40");
  EXPECT_EQ(loopsOf(*p, kAll), (LoopCounts{280, 8, 42, 4}));
  EXPECT_EQ(loopsOf(*p, kDmaTight), (LoopCounts{320, 320, 48, 4}));
  // Tiles that divide their dimensions leave no guard: tightening and hoisting change nothing, and only
  // the DMA pass still turns element copies into DMAs (8 rows x 3 tiles x 2 operands x 16 accesses -> 48).
  const auto even = gemv("b=1,out=8,in=48");
  EXPECT_EQ(loopsOf(*even, kNone).guards, 0);
  EXPECT_EQ(loopsOf(*even, kDma), loopsOf(*even, kAll));
  EXPECT_EQ(loopsOf(*even, kNone).dmaReads, 768);
  EXPECT_EQ(loopsOf(*even, kAll).dmaReads, 48);
}

// The passes show in the evaluation: fewer instructions and cycles, and the per-DPU guard count (the backend
// edited to Fig. 8's one tasklet and 64-B tiles).
TEST(UpmemBoundaryPasses, PassesShowInTheEvaluation) {
  Backend b = builtinBackends().get("upmem");
  b.setParameters({{"pim.tasklets", 1}, {"pim.blockBytes", 64}});
  const auto p = gemv("b=1,out=7,in=40", b);
  auto run = [&](BoundaryPasses on) {
    EvalOptions eo;
    eo.optimizer.boundary = on;
    return evaluateDraft(*p, p->space().draft(0), eo);
  };
  const Evaluation all = run(kAll), tight = run(kDmaTight), none = run(kNone);
  EXPECT_LT(all.cycles[1], tight.cycles[1]);
  EXPECT_LT(tight.cycles[1], none.cycles[1]);
  const auto& stats = targetOf(p->backend()).statistics();
  std::size_t guards = stats.size(), instructions = stats.size();
  for (std::size_t s = 0; s < stats.size(); ++s) {
    if (stats[s].key == "guards") guards = s;
    if (stats[s].key == "instructions") instructions = s;
  }
  ASSERT_LT(guards, stats.size());
  EXPECT_GT(none.unitStats.at(0, guards), tight.unitStats.at(0, guards));
  EXPECT_GT(tight.unitStats.at(0, guards), all.unitStats.at(0, guards));
  EXPECT_GT(none.unitStats.at(0, instructions), all.unitStats.at(0, instructions));
}

// A vector add of 100 int32 in 16-element tiles: the last tile holds 4. Tightening removes the 112 checks
// (7 tiles x 16) and the 12 dead iterations; no row, so hoisting changes nothing.
TEST(UpmemBoundaryPasses, VectorAddTailIsTightened) {
  const Kernel k = retyped(KernelLibrary::builtin().get("va"), DType::I32);
  const Problem p(builtinBackends().get("upmem"), k, parseShape(k, "b=1,n=100"));
  const LoopCounts dma = loopsOf(p, kDma), all = loopsOf(p, kAll);
  EXPECT_EQ(dma.iterations, 112);
  EXPECT_EQ(dma.guards, 112);
  EXPECT_EQ(all.iterations, 100);
  EXPECT_EQ(all.guards, 0);
  EXPECT_EQ(loopsOf(p, kDmaTight), all);
  EXPECT_EQ(all.dmaReads, 14);  // 7 tiles x 2 operands, whole (padded) tiles
  EXPECT_EQ(all.dmaWrites, 7);
}

}  // namespace
