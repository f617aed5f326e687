// SPDX-License-Identifier: Apache-2.0
// The crossbar profiler and energy model (issue 19; ../shared/specs/crossbar.md, "Profiler timing rules" and
// "Power and area") on hand-derived programs, in both timing modes: PIMCOMP-NN's (MVM 800 ns, 144-core chips)
// and the intended one (MVM 4,000 ns at 16 bits, chips as configured). Expected values are derived in
// comments in terms of the MVM latency L.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/crossbar/xbar_energy.h"
#include "sim/crossbar/xbar_profiler.h"
#include "sim/crossbar/xbar_reservation.h"
#include "tests/crossbar_instructions.h"

using namespace pim::xbar;

namespace {

using pim::test::comm;
using pim::test::ig;
using pim::test::mvm;
using pim::test::op;

using pim::test::profile;

// Both modes with every core on one chip, so only the MVM latency differs.
class CrossbarModes : public ::testing::TestWithParam<bool> {
 protected:
  TimingParams params() const { return GetParam() ? pimcompNn() : intended(16, 144); }
  std::int64_t L() const { return GetParam() ? 800 : 4000; }
};

INSTANTIATE_TEST_SUITE_P(Timing, CrossbarModes, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "PimcompNn" : "Intended"; });

}  // namespace

TEST(CrossbarTimingParams, Factories) {
  EXPECT_EQ(pimcompNn().mvmLatencyNs, 800);
  EXPECT_EQ(pimcompNn().coresPerChip, 144);
  EXPECT_EQ(intended(16, 4).mvmLatencyNs, 4000);  // 200 + 16 x 200 + 200 + 200 + 200
  EXPECT_EQ(intended(8, 4).mvmLatencyNs, 2400);
  EXPECT_EQ(intended(16, 4).coresPerChip, 4);
  EXPECT_EQ(timingParams(TimingModel::Intended, 16, 36).coresPerChip, 36);
  EXPECT_EQ(timingParams(TimingModel::PimcompNn, 16, 36).coresPerChip, 144);
  TimingParams bad = pimcompNn();
  bad.busGBps = 0;
  try {
    validate(bad);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("busGBps"), std::string::npos);
  }
  EXPECT_THROW(intended(16, 0), std::invalid_argument);
  EXPECT_THROW(Profiler(0, pimcompNn()), std::invalid_argument);
  EXPECT_EQ(opcodeName(Opcode::Vsigmoid), "VSIGMOID");
  EXPECT_EQ(stageName(Stage::MainC), "MAIN-C");
  EXPECT_EQ(stageName(Stage::Other), "");
}

// IG0, three MVMULs of AG 0 from time 0:
//   #1 first of the IG: starts at the preparation timeline 0, time = 0 + L.
//   #2 start = max(last start 0 + 200, AG 0's start + L); but AG 0 started at 0, which PIMCOMP-NN reads as
//      "never", so 200; time = 200 + L; MVM share += min(200, L) = 200.
//   #3 AG 0 started at 200: 200 + L > 200 + 200, so start = 200 + L; time = 200 + 2L; share += L.
// IG1 (preparation reset to 200 + 2L), two MVMULs of AG 0:
//   #1 starts at 200 + 2L, time += L -> 200 + 3L; #2 start = 200 + 3L, time = 200 + 4L; share += 2L.
TEST_P(CrossbarModes, MvmChainOnOneAg) {
  const auto r =
      profile(1, params(), {ig({{mvm(0, 0), mvm(0, 0), mvm(0, 0)}}), ig({{mvm(0, 0), mvm(0, 0)}})});
  EXPECT_EQ(r.totalNs, 200 + 4 * L());
  EXPECT_EQ(r.cores[0].mvmNs, 200 + 4 * L());
  EXPECT_EQ(r.instructionGroups, 2);
  EXPECT_DOUBLE_EQ(r.averageIgNs, double(200 + 4 * L()) / 2);
  EXPECT_EQ(r.counts.mvmul, 5);
  EXPECT_EQ(r.cores[0].crossbarActivations, 5);
  EXPECT_EQ(r.nodes[0].firstStartNs, 0);
  EXPECT_EQ(r.nodes[0].lastFinishNs, 200 + 4 * L());
}

// IG0: VRELU of 320 elements (100 ns, stage Other: time, not VEC share); the preparation resets to 100.
// IG1, AGs 0, 1, 0, 1:
//   A0 first: start 100, time 100 + L, share L.
//   A1: start 100 + 200 = 300 (AG 1 never ran), time 300 + L, share 200.
//   A0: AG 0 bound 100 + L > 300 + 200 (L > 400), start 100 + L, time 100 + 2L, share L - 200.
//   A1: AG 1 bound 300 + L is not > (100 + L) + 200, start 300 + L, time 300 + 2L, share 200.
TEST_P(CrossbarModes, TwoAgsOnOneCoreKeepTheIssueInterval) {
  const auto r = profile(
      1, params(), {ig({{op(Opcode::Vrelu, 320)}}), ig({{mvm(0, 1), mvm(1, 1), mvm(0, 1), mvm(1, 1)}})});
  EXPECT_EQ(r.totalNs, 300 + 2 * L());
  EXPECT_EQ(r.cores[0].mvmNs, 2 * L() + 200);
  EXPECT_EQ(r.cores[0].vectorNs, 0);
  EXPECT_EQ(r.cores[0].vfuBusyNs, 100);
  EXPECT_EQ(r.nodes[1].firstStartNs, 100);
  EXPECT_EQ(r.nodes[1].lastFinishNs, 300 + 2 * L());
}

// One core:
//   LD 320 elements = 640 B = 10 ns of global memory from preparation 0: preparation 10 passes the core (0),
//   so
//     the core waits: time 10, memory share 10.
//   MVMUL AG 0 (first): starts at 10, time 10 + L.
//   LD 8,000 elements = 16,000 B = 250 ns from preparation 10 (memory busy [0, 10) already): preparation 260.
//   LMV MAIN 250 elements = 500 B: 2 x ceil(500 / 25.6) = 40 ns: preparation 300, 290 since the last MVMUL.
//   MVMUL AG 1: interval = max(200, 300 - 10) = 290, start 300, time 300 + L, share min(290, L) = 290.
TEST_P(CrossbarModes, PreparationLongerThanTheInterval) {
  const auto r = profile(1, params(),
                         {ig({{op(Opcode::Ld, 320), mvm(0), op(Opcode::Ld, 8000),
                               op(Opcode::Lmv, 250, Stage::Main), mvm(1, 1)}})});
  EXPECT_EQ(r.totalNs, 300 + L());
  EXPECT_EQ(r.cores[0].mvmNs, L() + 290);
  EXPECT_EQ(r.cores[0].memoryNs, 10);
  EXPECT_EQ(r.cores[0].vectorNs, 0);  // a MAIN copy is preparation, not VEC
  EXPECT_EQ(r.cores[0].copyBusyNs, 40);
  EXPECT_EQ(r.cores[0].loadStoreBusyNs, 260);
  EXPECT_EQ(r.chips[0].globalMemoryBusyNs, 260);
  EXPECT_EQ(r.loadBytes, 16640);
  EXPECT_EQ(r.counts.memory, 2);
  EXPECT_EQ(r.counts.copy, 1);
  EXPECT_EQ(r.nodes[1].firstStartNs, 300);
}

// Core 0: MVMUL (time L), SEND 100 elements (200 B: ceil(200 / 25.6) = 8 ns of bus) to core 1.
// Core 1: RECV (at 0: waits L, sync share L), both at L, transfer [L, L + 8): both at L + 8; core 1's last
// sync
//   time is L. Then MVMUL AG 1, first of the IG: starts at core 1's preparation timeline 0, time 2L + 8.
//   LMV MAIN 250 elements: 40 ns of preparation (timeline 40).
//   MVMUL AG 2: max(0 + 200, 40 - 0) = 200 is before the last sync L, so it starts at L + 40 (the preparation
//   since the last MVMUL); time = 2L + 40 (lower than 2L + 8 + ...: PIMCOMP-NN sets it), share min(L + 40,
//   L).
TEST_P(CrossbarModes, RendezvousChargesSyncToTheWaitingCore) {
  const auto r =
      profile(2, params(),
              {ig({{mvm(0), comm(Opcode::Send, 1, 7, 100)},
                   {comm(Opcode::Recv, 0, 7, 100), mvm(1), op(Opcode::Lmv, 250, Stage::Main), mvm(2, 3)}})});
  EXPECT_EQ(r.cores[0].endNs, L() + 8);
  EXPECT_EQ(r.cores[1].endNs, 2 * L() + 40);
  EXPECT_EQ(r.totalNs, 2 * L() + 40);
  EXPECT_EQ(r.cores[0].commSyncNs, 0);
  EXPECT_EQ(r.cores[1].commSyncNs, L());
  EXPECT_EQ(r.cores[0].commTransferNs, 8);
  EXPECT_EQ(r.cores[1].commTransferNs, 8);
  EXPECT_EQ(r.cores[1].mvmNs, 2 * L());
  EXPECT_EQ(r.nodes[3].firstStartNs, L() + 40);
  EXPECT_EQ(r.commBytes, 200);
  EXPECT_EQ(r.counts.communication, 2);
  EXPECT_EQ(r.interChipBytes, 0);
}

// Cores 0->1 and 2->3 each transfer 100 elements (8 ns of bus) at time 0. Visiting order: core 0 suspends at
// its SEND, core 1 pairs and takes bus [0, 8); core 0 ends, core 2 suspends, core 3 pairs and asks for 8 ns
// at 0 on the same chip: [8, 16), a latency of 16. On 2-core chips the pairs use different buses.
TEST(CrossbarProfiler, TwoTransfersContendForTheChipBus) {
  const auto program = ig({{comm(Opcode::Send, 1, 1, 100)},
                           {comm(Opcode::Recv, 0, 1, 100)},
                           {comm(Opcode::Send, 3, 2, 100)},
                           {comm(Opcode::Recv, 2, 2, 100)}});
  for (const TimingParams& shared : {pimcompNn(), intended(16, 4)}) {
    const auto r = profile(4, shared, {program});
    EXPECT_EQ(r.cores[1].endNs, 8);
    EXPECT_EQ(r.cores[3].endNs, 16);
    EXPECT_EQ(r.cores[2].commTransferNs, 16);
    EXPECT_EQ(r.chips[0].busBusyNs, 16);
  }
  const auto split = profile(4, intended(16, 2), {program});
  EXPECT_EQ(split.cores[3].endNs, 8);
  EXPECT_EQ(split.chips[1].busBusyNs, 8);
}

// 1,000 elements = 2,000 B: bus ceil(2000 / 25.6) = 79 ns; between chips + 2000 / 6.4 = 312.5, truncated with
// the sum: 391. PIMCOMP-NN mode puts core 144 on a second chip (144-core chips); the bus is the arriving
// core's.
TEST(CrossbarProfiler, CrossChipTransferAddsHyperTransport) {
  std::vector<std::vector<Instruction>> cores(145);
  cores[0] = {comm(Opcode::Send, 144, 9, 1000)};
  cores[144] = {comm(Opcode::Recv, 0, 9, 1000)};
  const auto r = profile(145, pimcompNn(), {ig(cores)});
  EXPECT_EQ(r.cores[0].endNs, 391);
  EXPECT_EQ(r.cores[144].endNs, 391);
  EXPECT_EQ(r.interChipBytes, 2000);
  EXPECT_EQ(r.chips[1].busBusyNs, 79);
  EXPECT_EQ(r.chips[0].busBusyNs, 0);
  EXPECT_EQ(r.chips[0].hyperTransportBusyNs, 312);
  EXPECT_EQ(r.chips[1].hyperTransportBusyNs, 312);

  const auto pair = ig({{comm(Opcode::Send, 1, 9, 1000)}, {comm(Opcode::Recv, 0, 9, 1000)}});
  EXPECT_EQ(profile(2, intended(16, 1), {pair}).totalNs, 391);  // one core per chip
  EXPECT_EQ(profile(2, pimcompNn(), {pair}).totalNs, 79);       // both on chip 0
}

// 33 elements x 16 bit = 528 bits, 512 per 10 ns step: 2 steps = 20 ns; 32 elements: 10 ns.
//   VRELU 33 POST: time 20, VEC 20.       VVADD 32 MAIN-A: time 30 (no VEC share).
//   VVADD 64 MAIN: costs nothing.         VVADD 33 MAIN-C: time 50, VEC 40.
//   VTANH 1 (stage Other): time 60.      LLDI 100 (200 B, ceil(200 / 25.6) = 8): time 68, VEC 48.
//   LMV 100: 2 x 8 = 16: time 84, VEC 64.
TEST_P(CrossbarModes, VectorOpsRoundUpToWholeSteps) {
  const auto r = profile(1, params(),
                         {ig({{op(Opcode::Vrelu, 33, Stage::Post), op(Opcode::Vvadd, 32, Stage::MainA),
                               op(Opcode::Vvadd, 64, Stage::Main), op(Opcode::Vvadd, 33, Stage::MainC),
                               op(Opcode::Vtanh, 1), op(Opcode::Lldi, 100), op(Opcode::Lmv, 100)}})});
  EXPECT_EQ(r.totalNs, 84);
  EXPECT_EQ(r.cores[0].vectorNs, 64);
  EXPECT_EQ(r.cores[0].vfuBusyNs, 20 + 10 + 20 + 20 + 10);
  EXPECT_EQ(r.cores[0].copyBusyNs, 24);
  EXPECT_EQ(r.counts.vvadd, 3);
  EXPECT_EQ(r.counts.otherVector, 2);
  EXPECT_EQ(r.counts.copy, 2);
  EXPECT_EQ(profile(1, params(), {ig({{op(Opcode::Vsigmoid, 33)}})}).totalNs, 20);
}

// Two cores each LD 640 elements (1,280 B = 20 ns) at 0, then MVMUL. Same chip: core 0 gets [0, 20), core 1
// [20, 40) (latency 40, waits 40), so the MVMULs start at 20 and 40. Separate chips: both at 20.
TEST(CrossbarProfiler, LoadsContendForTheChipGlobalMemory) {
  const auto program = ig({{op(Opcode::Ld, 640), mvm(0)}, {op(Opcode::Ld, 640), mvm(1, 5)}});
  const auto shared = profile(2, pimcompNn(), {program});
  EXPECT_EQ(shared.cores[0].endNs, 20 + 800);
  EXPECT_EQ(shared.cores[1].endNs, 40 + 800);
  EXPECT_EQ(shared.cores[1].memoryNs, 40);
  EXPECT_EQ(shared.nodes[5].firstStartNs, 40);
  EXPECT_EQ(shared.chips[0].globalMemoryBusyNs, 40);
  const auto split = profile(2, intended(16, 1), {program});
  EXPECT_EQ(split.cores[0].endNs, 20 + 4000);
  EXPECT_EQ(split.cores[1].endNs, 20 + 4000);
  EXPECT_EQ(profile(2, intended(16, 2), {program}).cores[1].endNs, 40 + 4000);
}

// Core 0: LD 320 (node 0: [0, 10), memory 10), MVMUL (node 1: [10, 10 + L]), VVADD 32 POST (node 2: 10 ns,
// [10 + L, 20 + L]), SEND 100 (node 2). Core 1: RECV (node 4, at 0: sync 20 + L, transfer 8, ends 28 + L),
// VRELU 32 POST (node 4: 10 ns, ends 38 + L). Node 3 has nothing.
TEST_P(CrossbarModes, AttributesTimeToNodes) {
  const auto r = profile(2, params(),
                         {ig({{op(Opcode::Ld, 320, Stage::Other, 0), mvm(0, 1),
                               op(Opcode::Vvadd, 32, Stage::Post, 2), comm(Opcode::Send, 1, 3, 100, 2)},
                              {comm(Opcode::Recv, 0, 3, 100, 4), op(Opcode::Vrelu, 32, Stage::Post, 4)}})});
  ASSERT_EQ(r.nodes.size(), 5u);
  EXPECT_EQ(r.nodes[0].memoryNs, 10);
  EXPECT_EQ(r.nodes[0].lastFinishNs, 10);
  EXPECT_EQ(r.nodes[1].mvmNs, L());
  EXPECT_EQ(r.nodes[1].firstStartNs, 10);
  EXPECT_EQ(r.nodes[2].vectorNs, 10);
  EXPECT_EQ(r.nodes[2].commNs, 8);
  EXPECT_EQ(r.nodes[2].counts.vvadd, 1);
  EXPECT_EQ(r.nodes[2].counts.communication, 1);
  EXPECT_EQ(r.nodes[2].firstStartNs, 10 + L());
  EXPECT_EQ(r.nodes[2].lastFinishNs, 28 + L());
  EXPECT_EQ(r.nodes[3].firstStartNs, -1);
  EXPECT_EQ(r.nodes[3].counts.mvmul + r.nodes[3].counts.communication, 0);
  EXPECT_EQ(r.nodes[4].commNs, 28 + L());
  EXPECT_EQ(r.nodes[4].firstStartNs, 0);
  EXPECT_EQ(r.nodes[4].lastFinishNs, 38 + L());
  std::int64_t nodeSum = 0, coreSum = 0;
  for (const auto& n : r.nodes) nodeSum += n.mvmNs + n.vectorNs + n.memoryNs + n.commNs;
  for (const auto& c : r.cores)
    coreSum += c.mvmNs + c.vectorNs + c.memoryNs + c.commSyncNs + c.commTransferNs;
  EXPECT_EQ(nodeSum, coreSum);
}

// Reservations outlive IGs: core 1 idles through IG 0 (time 0) while core 0 takes global memory [0, 20); its
// LD at 0 in IG 1 gets [20, 40), a latency of 40. (The table may only forget what precedes every core's
// time.)
TEST(CrossbarProfiler, ALateCoreSeesEarlierReservations) {
  const auto r = profile(2, pimcompNn(),
                         {ig({{op(Opcode::Ld, 640), mvm(0)}, {}}), ig({{mvm(0)}, {op(Opcode::Ld, 640)}})});
  EXPECT_EQ(r.cores[1].endNs, 40);
  EXPECT_EQ(r.cores[0].endNs, 20 + 2 * 800);  // IG 1's first MVMUL: time += L
  EXPECT_EQ(r.chips[0].globalMemoryBusyNs, 40);
}

// A chain over n cores: core 0 VRELU 32 (10 ns) then SEND; core k RECV, VRELU, SEND; the last RECV, VRELU.
// Every core suspends at its RECV before core 1 resumes, so the rest unwinds one transfer at a time (a
// recursion n deep in PIMCOMP-NN): core k sends at t_k = 10 + 18k (8 ns of bus + 10 ns of VRELU per hop), so
// the last core ends at 10 + 18(n - 1), plus 31 ns of HyperTransport per 144-core chip boundary in PIMCOMP-NN
// mode (200 / 6.4 = 31.25).
TEST(CrossbarProfiler, LongSendChainsNeedNoDeepRecursion) {
  const int n = 3000;
  std::vector<std::vector<Instruction>> cores(n);
  for (int k = 0; k < n; ++k) {
    if (k > 0) cores[k].push_back(comm(Opcode::Recv, k - 1, k - 1, 100));
    cores[k].push_back(op(Opcode::Vrelu, 32));
    if (k + 1 < n) cores[k].push_back(comm(Opcode::Send, k + 1, k, 100));
  }
  const auto program = ig(cores);
  EXPECT_EQ(profile(n, intended(16, n), {program}).totalNs, 10 + 18 * (n - 1));
  EXPECT_EQ(profile(n, pimcompNn(), {program}).totalNs, 10 + 18 * (n - 1) + 31 * ((n - 1) / 144));
}

TEST(CrossbarProfiler, UnpairedTransfersThrowInsteadOfHanging) {
  Profiler missing(3, pimcompNn());
  EXPECT_TRUE(missing.group(ig({{}, {}})));
  try {
    missing.group(ig({{}, {mvm(0), comm(Opcode::Send, 2, 41, 8)}, {comm(Opcode::Recv, 1, 40, 8)}}));
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("IG 1"), std::string::npos) << what;
    EXPECT_NE(what.find("core 1"), std::string::npos) << what;
    EXPECT_NE(what.find("41"), std::string::npos) << what;
  }
  // Each core waits for the other's second transfer first: a deadlock, reported the same way.
  Profiler deadlock(2, pimcompNn());
  EXPECT_THROW(deadlock.group(ig({{comm(Opcode::Send, 1, 1, 8), comm(Opcode::Recv, 1, 2, 8)},
                                  {comm(Opcode::Send, 0, 2, 8), comm(Opcode::Recv, 0, 1, 8)}})),
               std::invalid_argument);
  Profiler tooMany(1, pimcompNn());
  EXPECT_THROW(tooMany.group(ig({{}, {}})), std::invalid_argument);
  Profiler noAg(1, pimcompNn());
  EXPECT_THROW(noAg.group(ig({{mvm(-1)}})), std::invalid_argument);
}

// The interval table must grant exactly what PIMCOMP-NN's per-ns boolean table grants.
TEST(CrossbarReservation, MatchesAPerNanosecondTable) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 200; ++trial) {
    ReservationTable table;
    std::vector<bool> flags(4096, false);
    for (int request = 0; request < 60; ++request) {
      const std::int64_t t = std::uniform_int_distribution<std::int64_t>(0, 300)(rng);
      const std::int64_t ns = std::uniform_int_distribution<std::int64_t>(0, 25)(rng);
      std::int64_t needed = ns, forward = 0;  // PIMCOMP-NN's CheckBusBandwidth
      while (needed > 0) {
        if (!flags[std::size_t(t + forward)]) {
          flags[std::size_t(t + forward)] = true;
          --needed;
        }
        ++forward;
      }
      ASSERT_EQ(table.reserve(t, ns), forward) << "trial " << trial << " request " << request;
    }
    for (std::int64_t ns = 0; ns < 4096; ++ns) ASSERT_EQ(table.busy(ns), bool(flags[std::size_t(ns)]));
  }
  ReservationTable merged;
  merged.reserve(0, 10);
  merged.reserve(20, 10);
  EXPECT_EQ(merged.reserve(5, 15), 30);  // fills [10, 20) and [30, 35): the last ns is 34
  EXPECT_EQ(merged.fragments(), 1u);
  merged.forgetBefore(100);
  EXPECT_EQ(merged.fragments(), 0u);
}

// One core, one chip, a 1,000 ns run at leakage 0.1, reference PIMMU (scale 1):
//   PIMMU: 32 activations x 800 ns / 64 = 400 ns busy: 1221.76 x 400 + 0.1 x 1221.76 x 600 = 562,009.6 mW ns
//   VFU 100 ns: 22.8 x 100 + 0.1 x 22.8 x 900 = 4,332     local memory 50 + 50 ns: 18 x 100 + 1.8 x 900 =
//   3,420 control (busy to the core's end, 1,000): 8,000       router (1 for 1 core), idle: 4.313 x 1000 =
//   4,313 global memory 50 ns: 257.72 x 50 + 25.772 x 950 = 37,369.4      HyperTransport: single chip, none
//   total 619,444 mW ns = 619.444 nJ.
TEST(CrossbarEnergy, HandComputedSingleCore) {
  ProfileResult r;
  r.totalNs = 1000;
  r.mvmLatencyNs = 800;
  r.coresPerChip = 144;
  CoreProfile c;
  c.endNs = 1000;
  c.crossbarActivations = 32;
  c.vfuBusyNs = 100;
  c.copyBusyNs = 50;
  c.loadStoreBusyNs = 50;
  r.cores = {c};
  ChipProfile chip;
  chip.globalMemoryBusyNs = 50;
  r.chips = {chip};
  const EnergyBreakdown e = estimateEnergy(r, PimmuShape{});
  EXPECT_NEAR(e.pimmuNj, 562.0096, 1e-9);
  EXPECT_NEAR(e.vfuNj, 4.332, 1e-9);
  EXPECT_NEAR(e.localMemoryNj, 3.42, 1e-9);
  EXPECT_NEAR(e.controlUnitNj, 8.0, 1e-9);
  EXPECT_NEAR(e.routerNj, 4.313, 1e-9);
  EXPECT_NEAR(e.globalMemoryNj, 37.3694, 1e-9);
  EXPECT_EQ(e.hyperTransportNj, 0.0);
  EXPECT_NEAR(e.totalNj, 619.444, 1e-9);
  EXPECT_NEAR(e.busyNj, (488704 + 2280 + 1800 + 8000 + 12886) * 1e-3, 1e-9);
  EXPECT_EQ(dac23TableI().source, "dac23 Table I");
  EnergyParams bad;
  bad.leakageFraction = 1.5;
  EXPECT_THROW(estimateEnergy(r, PimmuShape{}, bad), std::invalid_argument);
}

TEST(CrossbarEnergy, PimmuScalesWithPhysicalCells) {
  const PimmuShape reference;
  EXPECT_DOUBLE_EQ(pimmuPowerScale(reference, reference), 1.0);
  EXPECT_DOUBLE_EQ(pimmuPowerScale(PimmuShape{128, 128, 128, 16, 2}, reference), 2.0);
  EXPECT_DOUBLE_EQ(pimmuPowerScale(PimmuShape{64, 256, 256, 16, 2}, reference), 4.0);
  EXPECT_DOUBLE_EQ(pimmuPowerScale(PimmuShape{64, 128, 128, 16, 1}, reference), 2.0);
  EXPECT_DOUBLE_EQ(pimmuPowerScale(PimmuShape{1, 512, 1024, 16, 2}, reference), 0.5);
}

// A 2-chip profile (1 core per chip) of the HyperTransport transfer above: 391 ns, 312 ns of HT on each chip,
// 79 ns of bus on chip 1, no MVMUL. HyperTransport: 2 x (10400 x 312 + 1040 x 79) mW ns = 2 x 3,326.96 nJ.
TEST(CrossbarEnergy, TwoChipsChargeHyperTransport) {
  const auto r =
      profile(2, intended(16, 1), {ig({{comm(Opcode::Send, 1, 9, 1000)}, {comm(Opcode::Recv, 0, 9, 1000)}})});
  const EnergyBreakdown e = estimateEnergy(r, PimmuShape{});
  EXPECT_NEAR(e.hyperTransportNj, 2 * 3326.96, 1e-6);
  EXPECT_NEAR(e.routerNj, (43.13 * 79 + 4.313 * (391 - 79) + 4.313 * 391) * 1e-3, 1e-9);
  EXPECT_NEAR(e.pimmuNj, 2 * 122.176 * 391 * 1e-3, 1e-9);  // idle only
  EXPECT_NEAR(e.totalNj,
              e.pimmuNj + e.vfuNj + e.localMemoryNj + e.controlUnitNj + e.routerNj + e.globalMemoryNj +
                  e.hyperTransportNj,
              1e-9);
}
