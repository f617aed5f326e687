// SPDX-License-Identifier: Apache-2.0
// The UPMEM host plan (sim/dpu/host_plan.h, issue 18 item 2): transfers padded per rank, ranks concurrent
// under the aggregate ceiling, serial calls, launches that fold identical DPUs and end with the slowest, host
// work in its phase. Expected values are derived in the comments from upmem.md's rates (DPU cycles at 350
// MHz).
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/dpu/dpu_engine.h"
#include "sim/dpu/host_plan.h"

namespace pim::sim::dpu {
namespace {

constexpr double kCyclesPerNs = 0.35;

HostPlan twoRanksOfFour() {
  HostPlan p;
  p.dpus = 8;
  p.dpusPerRank = 4;
  return p;
}

double phase(const PlanRun& r, UpmemPhase p) { return r.cycles[static_cast<std::size_t>(p)]; }

TEST(DpuHostPlan, AParallelTransferPadsEachRankToItsLargestShare) {
  HostPlan p = twoRanksOfFour();
  // Rank 0's four DPUs take 1,000, 1,000, 1,000 and 996 B: one length per rank, 1,000 B each (the last is
  // padded); rank 1 is not addressed. Four DPUs take at most 4 x 1.16 GB/s (the one-DPU rate), below the
  // rank's 6.68: 16,200 ns of setup + 4,000 B / 4.64 GB/s = 862.07 ns.
  p.steps.push_back({HostStep::Kind::Parallel, true, {1000, 1000, 1000, 996}, {}, {}, 0, UpmemPhase::Host});
  const PlanRun r = simulatePlan({}, {}, p);
  EXPECT_NEAR(phase(r, UpmemPhase::CpuToDpu), (16200 + 4000 / 4.64) * kCyclesPerNs, 1e-6);
  EXPECT_EQ(r.perDpu[3].hostBytesIn, 1000);
  EXPECT_EQ(r.perDpu[4].hostBytesIn, 0);
}

TEST(DpuHostPlan, RanksTransferConcurrentlyUnderTheAggregateCeiling) {
  HostPlan p = twoRanksOfFour();
  // Each rank moves 4 x 2,048 B at 4 x 1.16 = 4.64 GB/s (its four DPUs' one-DPU rate, below the rank's
  // 6.68), the two at once (16,384 B at the 46.2 GB/s ceiling would take 354.6 ns). Reading back: 8,192 B at
  // 4 x 0.24 = 0.96 GB/s per rank (below 4.74), after 20,100 ns of setup.
  p.steps.push_back(
      {HostStep::Kind::Parallel, true, std::vector<std::int64_t>(8, 2048), {}, {}, 0, UpmemPhase::Host});
  p.steps.push_back(
      {HostStep::Kind::Parallel, false, std::vector<std::int64_t>(8, 2048), {}, {}, 0, UpmemPhase::Host});
  const PlanRun r = simulatePlan({}, {}, p);
  EXPECT_NEAR(phase(r, UpmemPhase::CpuToDpu), (16200 + 8192 / 4.64) * kCyclesPerNs, 1e-6);
  EXPECT_NEAR(phase(r, UpmemPhase::DpuToCpu), (20100 + 8192 / 0.96) * kCyclesPerNs, 1e-6);
  // With 64 DPUs per rank and 40 ranks, the ceiling binds: 2,560 x 2,048 B / 46.2 GB/s = 113,484 ns, where a
  // rank alone takes 131,072 B / 6.68 GB/s = 19,621 ns.
  HostPlan full;
  full.dpus = 2560;
  full.steps.push_back(
      {HostStep::Kind::Parallel, true, std::vector<std::int64_t>(2560, 2048), {}, {}, 0, UpmemPhase::Host});
  EXPECT_NEAR(phase(simulatePlan({}, {}, full), UpmemPhase::CpuToDpu),
              (16200 + 2560.0 * 2048 / 46.2) * kCyclesPerNs, 1e-6);
}

TEST(DpuHostPlan, BroadcastAndSerialTransfers) {
  HostPlan p = twoRanksOfFour();
  // A 100-B buffer (104 with alignment) to all 8 DPUs: 416 B per rank at 4 x 1.16 GB/s (below 16.88).
  p.steps.push_back(
      {HostStep::Kind::Broadcast, true, std::vector<std::int64_t>(8, 100), {}, {}, 0, UpmemPhase::Host});
  // Two DPUs read back 16 B each, one call each: 2 x (20,100 + 16 / 0.24) ns.
  p.steps.push_back({HostStep::Kind::Serial, false, {16, 0, 16}, {}, {}, 0, UpmemPhase::Host});
  const PlanRun r = simulatePlan({}, {}, p);
  EXPECT_NEAR(phase(r, UpmemPhase::CpuToDpu), (16200 + 416 / 4.64) * kCyclesPerNs, 1e-6);
  EXPECT_NEAR(phase(r, UpmemPhase::DpuToCpu), 2 * (20100 + 16 / 0.24) * kCyclesPerNs, 1e-6);
  EXPECT_EQ(r.perDpu[7].hostBytesIn, 104);
  EXPECT_EQ(r.perDpu[2].hostBytesOut, 16);
  EXPECT_EQ(r.perDpu[1].hostBytesOut, 0);
}

TEST(DpuHostPlan, ALaunchFoldsIdenticalDpusAndEndsWithTheSlowest) {
  HostPlan p = twoRanksOfFour();
  const DpuKernel shortK{{{Step::issue(10)}}};                   // 110 cycles
  const DpuKernel longK{{{Step::issue(20)}, {Step::issue(5)}}};  // 20 x 11 = 220 cycles
  HostStep launch{HostStep::Kind::Launch, true, {}, {shortK, longK}, {0, 0, -1, 1, 0}, 0, UpmemPhase::Host};
  p.steps.push_back(launch);
  p.steps.push_back({HostStep::Kind::HostWork, true, {}, {}, {}, 1000, UpmemPhase::Host});
  const PlanRun r = simulatePlan({}, {}, p);
  // 0.066011 ms of launch overhead, then the slowest DPU's 220 cycles; two distinct kernels simulated.
  EXPECT_NEAR(phase(r, UpmemPhase::DpuKernel), 66011 * kCyclesPerNs + 220, 1e-6);
  EXPECT_EQ(r.distinctKernels, 2);
  EXPECT_EQ(r.launches, 1);
  EXPECT_DOUBLE_EQ(r.perDpu[0].kernelCycles, 110);
  EXPECT_DOUBLE_EQ(r.perDpu[2].kernelCycles, 0);  // idle
  EXPECT_DOUBLE_EQ(r.perDpu[3].kernelCycles, 220);
  EXPECT_EQ(r.perDpu[3].instructions, 25);
  EXPECT_DOUBLE_EQ(r.perDpu[4].kernelCycles, 110);  // rank 1's DPU, folded with DPU 0
  EXPECT_NEAR(phase(r, UpmemPhase::Host), 350, 1e-9);
  EXPECT_NEAR(r.totalCycles(), 66011 * kCyclesPerNs + 220 + 350, 1e-6);
}

TEST(DpuHostPlan, RefusesStepsBeyondItsDpus) {
  HostPlan p = twoRanksOfFour();
  p.steps.push_back(
      {HostStep::Kind::Parallel, true, std::vector<std::int64_t>(9, 8), {}, {}, 0, UpmemPhase::Host});
  EXPECT_THROW(simulatePlan({}, {}, p), std::invalid_argument);
  HostPlan none;
  none.dpus = 0;
  EXPECT_THROW(simulatePlan({}, {}, none), std::invalid_argument);
  // A DPU kernel the engine refuses is reported with the step it is in.
  HostPlan bad = twoRanksOfFour();
  bad.steps.push_back(
      {HostStep::Kind::Launch, true, {}, {DpuKernel{{{Step::mramRead(12)}}}}, {0}, 0, UpmemPhase::Host});
  try {
    simulatePlan({}, {}, bad);
    ADD_FAILURE() << "a 12-B DMA was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(
        e.what(),
        "host plan step 1: DPU kernel: a DMA of 12 B; the SDK allows multiples of 8 from 8 to 2,048 B");
  }
}

}  // namespace
}  // namespace pim::sim::dpu
