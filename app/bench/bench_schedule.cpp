// SPDX-License-Identifier: Apache-2.0
// Schedule generation and pruning speed on the configurations of DCC Table 3 (attacc), printed next to the
// paper's draft counts and compile times.
//
// Mapping of a Table 3 row onto PIMScope's abstraction: "N PIM devices per GPU" is N HBM3 stacks of 16
// channels, i.e. 16*N PIM groups of 64 bank-level cores; "G GPUs" splits the 32 heads over the GPUs (tensor
// parallelism), so one GPU's PIM devices see 32/G heads. ATTN runs decode attention over 128 input + 128
// output tokens (L = 256, head dimension 128); GEMV is the QKV projection of that layer, out = 32*128/G rows
// of in = 4096.
#include <benchmark/benchmark.h>

#include "engine/core/problem.h"
#include "engine/kernel/library.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

struct Table3Row {
  const char* kernel;
  int devices, batch, gpus;
  double paperDrafts, paperPruned, paperSecondsNoPrune, paperSecondsPrune;
};

constexpr Table3Row kTable3[] = {
    {"attn", 5, 4, 1, 32186, 4274, 9.57, 2.96},   {"attn", 5, 64, 8, 33271, 4868, 16.20, 4.10},
    {"attn", 10, 4, 1, 79952, 6200, 29.90, 4.22}, {"attn", 10, 64, 8, 83708, 7319, 54.51, 6.32},
    {"gemv", 5, 4, 1, 32186, 4274, 19.75, 3.75},  {"gemv", 5, 64, 8, 33271, 4868, 36.86, 5.54},
    {"gemv", 10, 4, 1, 79952, 6200, 57.66, 5.46}, {"gemv", 10, 64, 8, 83708, 7319, 109.92, 9.30},
};

std::unique_ptr<Problem> table3Problem(const Table3Row& row) {
  Backend b = builtinBackends().get("attacc");
  b.setParameter("system.devices", row.devices);
  const Kernel k = KernelLibrary::builtin().get(row.kernel);
  const int heads = 32 / row.gpus;
  const std::string dims =
      std::string(row.kernel) == "attn"
          ? "b=" + std::to_string(row.batch) + ",h=" + std::to_string(heads) + ",l=256,d=128"
          : "b=" + std::to_string(row.batch) + ",out=" + std::to_string(heads * 128) + ",in=4096";
  return std::make_unique<Problem>(b, k, parseShape(k, dims));
}

// One iteration = build the draft space, count what every rule removes, and stream every kept draft.
void BM_Table3GenerateAndPrune(benchmark::State& state) {
  const Table3Row& row = kTable3[state.range(0)];
  const auto problem = table3Problem(row);
  PruneCounts counts;
  for (auto _ : state) {
    DraftSpace space(problem->kernel(), buildDimensionSets(problem->kernel(), problem->shape()),
                     resourcesOf(problem->backend()));
    Pruner pruner(space);
    counts = pruner.counts();
    std::uint64_t streamed = 0;
    pruner.forEachKept([&](const Draft&) {
      ++streamed;
      return true;
    });
    benchmark::DoNotOptimize(streamed);
  }
  state.SetLabel(std::string(row.kernel) + " devices=" + std::to_string(row.devices) +
                 " batch=" + std::to_string(row.batch) + " gpus=" + std::to_string(row.gpus));
  state.counters["groups"] = problem->backend().totalGroups();
  state.counters["generated"] = static_cast<double>(counts.generated);
  state.counters["remaining"] = static_cast<double>(counts.remaining);
  state.counters["paper_generated"] = row.paperDrafts;
  state.counters["paper_remaining"] = row.paperPruned;
  state.counters["paper_s_pruned"] = row.paperSecondsPrune;
  state.counters["kept_per_s"] = benchmark::Counter(static_cast<double>(counts.remaining),
                                                    benchmark::Counter::kIsIterationInvariantRate);
  state.counters["generated_per_s"] = benchmark::Counter(static_cast<double>(counts.generated),
                                                         benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Table3GenerateAndPrune)->DenseRange(0, 7)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pim
