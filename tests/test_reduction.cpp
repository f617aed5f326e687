// SPDX-License-Identifier: Apache-2.0
// Reductions that reduce (issue 16, item 2): a reduction's rows are segmented (each output's row starts on a
// column of its own), its lanes are summed as the family can (HBM-PIM: halving ADD steps in the GRF; AttAcc:
// the GEMV unit's adder tree), the sums are written back, and outputs whose row is split over cores are
// merged by the host. HBM2-PIM's GEMV loads its vector into GRF_A as the hardware can (by host writes where
// every unit takes the same slice, else from the banks). Every expected count is derived by hand in the
// comment beside it.
#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tests/sim_test_util.h"
#include "tests/test_util.h"

#include "engine/codegen/lowering.h"
#include "engine/kernel/dsl.h"
#include "engine/mapping/tile_mapping.h"
#include "engine/search/evaluate.h"
#include "engine/target/dram_pim/program.h"
#include "engine/target/target.h"
#include "sim/hbm2pim_protocol.h"

namespace pim {
namespace {

using test::problem;

using sim::test::issued;

// HBM2-PIM's compute commands by what they do, summed over the program's channels as issued() sums them.
struct Hbm2Counts {
  std::int64_t macs = 0, writeBacks = 0, grfaWrites = 0, modeWrites = 0;
  bool operator==(const Hbm2Counts&) const = default;
  friend void PrintTo(const Hbm2Counts& n, std::ostream* os) {
    *os << "{macs " << n.macs << ", write-backs " << n.writeBacks << ", GRF_A writes " << n.grfaWrites
        << ", mode writes " << n.modeWrites << "}";
  }
};
Hbm2Counts hbm2Counts(const sim::Program& p) {
  Hbm2Counts n;
  for (int ch = 0; ch < p.numChannels(); ++ch)
    for (const sim::Block& b :
         p.programs[static_cast<std::size_t>(p.channelMap[static_cast<std::size_t>(ch)])].blocks)
      for (const sim::Command& c : b.cmds) {
        if (c.phase != sim::Phase::Compute) continue;
        const std::int64_t times = b.repeat * static_cast<std::int64_t>(c.repeat);
        const bool pim = (c.flags & sim::kFlagPim) != 0, reg = c.row == sim::kHbm2RegRow;
        if (c.op == sim::Op::RD && pim) n.macs += times;
        if (c.op == sim::Op::WR && pim) n.writeBacks += times;
        if (c.op == sim::Op::WR && reg && c.col == 8) n.grfaWrites += times;  // GRF_A, columns 8..15
        if (c.op == sim::Op::WR && reg && c.col == 0) n.modeWrites += times;  // control register
      }
  return n;
}

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

TEST(Reduction, Hbm2PimLeavesLanePartialSumsPerBlockOfEightRows) {
  const auto p = problem("hbm2-pim", "red", "b=16,n=8");
  const sim::Program prog = draftProgram(*p, oneCore(*p));
  // 16 rows over the unit's 2 banks: 8 per bank, one column each; the banks share GRF_B, so a pass per bank.
  // A pass is one block of 8 rows (8 entries): enter AB-PIM, 8 MACs, 8 write-back columns, leave.
  // 2 x 8 = 16 MACs, 16 write-backs, 2 x 2 = 4 control-register writes (the old code: 2 and 2 x 1 columns).
  EXPECT_EQ(hbm2Counts(prog), (Hbm2Counts{.macs = 16, .writeBacks = 16, .grfaWrites = 0, .modeWrites = 4}));
  // The host reads the 16 columns of lane partial sums from the odd bank only and adds the 16 lanes of each.
  EXPECT_EQ(issued(prog, sim::Op::HOST_RD, sim::Phase::OutputRearrangement), 16);
  const CandidateAnalysis a = analyseCandidate(*p, oneCore(*p));
  EXPECT_NE(a.ir.find("rows go in blocks of 8"), std::string::npos) << a.ir;
  EXPECT_NE(a.ir.find("the host reads them and adds the lanes"), std::string::npos) << a.ir;
}

TEST(Reduction, Hbm2PimGemvBroadcastsEachInputTilePerBlock) {
  const auto p = problem("hbm2-pim", "gemv", "b=1,out=16,in=256");
  const Draft d = p->space().draft(p->space().idOf(std::vector<PartChoice>{{1, 1, 0}, {1, 1, 0}, {1, 1, 0}}));
  const sim::Program prog = draftProgram(*p, d);
  // 16 output rows: 2 blocks of 8. The input is 256 / 16 = 16 bursts: 2 tiles of 8, tile 0 against the even
  // bank, tile 1 against the odd. Per block and tile 8 GRF_A writes and 8 rows x 8 MACs; per block 8
  // write-backs and 2 control-register writes. MACs 2 x 2 x 64 = 256 (16 x 256 weights / 16 lanes), GRF_A
  // writes 2 x 2 x 8 = 32, write-backs 16, mode writes 4; the host reads 16 columns.
  EXPECT_EQ(hbm2Counts(prog), (Hbm2Counts{.macs = 256, .writeBacks = 16, .grfaWrites = 32, .modeWrites = 4}));
  EXPECT_EQ(issued(prog, sim::Op::HOST_RD, sim::Phase::OutputRearrangement), 16);
  // The vector goes from the host into GRF_A only: the host reads its 16 bursts from the host layout and
  // places nothing in the banks (W is resident, so a call's input phase writes no bank at all).
  EXPECT_EQ(issued(prog, sim::Op::HOST_RD, sim::Phase::InputRearrangement), 16);
  EXPECT_EQ(issued(prog, sim::Op::HOST_WR, sim::Phase::InputRearrangement), 0);
}

TEST(Reduction, Hbm2PimGemvFillsGrfAFromTheBanksWhereUnitsHoldSlicesOfTheirOwn) {
  const auto p = problem("hbm2-pim", "gemv", "b=1,out=16,in=256");
  // `in` (dimension set 1) split over 2 units of the channel: unit 0 needs inputs 0..127, unit 1 inputs
  // 128..255, which one host write to the register row (the same data into every unit) cannot give them.
  const Draft d = p->space().draft(p->space().idOf(std::vector<PartChoice>{{1, 1, 0}, {1, 2, 0}, {1, 1, 0}}));
  const int x = p->kernel().tensorIndex("x");
  EXPECT_FALSE(sameTileOnEveryCore(*p, d, x));
  const sim::Program prog = draftProgram(*p, d);
  // Per unit 128 inputs = 8 bursts = one tile, in the even bank. 16 rows: 2 blocks; per block 8 FILL reads of
  // the tile and 8 rows x 8 MACs. Both units at once: 2 x (8 + 64) = 144 PIM reads, no GRF_A writes.
  EXPECT_EQ(hbm2Counts(prog), (Hbm2Counts{.macs = 144, .writeBacks = 16, .grfaWrites = 0, .modeWrites = 4}));
  // The input phase places each unit's tile in its banks: 8 bursts in each of the 4 live banks (the layout is
  // the same in every bank, so the odd bank's 8 are padding).
  EXPECT_EQ(issued(prog, sim::Op::HOST_WR, sim::Phase::InputRearrangement), 32);
}

TEST(Reduction, Hbm2PimResidentVectorIsFilledFromTheBanks) {
  const auto p = problem("hbm2-pim", "gemv", "b=1,out=16,in=256", "W,x");
  const Draft d = p->space().draft(p->space().idOf(std::vector<PartChoice>{{1, 1, 0}, {1, 1, 0}, {1, 1, 0}}));
  // A resident vector is in the banks already: 2 tiles (tile 0 in the even bank, tile 1 in the odd), each
  // FILLed per block: 2 blocks x 2 tiles x 8 = 32 FILL reads on top of the 256 MACs.
  EXPECT_EQ(hbm2Counts(draftProgram(*p, d)),
            (Hbm2Counts{.macs = 288, .writeBacks = 16, .grfaWrites = 0, .modeWrites = 4}));
}

// A kernel mixing a GEMV (lane partial sums, left in the odd bank) with an element-wise result (packed, in
// both banks of a unit): each output is read back from its own banks.
TEST(Reduction, Hbm2PimReadsEachOutputFromTheBanksThatHoldIt) {
  const Kernel k = parseKernel(R"(kernel mixed(out = 16, in = 256)
  input  W: f16[out][in]
  input  x: f16[in]
  input  a: f16[out][in]
  output y: f16[out]
  output z: f16[out][in]
  for o < out, i < in: y[o] += W[o][i] * x[i]
  for o < out, i < in: z[o][i] = relu(a[o][i])
end
)",
                               "mixed.pim");
  const Problem p(builtinBackends().get("hbm2-pim"), k, parseShape(k, "out=16,in=256"));
  const Draft d = p.space().draft(p.space().idOf(std::vector<PartChoice>{{1, 1, 0}, {1, 1, 0}}));
  const sim::Program prog = draftProgram(p, d);
  // y: 16 rows in 2 blocks of 8, one column of lane partial sums per row, in the odd bank only: 16 reads.
  // z: 16 x 256 f16 = 8,192 B = 256 bursts over the unit's 2 banks: 128 reads from each. 272 in all; reading
  // every output from the odd bank alone (timing model 8) gave 16 + 128 = 144.
  EXPECT_EQ(issued(prog, sim::Op::HOST_RD, sim::Phase::OutputRearrangement), 16 + 256);
}

// The predicate the GRF_A load follows, against the full mapping: every live core of a group holds the same
// tile of x exactly when sameTileOnEveryCore says so.
TEST(Reduction, SameTileOnEveryCoreAgreesWithTheMapping) {
  const auto p = problem("hbm2-pim", "gemv", "b=2,out=16,in=256");
  const int x = p->kernel().tensorIndex("x");
  int checked = 0, differing = 0;
  p->space().forEach([&](const Draft& d) {
    if (d.id % 7 != 0) return true;  // a spread sample: mapping every draft of 512 cores takes too long
    const TileMapping m = mapDraft(p->space(), d, IndexingStrategy::Expand);
    bool same = true;
    for (int g = 0; g < m.groupsUsed; ++g) {
      std::optional<std::vector<std::string>> first;
      for (int c = 0; c < m.coresPerGroup; ++c) {
        const CoreTile& core = m.at(g, c);
        if (core.idle) continue;
        std::vector<std::string> axes;
        for (const IndexUnion& a : core.tensors[x].axes) axes.push_back(a.str());
        if (first && axes != *first) same = false;
        if (!first) first = std::move(axes);
      }
    }
    EXPECT_EQ(sameTileOnEveryCore(*p, d, x), same) << p->space().label(d);
    ++checked;
    differing += same ? 0 : 1;
    return checked < 300;
  });
  EXPECT_GT(differing, 0);
  EXPECT_LT(differing, checked);
}

}  // namespace
}  // namespace pim
