// SPDX-License-Identifier: Apache-2.0
// The DCC-artifact mode (issue 16 item 5): command counts of dcc-artifact.md's recipes on every kernel the
// artifact covers, hand-derived from its formulas; its draft generator's emit rules; power-of-two rounding
// without recomputing the tiles; drafts named by their parts; PIMScope's default mode untouched.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "engine/common/error.h"
#include "engine/schedule/parts_text.h"
#include "engine/search/evaluate.h"
#include "engine/target/dram_pim/dcc_artifact/artifact_model.h"
#include "engine/target/dram_pim/device_config.h"
#include "engine/workflow/training.h"
#include "sim/simulator.h"
#include "test_util.h"

namespace pim {
namespace {

using dcc::Cmd;
using dcc::Tiling;

dcc::ArtifactTrace traceOf(const char* family, const char* kernel, std::vector<std::int64_t> dims,
                           const Tiling& t, bool inference = false) {
  dcc::ArtifactKernel k;
  k.recipe = dcc::findRecipe(family, kernel);
  EXPECT_NE(k.recipe, nullptr) << family << " " << kernel;
  k.dims = std::move(dims);
  return dcc::artifactTrace(k, dcc::checkedTiling(k.dims, t), inference);
}

std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// ---- command counts (dcc-artifact.md "Command recipes") ----

TEST(DccArtifactCounts, AttaccRedFollowsTheSpecFormulasOnTheRoundedCounts) {
  // (2,1,1),(3,10,35) rounds to (2,1,1),(4,16,35): CH = 8, BK = 16, s0 = 1, s1 = 35 (kept, not 1024/64 = 16).
  const auto tr = traceOf("attacc", "RED", {2, 1024}, {{2, 1, 1}, {3, 10, 35}});
  EXPECT_EQ(tr.rounds, 1);
  EXPECT_EQ(tr.sink.count(Cmd::ST), 2 * 3 * 16 * 8);  // 2*ceil(s0*s1/16)*BK*CH
  EXPECT_EQ(tr.sink.count(Cmd::WR_GB), 16 * 8);       // BK*CH
  EXPECT_EQ(tr.sink.count(Cmd::MAC_AB), 1 * 3 * 8);   // s0*ceil(s1/16)*CH
  EXPECT_EQ(tr.sink.count(Cmd::MV_SB), 1 * 4 * 8);    // s0*ceil(BK/4)*CH
  EXPECT_EQ(tr.sink.count(Cmd::BARRIER), 2 * 16);     // two barriers, each to all 16 channels
}

TEST(DccArtifactCounts, HbmPimRedAddsFourTreeMacsPerRowPerBankAndWritesBackPerGrfBlock) {
  // CH = 4, BK = 16 (halves: banks 0,4,8,12 and 1,5,9,13), s0 = 4 rows of s1 = 16.
  const auto tr = traceOf("hbm-pim", "RED", {4, 1024}, {{1, 1, 4}, {4, 16, 16}});
  EXPECT_EQ(tr.sink.count(Cmd::ST), 2 * 4 * 16 * 4);                // input and output, ceil(64/16) per bank
  EXPECT_EQ(tr.sink.count(Cmd::MAC_OP1), 4 * 2 * 4 * 4 * (1 + 4));  // rows x halves x banks x CH x (1 + 4)
  EXPECT_EQ(tr.sink.count(Cmd::WB_RES), 1 * 2 * 4 * 4);             // only after the last of the 4 rows
  EXPECT_EQ(tr.sink.count(Cmd::LD), 0);
}

TEST(DccArtifactCounts, HbmPimVaAndReluOnTheVendorTiling) {
  // [(1,1,1),(16,64,1)]: CH = 16, BK = 64, one element per bank; halves of 16 banks (index mod 4 = 0, 1).
  const auto va = traceOf("hbm-pim", "VA", {1, 1024}, {{1, 1, 1}, {16, 64, 1}});
  EXPECT_EQ(va.sink.count(Cmd::LD), 2 * 64 * 16);
  for (Cmd c : {Cmd::LD_OP1, Cmd::ADD_OP1, Cmd::WB_RES})
    EXPECT_EQ(va.sink.count(c), 2 * 16 * 16) << cmdName(c);
  EXPECT_EQ(va.sink.count(Cmd::ST), 64 * 16);
  const auto relu = traceOf("hbm-pim", "RELU", {1, 1024}, {{1, 1, 1}, {16, 64, 1}});
  EXPECT_EQ(relu.sink.count(Cmd::LD), 64 * 16);
  EXPECT_EQ(relu.sink.count(Cmd::RELU), 2 * 16 * 16);
  EXPECT_EQ(relu.sink.count(Cmd::WB_RES), 2 * 16 * 16);
  EXPECT_EQ(relu.sink.count(Cmd::ST), 64 * 16);
}

TEST(DccArtifactCounts, HbmPimGemvResetsLoadsMultipliesAndWritesBackPerGrfBlock) {
  // [BH=1, dh=128, L=32] on CH = 1, BK = 2: halves {0}, {1}; 2 output chunks, 8 input chunks.
  const auto tr = traceOf("hbm-pim", "GEMV", {1, 128, 64}, {{1, 1, 1}, {1, 1, 128}, {1, 2, 32}});
  EXPECT_EQ(tr.sink.count(Cmd::LD), 8 * 2);  // the vector, ceil(128/16) per bank
  EXPECT_EQ(tr.sink.count(Cmd::ST), 8 * 2 + 2 * 2);
  EXPECT_EQ(tr.sink.count(Cmd::ACC_RESET), 2 * 2);
  EXPECT_EQ(tr.sink.count(Cmd::LD_OP1), 2 * 8);
  EXPECT_EQ(tr.sink.count(Cmd::MAC_OP1), 2 * 2 * 8);
  EXPECT_EQ(tr.sink.count(Cmd::WB_ACC), 2 * 2);
}

TEST(DccArtifactCounts, AttaccGemvKernelAndInferenceModes) {
  // The vendor pattern (kept as is): CH = 1, BK = 64, s0 = 1, s1 = 32, s2 = 16.
  const Tiling t{{1, 1, 1}, {1, 4, 32}, {1, 16, 16}};
  const auto kernel = traceOf("attacc", "GEMV", {1, 128, 256}, t);
  EXPECT_EQ(kernel.rounded, t);
  EXPECT_EQ(kernel.sink.count(Cmd::LD), 2 * 64);
  EXPECT_EQ(kernel.sink.count(Cmd::ST), 2 * 64 + 1 * 64);
  EXPECT_EQ(kernel.sink.count(Cmd::WR_GB), 2 * 64);   // every 16 input elements, per bank
  EXPECT_EQ(kernel.sink.count(Cmd::MAC_AB), 16 * 2);  // s2*ceil(s1/16) per channel
  EXPECT_EQ(kernel.sink.count(Cmd::MV_SB), 1 * 16);   // ceil(BK/4) per channel every 16 outputs
  const auto inference = traceOf("attacc", "GEMV", {1, 128, 256}, t, true);
  EXPECT_EQ(inference.sink.count(Cmd::LD), 0);
  EXPECT_EQ(inference.sink.count(Cmd::ST), 2 * 64 + 1 * 64);
}

TEST(DccArtifactCounts, AttaccAttnScoreSoftmaxAndContext) {
  // CH = 1, BK = 64, s0 = 1, s1 = 32 (head dim), s2 = 4 (sequence); one round.
  const auto tr = traceOf("attacc", "ATTN", {1, 128, 64}, {{1, 1, 1}, {1, 4, 32}, {1, 16, 4}});
  EXPECT_EQ(tr.sink.count(Cmd::LD), 2 * 64);
  EXPECT_EQ(tr.sink.count(Cmd::ST), 2 * 64 + 2 * 64);
  EXPECT_EQ(tr.sink.count(Cmd::WR_GB), 2 * 64);
  EXPECT_EQ(tr.sink.count(Cmd::MV_GB), 2 * 64);
  EXPECT_EQ(tr.sink.count(Cmd::MAC_AB), 4 * 2 + 32 * 1);  // score s2*ceil(s1/16), context s1*ceil(s2/16)
  EXPECT_EQ(tr.sink.count(Cmd::MV_SB), 16 + 2 * 16);      // score once, context every 16 of 32 outputs
  EXPECT_EQ(tr.sink.count(Cmd::SFM), 1 * 16);             // cores of part 0, every channel of the stack
}

TEST(DccArtifactCounts, RoundsSplitTheOuterDimensionWhenABankOverflows) {
  // 8 rows of 2^20 elements: 2 MiB per row for input and output, 4 MiB per row in a 16-MiB bank: 4 rows fit.
  const auto tr = traceOf("attacc", "RED", {8, 1 << 20}, {{1, 1, 8}, {1, 1, 1 << 20}});
  EXPECT_EQ(tr.rounds, 2);
  EXPECT_EQ(tr.rounded[0].tile, 4);
  EXPECT_EQ(tr.sink.count(Cmd::MAC_AB), 2 * 4 * (1 << 16));
}

TEST(DccArtifactCounts, RoundedDraftsBeyondTheStackAliasThroughTheAddressMap) {
  // 3 x 5 groups round to 4 x 8 = 32 channels: channel indices 16..31 wrap onto 0..15, which get two copies.
  const auto tr = traceOf("attacc", "RED", {16, 64}, {{3, 1, 6}, {5, 1, 64}});
  EXPECT_EQ(dcc::channelsOf(tr.rounded), 32);
  EXPECT_EQ(tr.sink.count(Cmd::WR_GB, 0), 2);
  EXPECT_EQ(tr.sink.count(Cmd::WR_GB), 32);
}

TEST(DccArtifactCounts, RequestsKeepTheTracesOrderAndTheBankOfTheirAddress) {
  // The simulator's fed channel chooses among the buffered requests (tests/test_frontend.cpp); the sink
  // keeps the trace's order, every command at its address's bank (pCH 1, rank 0, bank group 2, bank 3).
  dcc::TraceSink sink;
  const std::uint64_t bank = 32 + 2 * 4 + 3, rowB = 5 * dcc::kRowBytes;
  for (std::uint64_t at : {std::uint64_t{0}, rowB, dcc::kColumnBytes})
    sink.add(Cmd::WR_GB, dcc::bankAddress(0, static_cast<std::int64_t>(bank), at));
  sink.barrier();
  const sim::Program p = sink.take();
  std::vector<std::uint32_t> rows;
  for (const sim::Block& b : p.programs[static_cast<std::size_t>(p.channelMap[0])].blocks)
    for (const sim::Command& c : b.cmds) {
      if (c.op != sim::Op::WRGB) continue;
      rows.push_back(c.row);
      EXPECT_EQ(std::vector<int>({c.pch, c.rank, c.bg, c.bank}), std::vector<int>({1, 0, 2, 3}));
    }
  EXPECT_EQ(rows, (std::vector<std::uint32_t>{0, 5, 0}));
}

// ---- the artifact frontend's global barrier step (SimOptions::globalBarriers) ----

// Two channels of WRGB buffer moves (no row needed) around one drain barrier, on a device whose timing is
// counted by hand: a WRGB takes a column slot of bank group 0, so consecutive ones issue tCCD_L = 4 apart and
// each completes a burst (2 cycles) after it issues; refresh is off.
struct TwoChannels {
  sim::DeviceConfig device;
  sim::Program program;
  TwoChannels(std::uint32_t before0, std::uint32_t after0, std::uint32_t before1, std::uint32_t after1) {
    device.barrierMode = sim::BarrierMode::Drain;
    device.separateRowColumnBus = true;
    device.refresh = false;
    device.tCCDS = 2;
    device.tCCDL = 4;
    device.burstCyclesOverride = 2;
    for (auto [before, after] : {std::pair{before0, after0}, std::pair{before1, after1}}) {
      sim::ProgramBuilder b;
      b.simple(sim::Op::WRGB, before);
      b.barrier();
      b.simple(sim::Op::WRGB, after);
      program.programs.push_back(b.take());
    }
    program.channelMap = {0, 1};
  }
  sim::Result run(bool global) const {
    sim::SimOptions so;
    so.globalBarriers = global;
    so.trace.enabled = true;
    return sim::simulate(device, program, so);
  }
};

// Issue cycle of channel `ch`'s `n`-th WRGB (0-based).
std::int64_t wrgbIssue(const sim::Result& r, int ch, int n) {
  for (const sim::TraceEvent& e : r.trace)
    if (e.channel == ch && e.op == sim::Op::WRGB && n-- == 0) return e.start;
  return -1;
}

TEST(DccArtifactBarrier, TheLighterChannelsNextPhaseStartsWhenTheHeaviestDrained) {
  // Phase 1: channel 0 issues 5 WRGB at 0, 4, 8, 12, 16 and drains at 16 + 2 = 18; channel 1 issues 2 at 0, 4
  // and drains at 6. Phase 2: 3 WRGB on each.
  const TwoChannels t(5, 3, 2, 3);
  const sim::Result own = t.run(false), global = t.run(true);
  // Per-channel barriers: channel 1 goes on at its own tCCD_L, 4 + 4 = 8; as a global step, at 18.
  EXPECT_EQ(wrgbIssue(own, 1, 2), 8);
  EXPECT_EQ(wrgbIssue(global, 1, 2), 18);
  EXPECT_EQ(wrgbIssue(global, 1, 4), 26);
  // Channel 0 is the slowest either way: its phase 2 issues at 20, 24, 28 and ends at 30.
  EXPECT_EQ(wrgbIssue(global, 0, 5), 20);
  EXPECT_EQ(own.totalCycles, 30);
  EXPECT_EQ(global.totalCycles, 30);
}

TEST(DccArtifactBarrier, EveryPhaseLastsAsLongAsItsSlowestChannel) {
  // Channel 0 is heavy before the barrier (5 WRGB, drained at 18), channel 1 after it (5 WRGB).
  const TwoChannels t(5, 2, 2, 5);
  // Per channel: channel 1 issues its second phase at 8 .. 24 and ends at 26, as channel 0 (20, 24: 26).
  EXPECT_EQ(t.run(false).totalCycles, 26);
  // Global step: channel 1's second phase starts at 18, issues at 18 .. 34 and ends at 36 = 18 + 4*4 + 2.
  EXPECT_EQ(t.run(true).totalCycles, 36);
}

TEST(DccArtifactBarrier, UniformDraftsAreUnchangedAndTheModeTakesTheStep) {
  EvalOptions dccMode;
  dccMode.model = LabelModel::DccKernel;
  auto cycles = [&](const Problem& p, const Tiling& t, bool global, bool frontend = false) {
    const dcc::ArtifactKernel k = dcc::artifactKernel(p);
    const auto tr = dcc::artifactTrace(k, dcc::checkedTiling(k.dims, t), false);
    sim::SimOptions so;
    so.globalBarriers = global;
    if (frontend) so.frontend = &tr.sink.frontendOrder();
    return sim::simulate(dcc::artifactDevice(deviceConfigFor(p.backend(), dccMode.sim)), tr.program, so)
        .totalCycles;
  };
  // The vendor tiling runs the same program on every channel: the step changes nothing.
  const auto red = test::problem("attacc", "red", "b=16,n=64");
  const Tiling vendor = dcc::vendorTiling(std::vector<std::int64_t>{16, 64});
  EXPECT_EQ(traceOf("attacc", "RED", {16, 64}, vendor).program.programs.size(), 1u);
  EXPECT_EQ(cycles(*red, vendor, true), cycles(*red, vendor, false));
  // The mode's label is the step's with the frontend's request buffers (test_frontend.cpp).
  EXPECT_EQ(dcc::evaluateTiling(*red, vendor, dccMode).totalCycles, cycles(*red, vendor, true, true));
  // HBM-PIM GEMV [32, 128, 512] (160 rows over the backend's 5 stacks): its odd channels take none of the
  // MAC_OP1 (issued on every other bank entry), so two programs run; the step never shortens a run (what it
  // adds is counted by hand above), and the mode's label is the step's with the frontend.
  const auto gemv = test::problem("hbm-pim", "mmtv", "i=160,j=512,k=128");
  ASSERT_EQ(dcc::artifactKernel(*gemv).dims, (std::vector<std::int64_t>{32, 128, 512}));
  const Tiling uneven{{1, 32, 1}, {1, 1, 128}, {16, 2, 16}};
  EXPECT_EQ(traceOf("hbm-pim", "GEMV", {32, 128, 512}, uneven).program.programs.size(), 2u);
  EXPECT_GE(cycles(*gemv, uneven, true), cycles(*gemv, uneven, false));
  EXPECT_EQ(dcc::evaluateTiling(*gemv, uneven, dccMode).totalCycles, cycles(*gemv, uneven, true, true));
}

// ---- draft generation and rounding (dcc-artifact.md "Draft generation") ----

TEST(DccArtifactDrafts, RoundingKeepsTilesAndTheVendorPattern) {
  EXPECT_EQ(dcc::roundToPowersOfTwo({{3, 5, 7}, {1, 3, 11}}), (Tiling{{4, 8, 7}, {1, 4, 11}}));
  const Tiling vendor{{3, 1, 1}, {1, 64, 5}};
  EXPECT_EQ(dcc::roundToPowersOfTwo(vendor), vendor);
}

TEST(DccArtifactDrafts, TwoDimensionalEmitRuleByHand) {
  // [1, 1024]: part 0 is (1,1,1); a leaf needs 16 // a == 1 (a >= 9) and 64 // b <= 4 (b >= 13). Powers of
  // two come first: (16,16,4), (16,32,2), (16,64,1); then the first non-power pair of each new tile:
  // a*b >= 117 gives tiles 1..9, so 3, 5, 6, 7, 8, 9 are new. The vendor tiling is already there.
  const std::vector<std::int64_t> dims{1, 1024};
  const auto drafts = dcc::generateDrafts(dims);
  ASSERT_EQ(drafts.size(), 9u);
  EXPECT_EQ(drafts[0], (Tiling{{1, 1, 1}, {16, 16, 4}}));
  EXPECT_EQ(drafts[1], (Tiling{{1, 1, 1}, {16, 32, 2}}));
  EXPECT_EQ(drafts[2], (Tiling{{1, 1, 1}, {16, 64, 1}}));
  EXPECT_EQ(drafts[3], (Tiling{{1, 1, 1}, {9, 13, 9}}));  // a = 9, b = 13: 117 -> tile 9
  EXPECT_EQ(drafts[2], dcc::vendorTiling(dims));
}

TEST(DccArtifactDrafts, SmallBatchAppendsTheVendorTiling) {
  // [1, 4]: no pair reaches a leaf (a <= 4 leaves 16 // a > 1 groups), so only the vendor tiling remains.
  const std::vector<std::int64_t> dims{1, 4};
  EXPECT_EQ(dcc::generateDrafts(dims), (std::vector<Tiling>{{{1, 1, 1}, {16, 64, 1}}}));
  // 3-D, BH < 16: both vendor variants are appended.
  const std::vector<std::int64_t> d3{1, 4, 16};
  const auto drafts = dcc::generateDrafts(d3);
  ASSERT_GE(drafts.size(), 2u);
  EXPECT_EQ(drafts[drafts.size() - 2], (Tiling{{1, 1, 1}, {1, 4, 1}, {16, 16, 1}}));
  EXPECT_EQ(drafts.back(), (Tiling{{1, 1, 1}, {16, 4, 1}, {1, 16, 1}}));
}

// ---- parts on the command line ----

TEST(DccArtifactParts, ParsesTriplesAndNamesWhatIsWrong) {
  EXPECT_EQ(parsePartsText("parts:[[16, 64, 3], [1,1,0]]"),
            (std::vector<PartTriple>{{16, 64, 3}, {1, 1, 0}}));
  EXPECT_NE(errorOf([] { parsePartsText("parts:[[1,2]]"); }).find("3 numbers"), std::string::npos);
  EXPECT_NE(errorOf([] { parsePartsText("parts:[]"); }).find("at least one part"), std::string::npos);
  EXPECT_NE(errorOf([] { parsePartsText("parts:[[1,-2,3]]"); }).find("character 11"), std::string::npos);
  EXPECT_NE(errorOf([] { parsePartsText("parts:[[1,2,3]]x"); }).find("the end of the parts list"),
            std::string::npos);
}

TEST(DccArtifactParts, PimScopeFormMapsOntoDraftIds) {
  const auto p = test::problem("hbm-pim", "red", "b=1,n=1024");
  const Draft d = p->space().draft(5);
  std::vector<PartTriple> parts;
  for (const PartChoice& c : d.parts) parts.push_back({c.groups, c.cores, c.rep});
  EXPECT_EQ(draftFromParts(p->space(), parts), d);
  EXPECT_NE(errorOf([&] {
              draftFromParts(p->space(), {{{1, 1, 0}}});
            }).find("have 2 parts"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              draftFromParts(p->space(), {{{1, 1, 9}, {1, 1, 0}}});
            }).find("representative 9"),
            std::string::npos);
}

TEST(DccArtifactParts, DccFormIsCheckedAgainstTheStackAndTheShape) {
  const std::vector<std::int64_t> dims{1, 1024};
  EXPECT_NE(errorOf([&] {
              dcc::checkedTiling(dims, {{1, 1, 1}, {16, 64, 0}});
            }).find("at least 1"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              dcc::checkedTiling(dims, {{1, 1, 1}, {16, 32, 1}});
            }).find("does not cover"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              dcc::checkedTiling(dims, {{1, 1, 1}, {17, 1, 64}});
            }).find("groups must be 1..16"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              dcc::checkedTiling(dims, {{4, 1, 1}, {8, 1, 128}});
            }).find("one stack has"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { dcc::checkedTiling(dims, {{1, 1, 1}}); }).find("have 2 parts"), std::string::npos);
}

// ---- the mode end to end ----

TEST(DccArtifactMode, LabelsDraftsAndKeepsTheDefaultModeApart) {
  const auto p = test::problem("hbm-pim", "red", "b=1,n=1024");
  EvalOptions dccMode;
  dccMode.model = LabelModel::DccKernel;
  const Tiling vendor = dcc::vendorTiling(std::vector<std::int64_t>{1, 1024});
  const Evaluation v = dcc::evaluateTiling(*p, vendor, dccMode);
  EXPECT_GT(v.totalCycles, 0);
  EXPECT_EQ(v.cycles[0] + v.cycles[1] + v.cycles[2], v.totalCycles);
  // The PIMScope draft with the vendor's groups and cores gets the same DCC label.
  const Draft d = draftFromParts(p->space(), std::vector<PartTriple>{{1, 1, 0}, {16, 64, 0}});
  EXPECT_EQ(evaluateDraft(*p, d, dccMode).totalCycles, v.totalCycles);
  // The default mode still labels with PIMScope's model, and the two never share a stored key.
  EXPECT_NE(evaluateDraft(*p, d, EvalOptions{}).totalCycles, v.totalCycles);
  EXPECT_NE(optionsKey(dccMode, targetOf(p->backend())), optionsKey(EvalOptions{}, targetOf(p->backend())));
  EXPECT_EQ(optionsKey(EvalOptions{}, targetOf(p->backend())),
            "staged,group,t" + std::to_string(sim::kTimingModelVersion));
  // The DCC mode's own version keeps labels of an older mode from being reused.
  EXPECT_EQ(optionsKey(dccMode, targetOf(p->backend())),
            "staged,group,t" + std::to_string(sim::kTimingModelVersion) + ",dcc-kernel,v" +
                std::to_string(kDccModeVersion));
}

TEST(DccArtifactMode, RefusesKernelsAndBackendsTheArtifactDoesNotCover) {
  const auto va = test::problem("attacc", "va", "b=1,n=1024");
  EXPECT_NE(errorOf([&] { dcc::artifactKernel(*va); }).find("no VA trace for attacc"), std::string::npos);
  const auto gemm = test::problem("hbm-pim", "gemm", "m=16,n=16,k=16");
  EXPECT_NE(errorOf([&] { dcc::artifactKernel(*gemm); }).find("none of the artifact's"), std::string::npos);
}

// ---- the command line ----

TEST(DccArtifactCli, SimulatesDraftsNamedByTheirPartsInBothModes) {
  test::TempDir dir;
  const std::string problem = "simulate -b hbm-pim -k red --dims b=1,n=1024 --json";
  const auto dcc = test::runCli(problem + " --model dcc-kernel --schedule 'parts:[[1,1,1],[16,64,1]]'",
                                dir.file("err1.txt"));
  ASSERT_EQ(dcc.code, 0) << dcc.err;
  const auto vendor = test::runCli(problem + " --model dcc-kernel --schedule vendor", dir.file("err2.txt"));
  ASSERT_EQ(vendor.code, 0) << vendor.err;
  const auto total = [](const std::string& out) { return nlohmann::json::parse(out)["cycles"]["total"]; };
  EXPECT_EQ(total(dcc.out), total(vendor.out));  // the vendor tiling named by its parts
  const auto own = test::runCli(problem + " --schedule 'parts:[[1,1,0],[16,64,0]]'", dir.file("err3.txt"));
  ASSERT_EQ(own.code, 0) << own.err;
  EXPECT_EQ(nlohmann::json::parse(own.out)["schedule"]["kind"], "draft");
}

TEST(DccArtifactCli, ExploreLabelsWithTheModelItIsGiven) {
  test::TempDir dir;
  const std::string problem = "-b hbm-pim -k red --dims b=1,n=1024 --set system.devices=1 --json";
  const auto dcc =
      test::runCli("explore " + problem + " --model dcc-kernel --strategy exhaustive", dir.file("err1.txt"));
  ASSERT_EQ(dcc.code, 0) << dcc.err;
  const auto vendor =
      test::runCli("simulate " + problem + " --model dcc-kernel --schedule vendor", dir.file("e2"));
  ASSERT_EQ(vendor.code, 0) << vendor.err;
  const nlohmann::json out = nlohmann::json::parse(dcc.out);
  EXPECT_EQ(out["label_model"], "dcc-kernel");
  // The vendor baseline is the artifact's vendor tiling, labelled as `simulate --model` labels it.
  EXPECT_EQ(out["baselines"]["vendor"]["cycles"]["total"],
            nlohmann::json::parse(vendor.out)["cycles"]["total"]);
  const auto own = test::runCli("explore " + problem + " --strategy exhaustive", dir.file("err3.txt"));
  ASSERT_EQ(own.code, 0) << own.err;
  EXPECT_FALSE(nlohmann::json::parse(own.out).contains("label_model"));
  EXPECT_NE(nlohmann::json::parse(own.out)["baselines"]["vendor"]["cycles"],
            out["baselines"]["vendor"]["cycles"]);
  // What the artifact has no trace for is refused before any search.
  const auto va = test::runCli("explore -b attacc -k va --model dcc-kernel", dir.file("err4.txt"));
  EXPECT_EQ(va.code, 2);
  EXPECT_NE(va.err.find("no VA trace for attacc"), std::string::npos) << va.err;
}

TEST(DccArtifactCli, BadPartsAndModelsExitTwoSayingWhatIsWrong) {
  test::TempDir dir;
  const std::string problem = "simulate -b hbm-pim -k red --dims b=1,n=1024";
  const auto uncovered = test::runCli(problem + " --model dcc-kernel --schedule 'parts:[[1,1,1],[16,32,1]]'",
                                      dir.file("err1.txt"));
  EXPECT_EQ(uncovered.code, 2);
  EXPECT_NE(uncovered.err.find("does not cover"), std::string::npos) << uncovered.err;
  const auto malformed =
      test::runCli(problem + " --schedule 'parts:[[1,1],[16,64,0]]'", dir.file("err2.txt"));
  EXPECT_EQ(malformed.code, 2);
  EXPECT_NE(malformed.err.find("3 numbers in part 0"), std::string::npos) << malformed.err;
  const auto upmem = test::runCli(
      "simulate -b upmem -k red --dims b=1,n=1024 --model dcc-kernel --schedule gpu", dir.file("err4.txt"));
  EXPECT_EQ(upmem.code, 2);
  // upmem's family reads no DCC labelling model (ITarget::searchSettings): refused by the option's name.
  EXPECT_NE(upmem.err.find("--model: backend upmem (family upmem) does not read it"), std::string::npos)
      << upmem.err;
  const auto model = test::runCli(problem + " --model dcc", dir.file("err3.txt"));
  EXPECT_EQ(model.code, 2);
  EXPECT_NE(model.err.find("--model: 'dcc' is not"), std::string::npos) << model.err;
}

}  // namespace
}  // namespace pim
