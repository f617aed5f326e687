// SPDX-License-Identifier: Apache-2.0
// Data through global memory in order (sim/crossbar/xbar_profiler_memory.cpp; Instruction::globalWrite): an
// LD that reads what an ST wrote starts once that ST has finished, whichever core wrote it, in this IG or an
// earlier one; the LL schedule with spilling names the write of every LD of spilled data; an in-order core's
// reordering keeps such an LD after its core's last transfer or store. Hand-built
// streams at the intended timing (one 144-core chip): an LD or ST of e elements takes ceil(2e / 64) ns of the
// chip's global memory, a vector op ceil(e / 32) x 10 ns.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "engine/crossbar/compile.h"
#include "engine/crossbar/ht_schedule.h"
#include "engine/crossbar/in_order.h"
#include "engine/crossbar/ll_schedule.h"
#include "engine/kernel/network.h"
#include "sim/crossbar/xbar_profiler.h"
#include "tests/crossbar_instructions.h"

namespace pim::crossbar {
namespace global_order_tests {

using test::op;
using test::profile;
using xbar::Instruction;
using xbar::Opcode;

Instruction global(Opcode code, std::int64_t elements, std::int64_t write) {
  Instruction i = op(code, elements);
  i.globalWrite = write;
  return i;
}

// The writer: VRELU 3,200 [0, 1,000), ST 3,200 [1,000, 1,100) as write 0. The reader: LD 3,200 of write 0,
// VRELU 32 (10 ns). Untracked, the LD would take [0, 100) of the global memory (free then) and the reader
// would end at 110; in order it waits for the ST: [1,100, 1,200), memory time 1,200 (the core waits for
// the preparation), end 1,210. The same whether the reader's core is visited before the writer's (it is
// suspended at the LD until the ST resumes it) or after, and when the write was in an earlier IG.
TEST(CrossbarGlobalOrder, AnLdStartsAfterTheStWhoseDataItReads) {
  const xbar::TimingParams timing = xbar::intended(16, 144);
  const std::vector<Instruction> writer{op(Opcode::Vrelu, 3200), global(Opcode::St, 3200, 0)};
  const std::vector<Instruction> reader{global(Opcode::Ld, 3200, 0), op(Opcode::Vrelu, 32)};
  std::vector<Instruction> untracked = reader;
  untracked[0].globalWrite = -1;
  EXPECT_EQ(profile(2, timing, {writer, untracked}).cores[1].endNs, 110);

  const xbar::ProfileResult after = profile(2, timing, {writer, reader});
  EXPECT_EQ(after.cores[0].endNs, 1100);
  EXPECT_EQ(after.cores[1].endNs, 1210);
  EXPECT_EQ(after.cores[1].memoryNs, 1200);
  const xbar::ProfileResult before = profile(2, timing, {reader, writer});
  EXPECT_EQ(before.cores[0].endNs, 1210);
  EXPECT_EQ(before.cores[1].endNs, 1100);
  const xbar::ProfileResult earlierGroup =
      profile(2, timing, {xbar::InstructionGroup{{{}, writer}}, xbar::InstructionGroup{{reader}}});
  EXPECT_EQ(earlierGroup.cores[0].endNs, 1210);

  xbar::TimingParams inOrder = timing;  // in order the LD starts at max(core time, write done) too
  inOrder.outOfOrder = false;
  EXPECT_EQ(profile(2, inOrder, {reader, writer}).cores[0].endNs, 1210);
}

// Two readers of one write on two cores, both visited before the writer: both resume, in core order.
TEST(CrossbarGlobalOrder, EveryReaderOfAWriteResumes) {
  const std::vector<Instruction> reader{global(Opcode::Ld, 3200, 4), op(Opcode::Vrelu, 32)};
  const xbar::ProfileResult r = profile(
      3, xbar::intended(16, 144), {reader, reader, {op(Opcode::Vrelu, 3200), global(Opcode::St, 3200, 4)}});
  // Core 0's LD [1,100, 1,200), core 1's after it on the one global memory [1,200, 1,300).
  EXPECT_EQ(r.cores[0].endNs, 1210);
  EXPECT_EQ(r.cores[1].endNs, 1310);
}

TEST(CrossbarGlobalOrder, AnLdOfAWriteNoStMakesIsRefusedByName) {
  xbar::Profiler profiler(2, xbar::intended(16, 144));
  const xbar::InstructionGroup g{{{global(Opcode::Ld, 32, 7)}, {global(Opcode::St, 32, 6)}}};
  try {
    profiler.group(g);
    FAIL() << "an LD of write 7 was timed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("global-memory write 7"), std::string::npos) << e.what();
  }
}

// Checks, IG by IG, that every LD naming a write reads one an ST made before it (an earlier IG, another core
// of this IG, or earlier on its own list) and that no write id is made twice; forwards to the profiler.
class OrderCheckingSink : public xbar::IProgramSink {
 public:
  explicit OrderCheckingSink(xbar::IProgramSink& next) : m_next(next) {}
  bool group(const xbar::InstructionGroup& ig) override {
    for (std::size_t core = 0; core < ig.cores.size(); ++core)
      for (std::size_t k = 0; k < ig.cores[core].size(); ++k) {
        const Instruction& i = ig.cores[core][k];
        if (i.op == Opcode::St && i.globalWrite >= 0 &&
            !m_writes.emplace(i.globalWrite, Place{m_groups, core, k}).second)
          ++reusedWrites;
      }
    for (std::size_t core = 0; core < ig.cores.size(); ++core)
      for (std::size_t k = 0; k < ig.cores[core].size(); ++k) {
        const Instruction& i = ig.cores[core][k];
        if (i.op != Opcode::Ld || i.globalWrite < 0) continue;
        ++trackedLoads;
        const auto w = m_writes.find(i.globalWrite);
        if (w == m_writes.end() ||
            (w->second.group == m_groups && w->second.core == core && w->second.index > k))
          ++unorderedLoads;
      }
    ++m_groups;
    return m_next.group(ig);
  }
  std::int64_t trackedLoads = 0, unorderedLoads = 0, reusedWrites = 0;

 private:
  struct Place {
    std::int64_t group;
    std::size_t core, index;
  };
  xbar::IProgramSink& m_next;
  std::map<std::int64_t, Place> m_writes;
  std::int64_t m_groups = 0;
};

// An in-order core moves its input preparation first (in_order.h), but an LD of written data only up to the
// last SEND, RECV or ST before it: past one it could wait for a write that waits for this core.
TEST(CrossbarGlobalOrder, AnInOrderCoreLoadsWrittenDataAfterItsLastTransferOrStore) {
  const Instruction mainCopy = op(Opcode::Lmv, 8, xbar::Stage::Main);
  std::vector<Instruction> list{op(Opcode::Vvadd, 8),
                                test::comm(Opcode::Recv, 1, 0, 8),
                                test::mvm(0),
                                global(Opcode::Ld, 8, 3),
                                mainCopy,
                                global(Opcode::St, 8, 4),
                                op(Opcode::Ld, 8),
                                global(Opcode::Ld, 8, 5),
                                test::comm(Opcode::Send, 1, 1, 8)};
  moveInputPreparationFirst(list);
  const std::vector<std::pair<Opcode, std::int64_t>> expected{
      {Opcode::Lmv, -1},   {Opcode::Ld, -1}, {Opcode::Vvadd, -1}, {Opcode::Recv, -1}, {Opcode::Ld, 3},
      {Opcode::Mvmul, -1}, {Opcode::St, 4},  {Opcode::Ld, 5},     {Opcode::Send, -1}};
  ASSERT_EQ(list.size(), expected.size());
  for (std::size_t k = 0; k < list.size(); ++k) {
    EXPECT_EQ(list[k].op, expected[k].first) << k;
    EXPECT_EQ(list[k].globalWrite, expected[k].second) << k;
  }
}

// Runs `schedule` into the profiler under each execution pattern (in-order cores through their reordering),
// checking the order of data through global memory on the way.
void underEveryPattern(const CompilePlan& plan, const std::function<void(xbar::IProgramSink&)>& schedule) {
  for (const bool outOfOrder : {true, false})
    for (const bool synchronous : {true, false}) {
      SCOPED_TRACE(std::string(outOfOrder ? "out of order" : "in order") +
                   (synchronous ? ", synchronous" : ", asynchronous"));
      xbar::TimingParams timing = xbar::intended(16, 144);
      timing.outOfOrder = outOfOrder;
      timing.synchronous = synchronous;
      xbar::Profiler profiler(static_cast<int>(plan.accelerator.cores()), timing);
      InOrderReorder inOrder(profiler);
      OrderCheckingSink sink(outOfOrder ? static_cast<xbar::IProgramSink&>(profiler) : inOrder);
      schedule(sink);
      EXPECT_GT(sink.trackedLoads, 0);
      EXPECT_EQ(sink.unorderedLoads, 0);
      EXPECT_EQ(sink.reusedWrites, 0);
      const xbar::ProfileResult r = profiler.result();
      EXPECT_GT(r.totalNs, 0);
      EXPECT_LT(r.totalNs, std::int64_t{1} << 40);
    }
}

CompilePlan resnetPlan(const char* network, PipelineMode mode, const char* unfolding) {
  CompileOptions options;
  options.mode = mode;
  options.replication = "balance";
  options.unfolding.all = unfolding;
  return compilePlan(loadNetworkFile(builtinNetworkPath(network)), Accelerator{}, options);
}

// The LL schedule with spilling at the intended timing's 64 kB: ResNet-50 in I,OK2,1 spills pixels and
// scatter accumulators (its profile once overflowed while an LD's wait was counted twice in the MVM rule,
// and deadlocked on in-order cores while their LDs of written data moved first).
TEST(CrossbarGlobalOrder, SpilledDataIsReadAfterItsStore) {
  const CompilePlan plan = resnetPlan("resnet50", PipelineMode::Ll, "I,OK2,1");
  LlOptions ll;
  ll.localMemoryElements = llLocalMemoryElements(plan.accelerator, TimingMode::Intended);
  ll.spillToGlobalMemory = true;
  underEveryPattern(plan, [&](xbar::IProgramSink& sink) {
    const LlScheduleSummary s = scheduleLl(plan, ll, sink);
    EXPECT_TRUE(s.completed);
    EXPECT_GT(s.spilledAccumulators, 0);
  });
}

// The HT schedule's scatter layers add their blocks to sums in global memory (ht_reload.cpp): ResNet-18 in
// I,OK2,1, every LD of a sum after its ST.
TEST(CrossbarGlobalOrder, HtScatterSumsAreReadAfterTheirStore) {
  const CompilePlan plan = resnetPlan("resnet18", PipelineMode::Ht, "I,OK2,1");
  underEveryPattern(plan, [&](xbar::IProgramSink& sink) { EXPECT_FALSE(scheduleHt(plan, sink).cancelled); });
}

}  // namespace global_order_tests
}  // namespace pim::crossbar
