// SPDX-License-Identifier: Apache-2.0
// The labelling sweep (docs/sweep.md), in the parts its scaling model reads: the plan every rank computes
// (serial work each rank repeats), one work unit labelled into a store (the parallel work), and merging a
// shard into the final store (serial work on rank 0, per label).
#include <benchmark/benchmark.h>

#include <filesystem>

#include "engine/common/data_dir.h"
#include "engine/store/store.h"
#include "engine/target/registry.h"
#include "engine/workflow/sweep.h"

namespace {

using namespace pim;

const Suite& quickSuite() {
  static const Suite s = loadSuite(dataDir() + "/suites/quick.json");
  return s;
}

// An empty scratch folder of its own for a benchmark (removed by the caller).
std::filesystem::path scratchDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

SweepOptions oneThread() {
  SweepOptions o;
  o.train.threads = 1;
  return o;
}

void BM_SweepPlanQuickSuite(benchmark::State& st) {
  std::size_t units = 0;
  for (auto _ : st) units = planSweep(builtinBackend("hbm-pim"), quickSuite(), oneThread()).units.size();
  st.counters["units"] = static_cast<double>(units);
}
BENCHMARK(BM_SweepPlanQuickSuite)->Unit(benchmark::kMillisecond);

/// One unit of 256 drafts (the default size) of attn b=4,h=32,l=256,d=128 on attacc, on one thread: the
/// time one rank spends per unit, and so the unit rate rank 0 must serve.
void BM_SweepUnitAttacc(benchmark::State& st) {
  const Suite suite{"attn", {{"attn", {"b=4,h=32,l=256,d=128"}}}};
  const Backend& b = builtinBackend("attacc");
  const SweepOptions o = oneThread();
  const SweepPlan plan = planSweep(b, suite, o);
  std::size_t labelled = 0;
  for (auto _ : st) {
    auto store = ResultsStore::open(":memory:");
    labelled = runSweepUnit(b, suite, plan, {0}, store, o, 0).labelled;
  }
  st.counters["labels_per_s"] = benchmark::Counter(
      static_cast<double>(labelled) * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepUnitAttacc)->Unit(benchmark::kMillisecond);

/// Merging a shard of the quick suite's sample (1,832 labels) into an empty store.
void BM_SweepMergeShard(benchmark::State& st) {
  const auto dir = scratchDir("pimscope-bench-sweep-merge");
  const std::string shardPath = (dir / "shard-0.db").string();
  const SweepOptions o = oneThread();
  const SweepPlan plan = planSweep(builtinBackend("hbm-pim"), quickSuite(), o);
  {
    auto shard = ResultsStore::open(shardPath);
    LocalSweepQueue queue(plan, {});
    runSweepWorker(builtinBackend("hbm-pim"), quickSuite(), plan, queue, shard, o, 0);
  }
  std::int64_t rows = 0;
  for (auto _ : st) {
    st.PauseTiming();
    std::filesystem::remove((dir / "merged.db").string());
    auto merged = ResultsStore::open((dir / "merged.db").string());
    st.ResumeTiming();
    rows = merged.mergeFrom(shardPath).results;
  }
  st.counters["labels"] = static_cast<double>(rows);
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SweepMergeShard)->Unit(benchmark::kMillisecond);

/// Merging an empty shard: the per-shard cost (validation, attach, one transaction) rank 0 pays per rank.
void BM_SweepMergeEmptyShard(benchmark::State& st) {
  const auto dir = scratchDir("pimscope-bench-sweep-empty");
  const std::string shardPath = (dir / "shard-0.db").string();
  ResultsStore::open(shardPath);
  auto merged = ResultsStore::open((dir / "merged.db").string());
  for (auto _ : st) benchmark::DoNotOptimize(merged.mergeFrom(shardPath));
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SweepMergeEmptyShard)->Unit(benchmark::kMillisecond);

}  // namespace
