// SPDX-License-Identifier: Apache-2.0
// Reductions that reduce (issue 16, item 2): a reduction's rows are segmented (each output's row starts on a
// column of its own), its lanes are summed as the family can (HBM-PIM: halving ADD steps in the GRF; AttAcc:
// the GEMV unit's adder tree), the sums are written back, and outputs whose row is split over cores are
// merged by the host. Every expected count is derived by hand in the comment beside it.
#include <gtest/gtest.h>

#include "tests/sim_test_util.h"
#include "tests/test_util.h"

#include "engine/search/evaluate.h"
#include "engine/target/dram_pim/program.h"
#include "engine/target/target.h"

namespace pim {
namespace {

using test::problem;

using sim::test::issued;

// All 16 rows of 8 elements on one core: a row of 16 B still takes a column of its own.
Draft oneCore(const Problem& p) {
  return p.space().draft(p.space().idOf(std::vector<PartChoice>{{1, 1, 0}, {1, 1, 0}}));
}

TEST(Reduction, HbmPimShortRowsAreSegmentedAndSummedInTheGrf) {
  const auto p = problem("hbm-pim", "red", "b=16,n=8");
  const sim::Program prog = draftProgram(*p, oneCore(*p));
  // Per half (the FPU's two banks take turns): 2 blocks of 8 rows (the GRF's 8 entries); per block 8 column
  // ADDs, then ceil(log2 8) = 3 halving steps for each of its 8 rows, then one write-back.
  // 2 halves x 2 blocks x (8 + 24) = 128 ADDs and 2 x 2 = 4 write-backs. Packed, the tile is only 8 columns.
  EXPECT_EQ(issued(prog, sim::Op::PIM_ADD, sim::Phase::Compute), 128);
  EXPECT_EQ(issued(prog, sim::Op::PIM_WB, sim::Phase::Compute), 4);
  EXPECT_EQ(issued(prog, sim::Op::PIM_MAC, sim::Phase::Compute), 0);
}

TEST(Reduction, HbmPimLongRowsAccumulateIntoTheLanesFirst) {
  const auto p = problem("hbm-pim", "red", "b=1,n=1024");
  const Draft d = p->space().draft(p->space().idOf(std::vector<PartChoice>{{1, 1, 0}, {1, 16, 0}}));
  const sim::Program prog = draftProgram(*p, d);
  // 1024 over 16 cores: one row of 64 elements per core, 4 columns; then log2 16 = 4 steps; one write-back.
  // Per half 4 + 4 ADDs: 16 in all, and 2 write-backs.
  EXPECT_EQ(issued(prog, sim::Op::PIM_ADD, sim::Phase::Compute), 16);
  EXPECT_EQ(issued(prog, sim::Op::PIM_WB, sim::Phase::Compute), 2);
}

TEST(Reduction, AttaccSegmentsRowsAndLeavesTheLanesToTheAdderTree) {
  const auto p = problem("attacc", "red", "b=16,n=8");
  const sim::Program prog = draftProgram(*p, oneCore(*p));
  // One MACAB per row (16), no tree commands; one WRGB for the one live bank; the 16 sums fill one column,
  // moved by ceil(1 / 4) = 1 MVSB.
  EXPECT_EQ(issued(prog, sim::Op::MACAB, sim::Phase::Compute), 16);
  EXPECT_EQ(issued(prog, sim::Op::WRGB, sim::Phase::Compute), 1);
  EXPECT_EQ(issued(prog, sim::Op::MVSB, sim::Phase::Compute), 1);
}

TEST(Reduction, TheHostWritesTheSegmentedLayout) {
  const auto p = problem("hbm-pim", "red", "b=16,n=8");
  const sim::Program prog = draftProgram(*p, oneCore(*p));
  // 16 segmented rows of one column each: the host writes 16 bursts into the core's bank (8 if packed).
  EXPECT_EQ(issued(prog, sim::Op::HOST_WR, sim::Phase::InputRearrangement), 16);
}

TEST(Reduction, TheIrSaysHowEachReductionIsDone) {
  const auto p = problem("hbm-pim", "red", "b=16,n=8");
  const CandidateAnalysis a = analyseCandidate(*p, oneCore(*p));
  EXPECT_NE(
      a.ir.find("16 row(s) of 8 per bank, each on 1 column(s) of its own (16 columns, 8 of them padding)"),
      std::string::npos)
      << a.ir;
  EXPECT_NE(a.ir.find("3 halving ADD step(s) per row"), std::string::npos) << a.ir;
  EXPECT_NE(a.ir.find("no host merge"), std::string::npos) << a.ir;

  const auto split = problem("attacc", "red", "b=1,n=1024");
  const Draft d = split->space().draft(split->space().idOf(std::vector<PartChoice>{{1, 1, 0}, {1, 16, 0}}));
  const CandidateAnalysis b = analyseCandidate(*split, d);
  // 1024 over 16 cores: 64 per core, so each output sums 1024 / 64 = 16 partial sums.
  EXPECT_NE(b.ir.find("each output sums 16 partial sums"), std::string::npos) << b.ir;
  EXPECT_NE(b.ir.find("adder tree"), std::string::npos) << b.ir;
}

}  // namespace
}  // namespace pim
