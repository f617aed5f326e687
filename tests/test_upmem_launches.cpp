// SPDX-License-Identifier: Apache-2.0
// Launches and inter-DPU exchanges (engine/codegen/upmem_launches.h): DPUs cannot read each other's MRAM, so
// a statement reading what another DPU wrote starts a new launch after the host moves the data. PrIM's MLP
// (datasets/kernels/prim_mlp.pim) is the case: each layer reads the whole output of the layer before.
#include <gtest/gtest.h>

#include "engine/codegen/upmem_codegen.h"
#include "engine/codegen/upmem_launches.h"
#include "engine/kernel/dsl.h"
#include "engine/search/evaluate.h"
#include "engine/target/upmem/upmem_params.h"
#include "tests/test_util.h"

namespace {

using namespace pim;
using sim::dpu::HostStep;

std::unique_ptr<Problem> mlp(const std::string& dims) {
  const Kernel k = loadKernelFile(std::string(PIMSCOPE_DATA_DIR) + "/kernels/prim_mlp.pim");
  return std::make_unique<Problem>(builtinBackends().get("upmem"), k, parseShape(k, dims));
}

// `units` DPUs (within one rank) on the layers' output rows (the first dimension set: o and i joined).
Draft overRows(const Problem& p, int units) {
  std::vector<PartChoice> parts(static_cast<std::size_t>(p.space().partCount()));
  for (std::size_t s = 0; s < parts.size(); ++s)
    if (p.space().sets().sets[s].dims.size() > 1 && p.space().sets().sets[s].candidates.front().extent > 1) {
      parts[s].cores = units;
      break;
    }
  return p.space().draft(p.space().idOf(parts));
}

// Four DPUs, 256 rows each: a layer's GEMV and ReLU stay on their DPU (the ReLU reads the rows the GEMV
// wrote there), the next GEMV reads every row: three launches, a1 and a2 moved in between.
TEST(UpmemLaunches, EachMlpLayerReadsThePreviousLayerThroughTheHost) {
  const auto p = mlp("b=1,n=1024");
  const Draft d = overRows(*p, 4);
  const std::vector<LaunchGroup> g = launchGroups(p->kernel(), UpmemCores(p->space(), d));
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].first, 0u);
  EXPECT_EQ(g[0].last, 2u);
  EXPECT_TRUE(g[0].exchanged.empty());
  EXPECT_EQ(g[1].first, 2u);
  EXPECT_EQ(g[1].last, 4u);
  EXPECT_EQ(g[1].exchanged, std::vector<int>{p->kernel().tensorIndex("a1")});
  EXPECT_EQ(g[2].exchanged, std::vector<int>{p->kernel().tensorIndex("a2")});

  // The plan: x broadcast (every DPU reads it whole), a launch; a1 read back (256 int32 = 1,024 B from each
  // DPU) and broadcast (4,096 B), a launch; the same for a2; y read back (1,024 B each).
  const UpmemProgram prog = lowerUpmem(*p, d, upmemParams(p->backend()).codegen);
  std::vector<std::pair<HostStep::Kind, bool>> kinds;
  for (const HostStep& s : prog.plan.steps) kinds.emplace_back(s.kind, s.exchange);
  using K = HostStep::Kind;
  const std::vector<std::pair<K, bool>> expected = {
      {K::Broadcast, false}, {K::Launch, false}, {K::Parallel, true},
      {K::Broadcast, true},  {K::Launch, false}, {K::Parallel, true},
      {K::Broadcast, true},  {K::Launch, false}, {K::Parallel, false}};
  EXPECT_EQ(kinds, expected);
  EXPECT_EQ(prog.plan.steps[2].bytesPerDpu[0], 1024);
  EXPECT_EQ(prog.plan.steps[3].bytesPerDpu[0], 4096);
  EXPECT_EQ(prog.kernelLoops.size(), 3u);

  // The moves are inter-DPU time; three launches.
  const Evaluation e = evaluateDraft(*p, d);
  const auto& subs = targetOf(p->backend()).subPhases();
  for (std::size_t i = 0; i < subs.size(); ++i)
    if (subs[i].key == "inter_dpu") {
      EXPECT_GT(e.subCycles[i], 0);
    }
  for (const auto& [key, value] : e.facts) {
    if (key == "launches") {
      EXPECT_EQ(value, 3);
    }
  }
}

// On one DPU every read is local: one launch, no exchange.
TEST(UpmemLaunches, OneDpuRunsTheWholeMlpInOneLaunch) {
  const auto p = mlp("b=1,n=256");
  const Draft d = p->space().draft(0);
  const std::vector<LaunchGroup> g = launchGroups(p->kernel(), UpmemCores(p->space(), d));
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].last, 6u);
  const Evaluation e = evaluateDraft(*p, d);
  for (const auto& [key, value] : e.facts) {
    if (key == "launches") {
      EXPECT_EQ(value, 1);
    }
  }
}

// A single-statement kernel is one launch whatever its draft.
TEST(UpmemLaunches, OneStatementIsOneLaunch) {
  const Kernel k = retyped(KernelLibrary::builtin().get("gemv"), DType::I32);
  const Problem p(builtinBackends().get("upmem"), k, parseShape(k, "b=1,out=256,in=512"));
  for (std::uint64_t id : {0ull, 100ull, 5000ull}) {
    const auto g = launchGroups(k, UpmemCores(p.space(), p.space().draft(id)));
    EXPECT_EQ(g.size(), 1u) << id;
  }
}

}  // namespace
