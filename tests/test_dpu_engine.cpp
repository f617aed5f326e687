// SPDX-License-Identifier: Apache-2.0
// The UPMEM DPU engine (sim/dpu/, issue 18 item 2) on hand-derived cases: the revolver pipeline's 11-cycle
// same-tasklet gap and one issue per cycle, an emulated operation as its instruction count, the single DMA
// queue, and the barrier's cost. Every expected number is derived in the comment beside it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "sim/dpu/dpu_engine.h"
#include "sim/dpu/dpu_ops.h"
#include "sim/dpu/dpu_slice.h"

namespace pim::sim::dpu {
namespace {

DpuKernel same(int tasklets, const TaskletProgram& p) { return {std::vector<TaskletProgram>(tasklets, p)}; }

TEST(DpuEngine, OneTaskletIssuesEveryElevenCycles) {
  // 10 instructions at cycles 0, 11, ..., 99; the tasklet is done when its last one leaves the revolver: 110.
  const DpuRun r = simulateDpu({}, same(1, {Step::issue(10)}));
  EXPECT_DOUBLE_EQ(r.cycles, 110);
  EXPECT_EQ(r.instructions, 10);
  EXPECT_NEAR(r.issueUse(), 10.0 / 110, 1e-12);
}

TEST(DpuEngine, ElevenTaskletsFillThePipeline) {
  // 11 tasklets x 100 instructions: one issue every cycle, 1,100 slots; the last at 1,099, done at 1,110.
  const DpuRun full = simulateDpu({}, same(11, {Step::issue(100)}));
  EXPECT_DOUBLE_EQ(full.cycles, 1110);
  // 16 tasklets cannot go faster than one instruction per cycle: 1,600 slots, done at 1,599 + 11.
  EXPECT_DOUBLE_EQ(simulateDpu({}, same(16, {Step::issue(100)})).cycles, 1610);
  // 4 tasklets leave 7 of every 11 slots empty: each issues every 11 cycles, the last at 3 + 99 x 11 = 1,092.
  EXPECT_DOUBLE_EQ(simulateDpu({}, same(4, {Step::issue(100)})).cycles, 1103);
}

TEST(DpuEngine, LoopsKeepTheirTripCounts) {
  // 3 x (2 + 4 x 1) = 18 instructions on one tasklet: 198 cycles, as a flat run of 18.
  const TaskletProgram nested = {Step::loop(3, {Step::issue(2), Step::loop(4, {Step::issue(1)})})};
  EXPECT_DOUBLE_EQ(simulateDpu({}, same(1, nested)).cycles, 198);
  EXPECT_EQ(simulateDpu({}, same(1, nested)).instructions, 18);
  // A loop of zero trips or an empty body is skipped.
  EXPECT_DOUBLE_EQ(simulateDpu({}, same(1, {Step::loop(0, {Step::issue(5)}), Step::issue(1)})).cycles, 11);
}

TEST(DpuEngine, AnEmulatedOperationSpendsItsInstructionsInIssueSlots) {
  // A float add is 683 cycles on one tasklet (CoMoNM's table): 62 instructions of 11 cycles (682, the table
  // truncates). With 11 tasklets each doing one, 682 issue slots: done at 681 + 11 = 692, not 683.
  EXPECT_DOUBLE_EQ(simulateDpu({}, same(1, {Step::issue(62)})).cycles, 682);
  EXPECT_DOUBLE_EQ(simulateDpu({}, same(11, {Step::issue(62)})).cycles, 692);
}

TEST(DpuEngine, OneDmaQueueServesTheTaskletsInTurn) {
  // Two tasklets each read 2,048 B. Tasklet 0 issues at 0: enters at 0, done at 1,195.1; the queue is busy
  // for 34 + 0.53 x 2,048 = 1,119.44. Tasklet 1 issues at 1 and enters at 1,119.44: done at 2,314.54. One DMA
  // call is one issue slot each.
  const DpuRun r = simulateDpu({}, same(2, {Step::mramRead(2048)}));
  EXPECT_NEAR(r.cycles, 2314.54, 1e-9);
  EXPECT_EQ(r.dmaRequests, 2);
  EXPECT_EQ(r.dmaBytes, 4096);
  EXPECT_EQ(r.instructions, 2);
  EXPECT_NEAR(r.taskletEnd[0], 1195.1, 1e-9);
  // A write takes the store table: 8 B, 55.7 cycles.
  EXPECT_NEAR(simulateDpu({}, same(1, {Step::mramWrite(8)})).cycles, 55.7, 1e-9);
  // A size between entries takes the next larger one: 24 B is priced as 32 B.
  EXPECT_NEAR(simulateDpu({}, same(1, {Step::mramRead(24)})).cycles, 71.4, 1e-9);
  // With the table's service row the second request enters at 1,195.1 (its stand-in at 2,048 B): 2,390.2.
  DpuConfig table;
  table.dma.serviceFromTable = true;
  EXPECT_NEAR(simulateDpu(table, same(2, {Step::mramRead(2048)})).cycles, 2390.2, 1e-9);
}

// upmem.md's calibration points (one DPU, every tasklet issuing its reads back to back). The engine is not
// fitted to them: latency table, contention law and the issue rules give +1.3%, +1.1% and +1.9% (the table's
// service row would give -11.7% on the third). The bound is what the spec's sources allow (CoMoNM's own
// estimates are within 7.8% of the hardware; its code records 6-9% error for 8-B DMAs under contention).
TEST(DpuEngine, DmaCalibrationPoints) {
  auto reads = [](int tasklets, std::int32_t bytes) {
    return simulateDpu({}, same(tasklets, {Step::loop(4, {Step::mramRead(bytes)})})).cycles;
  };
  EXPECT_NEAR(reads(1, 2048) / 4721.31, 1, 0.02);
  EXPECT_NEAR(reads(16, 64) / 4327.56, 1, 0.02);
  EXPECT_NEAR(reads(24, 8) / 3627.63, 1, 0.02);
}

TEST(DpuEngine, AWaitingTaskletLeavesItsSlotsToTheOthers) {
  // Tasklet 0 reads 2,048 B (blocked until 1,195.1); tasklet 1 runs 100 instructions meanwhile, every 11
  // cycles from cycle 1: its last at 1 + 99 x 11 = 1,090, done at 1,101. The DPU is done at 1,195.1.
  const DpuRun r = simulateDpu({}, {{{Step::mramRead(2048)}, {Step::issue(100)}}});
  EXPECT_NEAR(r.cycles, 1195.1, 1e-9);
  EXPECT_DOUBLE_EQ(r.taskletEnd[1], 1101);
}

TEST(DpuEngine, ABarrierReleasesEveryTaskletAtTheLastArrivalPlusItsCost) {
  // Tasklet 0: 10 instructions (0..99), then the barrier call at 110. Tasklet 1: the barrier call at 1. The
  // last arrival is 110; 2 tasklets cost 111.8924 x 2^1.1941. Then one instruction each: tasklet 0 issues at
  // the release (rounded up to the next cycle), tasklet 1 one cycle later, done 11 after that.
  const DpuKernel k{{{Step::issue(10), Step::barrier(), Step::issue(1)}, {Step::barrier(), Step::issue(1)}}};
  const DpuRun r = simulateDpu({}, k);
  const double release = 110 + 111.8924 * std::pow(2.0, 1.1941);
  EXPECT_DOUBLE_EQ(r.cycles, std::ceil(release) + 1 + 11);
  EXPECT_EQ(r.barriers, 1);
  EXPECT_EQ(r.instructions, 14);
}

// PrIM's VA per tasklet (upmem.md, traced loop bodies): per 1,024-B block of 256 int32, 2 reads, 13 + 9 x 256
// instructions, 1 write.
TaskletProgram vaTasklet(std::int64_t blocks) {
  return {Step::issue(20),
          Step::loop(blocks, {Step::mramRead(1024), Step::mramRead(1024), Step::issue(13 + 9 * 256),
                              Step::mramWrite(1024)}),
          Step::issue(5)};
}

TEST(DpuSlice, ExtrapolatesASteadyLoopWithinAlphaAndCountsExactly) {
  const DpuKernel k = same(16, vaTasklet(400));
  const DpuRun full = simulateDpu({}, k);
  const SlicedRun s = simulateDpuSliced({}, k, 0.01);
  ASSERT_TRUE(s.sliced);
  EXPECT_LT(s.sliceTrips, 400);
  EXPECT_NEAR(s.run.cycles / full.cycles, 1, 0.01);
  EXPECT_EQ(s.run.instructions, full.instructions);
  EXPECT_EQ(s.run.dmaRequests, full.dmaRequests);
  EXPECT_EQ(s.run.dmaBytes, full.dmaBytes);
  // Uneven shares (PrIM's last tasklets take one block less) are sliced in proportion.
  DpuKernel uneven = k;
  for (int t = 8; t < 16; ++t) uneven.tasklets[static_cast<std::size_t>(t)] = vaTasklet(399);
  EXPECT_NEAR(simulateDpuSliced({}, uneven, 0.01).run.cycles / simulateDpu({}, uneven).cycles, 1, 0.01);
}

// The figure docs/simulator.md reports: over PrIM-VA-shaped kernels (1 to 24 tasklets, 64-2,048-B blocks, 50
// and 400 blocks per tasklet) the sliced cycles stay within 0.3% of the full simulation.
TEST(DpuSlice, WorstDisagreementOnPrimVaShapes) {
  double worst = 0;
  for (int tasklets : {1, 2, 4, 8, 11, 16, 24})
    for (std::int32_t block : {64, 256, 1024, 2048})
      for (std::int64_t blocks : {50, 400}) {
        const TaskletProgram t = {
            Step::issue(20),
            Step::loop(blocks, {Step::mramRead(block), Step::mramRead(block),
                                Step::issue(13 + 9 * (block / 4)), Step::mramWrite(block)}),
            Step::issue(5)};
        const DpuKernel k = same(tasklets, t);
        const double err = simulateDpuSliced({}, k, 0.01).run.cycles / simulateDpu({}, k).cycles - 1;
        worst = std::max(worst, std::abs(err));
      }
  EXPECT_LT(worst, 0.003);
}

TEST(DpuSlice, LoopsWithABarrierAndOtherShapesAreSimulatedInFull) {
  const DpuKernel withBarrier =
      same(4, {Step::loop(100, {Step::mramRead(256), Step::issue(50), Step::barrier()})});
  EXPECT_EQ(sliceRefusal(withBarrier), "tasklet 0's main loop contains a barrier, a handshake or a mutex");
  const SlicedRun s = simulateDpuSliced({}, withBarrier);
  EXPECT_FALSE(s.sliced);
  EXPECT_DOUBLE_EQ(s.run.cycles, simulateDpu({}, withBarrier).cycles);
  const DpuKernel twoLoops = same(2, {Step::loop(10, {Step::issue(1)}), Step::loop(10, {Step::issue(2)})});
  EXPECT_EQ(sliceRefusal(twoLoops), "tasklet 0 has no single main loop");
  EXPECT_FALSE(simulateDpuSliced({}, twoLoops).sliced);
}

TEST(DpuOps, InstructionCountsFollowCoMoNMsTable) {
  // Cycles / 11, rounded: a 32-bit add is one instruction (10 cycles), an 8/16-bit add two (22), a float add
  // 62 (683), a double divide 2,139 (23,526).
  EXPECT_EQ(instructionsOf(DpuOp::Add, DpuType::Int32), 1);
  EXPECT_EQ(instructionsOf(DpuOp::Add, DpuType::Int8or16), 2);
  EXPECT_EQ(instructionsOf(DpuOp::Add, DpuType::Float), 62);
  EXPECT_EQ(instructionsOf(DpuOp::Div, DpuType::Double), 2139);
  // __mulsi3: 88 cycles at operand 1 (one step: 8 instructions), 99 at 2, 418 at 2^30 (31 steps).
  EXPECT_EQ(instructionsOf(DpuOp::Mul, DpuType::Int32, 1) * 11, 88);
  EXPECT_EQ(instructionsOf(DpuOp::Mul, DpuType::Int32, 2) * 11, 99);
  EXPECT_EQ(instructionsOf(DpuOp::Mul, DpuType::Int32, 31) * 11, 418);
  // On one tasklet the engine then gives the table's cycles back: a float add in 682 (table 683, truncated).
  EXPECT_DOUBLE_EQ(simulateDpu({}, same(1, {Step::issue(instructionsOf(DpuOp::Add, DpuType::Float))})).cycles,
                   682);
}

// Fewer tasklets than the gap, staggered by DMAs of different sizes: each issues every 11 cycles at its own
// slot, and those sparse rounds taken at once give the per-instruction loop's numbers (3 tasklets of 1,000
// instructions after reads of 8, 256 and 2,048 B).
TEST(DpuEngine, SparseRoundsAtOnceChangeNothing) {
  DpuConfig stepwise;
  stepwise.batchRounds = false;
  DpuKernel k;
  for (int bytes : {8, 256, 2048}) k.tasklets.push_back({Step::mramRead(bytes), Step::issue(1000)});
  const DpuRun a = simulateDpu({}, k), b = simulateDpu(stepwise, k);
  EXPECT_DOUBLE_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.taskletEnd, b.taskletEnd);
  EXPECT_EQ(a.instructions, b.instructions);
  EXPECT_EQ(a.instructions, 3003);
}

// Taking full revolver rounds at once is a way to simulate, not a model: on random kernels (1-24 tasklets,
// runs, DMAs, barriers, nested loops) it gives the per-instruction loop's numbers exactly (3,000 trials
// passed when sparse rounds were added, 5,000 when partial rounds were; 200 run here).
TEST(DpuEngine, TakingRoundsAtOnceChangesNothing) {
  std::mt19937 rng(7);
  auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const DpuConfig batched;
  DpuConfig stepwise;
  stepwise.batchRounds = false;
  for (int trial = 0; trial < 200; ++trial) {
    const bool barrier = pick(0, 3) == 0;
    auto body = [&] {
      TaskletProgram b{Step::issue(pick(1, 300))};
      if (pick(0, 1)) b.push_back(Step::mramRead(8 << pick(0, 8)));
      if (barrier) b.push_back(Step::barrier());
      b.push_back(Step::issue(pick(0, 40)));
      if (pick(0, 2) == 0) b.push_back(Step::mramWrite(8 << pick(0, 8)));
      return b;
    };
    const int tasklets = pick(1, 24);
    const TaskletProgram common = body();
    DpuKernel k;
    for (int t = 0; t < tasklets; ++t) {
      // Barriers need the same count on every tasklet; without them, tasklets may differ.
      const TaskletProgram b = barrier || pick(0, 1) ? common : body();
      k.tasklets.push_back({Step::issue(pick(0, 20)), Step::loop(barrier ? 5 : pick(1, 8), b)});
    }
    const DpuRun a = simulateDpu(batched, k), b = simulateDpu(stepwise, k);
    ASSERT_DOUBLE_EQ(a.cycles, b.cycles) << "trial " << trial;
    ASSERT_EQ(a.instructions, b.instructions) << "trial " << trial;
    ASSERT_EQ(a.taskletEnd, b.taskletEnd) << "trial " << trial;
    ASSERT_EQ(a.barriers, b.barriers) << "trial " << trial;
  }
}

TEST(DpuEngine, RefusesWhatTheDpuCannotRun) {
  EXPECT_THROW(simulateDpu({}, DpuKernel{}), std::invalid_argument);
  EXPECT_THROW(simulateDpu({}, same(25, {Step::issue(1)})), std::invalid_argument);
  EXPECT_THROW(simulateDpu({}, same(1, {Step::mramRead(12)})), std::invalid_argument);
  EXPECT_THROW(simulateDpu({}, same(1, {Step::loop(2, {Step::mramWrite(4096)})})), std::invalid_argument);
}

}  // namespace
}  // namespace pim::sim::dpu
