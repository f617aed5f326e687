// SPDX-License-Identifier: Apache-2.0
// Draft evaluation speed: one draft per kernel (lowering + bank-level simulation), and the time to label
// every pruned draft of a kernel by simulation (what exhaustive search and the Table-4 evaluation pay).
#include <benchmark/benchmark.h>

#include "engine/common/error.h"
#include "engine/kernel/library.h"
#include "engine/search/baselines.h"
#include "engine/search/evaluate.h"
#include "engine/target/dram_pim/vendor.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

struct Case {
  const char* backend;
  const char* kernel;
  const char* dims;
};

constexpr Case kCases[] = {
    {"hbm-pim", "gemv", "b=1,out=4096,in=4096"},
    {"hbm-pim", "red", "b=1,n=4096"},
    {"hbm-pim", "va", "b=4,n=8192"},
    {"attacc", "gemv", "b=4,out=4096,in=4096"},
    {"attacc", "attn", "b=1,h=32,l=2048,d=128"},
    {"hbm2-pim", "gemv", "b=1,out=4096,in=4096"},
    {"gddr6-aim", "gemv", "b=1,out=4096,in=4096"},
};

std::unique_ptr<Problem> make(const Case& c) {
  const Kernel k = KernelLibrary::builtin().get(c.kernel);
  return std::make_unique<Problem>(builtinBackends().get(c.backend), k, parseShape(k, c.dims));
}

std::vector<Draft> kept(const Problem& p) {
  std::vector<Draft> out;
  targetOf(p.backend()).candidates(p)->forEachKept([&](const Draft& d) {
    out.push_back(d);
    return true;
  });
  return out;
}

// One representative draft: the vendor tiling when there is one, else the middle kept draft.
void BM_EvaluateDraft(benchmark::State& state) {
  const Case& c = kCases[state.range(0)];
  const auto p = make(c);
  const auto all = kept(*p);
  Draft d = vendorTilingDraft(*p).value_or(all[all.size() / 2]);
  EvalOptions o;
  o.keepUnitStats = false;
  Evaluation e;
  for (auto _ : state) e = evaluateDraft(*p, d, o);
  state.SetLabel(std::string(c.backend) + " " + c.kernel + "[" + c.dims + "] " + p->space().label(d));
  state.counters["sim_cycles"] = static_cast<double>(e.totalCycles);
  state.counters["commands"] = static_cast<double>(e.commands);
}
BENCHMARK(BM_EvaluateDraft)->DenseRange(0, 6)->Unit(benchmark::kMillisecond);

struct LabelCount {
  std::size_t sampled = 0, infeasible = 0, bounded = 0;
};

// Simulates every `stride`-th draft once; infeasible drafts (tiles beyond the banks) are counted, not timed
// apart. With `branchAndBound`, as `evaluate` labels: a channel-run cache, and each draft stops once it is
// slower than the fastest so far (seeded with the vendor tiling where there is one, as evaluate seeds it with
// the predictor's pick).
LabelCount labelEvery(const Problem& p, const std::vector<Draft>& all, std::size_t stride,
                      bool branchAndBound) {
  EvalOptions o;
  o.keepUnitStats = false;
  sim::ChannelRunCache cache;
  if (branchAndBound) {
    o.cache = &cache;
    if (const auto v = vendorTilingDraft(p)) o.stopAfterCycles = evaluateDraft(p, *v, o).totalCycles;
  }
  LabelCount n;
  for (std::size_t i = 0; i < all.size(); i += stride, ++n.sampled) {
    try {
      const Evaluation e = evaluateDraft(p, all[i], o);
      if (e.lowerBound) ++n.bounded;
      if (branchAndBound && !e.lowerBound && (o.stopAfterCycles == 0 || e.totalCycles < o.stopAfterCycles))
        o.stopAfterCycles = e.totalCycles;
    } catch (const InputError&) {
      ++n.infeasible;
    }
  }
  return n;
}

void labellingBenchmark(benchmark::State& state, const Case& c, std::size_t stride,
                        bool branchAndBound = false) {
  const auto p = make(c);
  const auto all = kept(*p);
  LabelCount n;
  for (auto _ : state) n = labelEvery(*p, all, stride, branchAndBound);
  state.SetLabel(std::string(c.backend) + " " + c.kernel + "[" + c.dims + "]");
  state.counters["drafts"] = static_cast<double>(all.size());
  state.counters["simulated"] = static_cast<double>(n.sampled);
  state.counters["infeasible"] = static_cast<double>(n.infeasible);
  if (branchAndBound) state.counters["bounded"] = static_cast<double>(n.bounded);
  state.counters["ms_per_draft"] =
      benchmark::Counter(static_cast<double>(n.sampled) / 1e3,
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Every pruned draft of a kernel, simulated once.
constexpr Case kLabelCases[] = {
    {"hbm-pim", "red", "b=1,n=4096"},
    {"hbm-pim", "va", "b=1,n=4096"},
    {"attacc", "red", "b=1,n=4096"},
    {"gddr6-aim", "red", "b=1,n=4096"},
    {"gddr6-aim", "gemv", "b=1,out=512,in=512"},
    {"hbm2-pim", "relu", "b=1,n=8192"},
};
void BM_LabelEveryPrunedDraft(benchmark::State& state) {
  labellingBenchmark(state, kLabelCases[state.range(0)], 1);
}
BENCHMARK(BM_LabelEveryPrunedDraft)->DenseRange(0, 5)->Unit(benchmark::kSecond)->Iterations(1);

// Every 500th pruned draft of the large spaces (ATTN, GEMV 4096^2), whose full labelling takes hours: the
// per-draft cost that decides whether Table 4 can label them all.
constexpr Case kSampledCases[] = {
    {"attacc", "attn", "b=1,h=32,l=128,d=128"},  {"attacc", "attn", "b=1,h=32,l=2048,d=128"},
    {"attacc", "attn", "b=4,h=64,l=4096,d=128"}, {"attacc", "gemv", "b=1,out=4096,in=4096"},
    {"hbm-pim", "gemv", "b=1,out=4096,in=4096"},
};
void BM_LabelSampledDrafts(benchmark::State& state) {
  labellingBenchmark(state, kSampledCases[state.range(0)], 500);
}
BENCHMARK(BM_LabelSampledDrafts)->DenseRange(0, 4)->Unit(benchmark::kSecond)->Iterations(1);

// The same samples labelled by branch and bound, as `evaluate` does by default.
void BM_LabelSampledDraftsBranchAndBound(benchmark::State& state) {
  labellingBenchmark(state, kSampledCases[state.range(0)], 500, true);
}
BENCHMARK(BM_LabelSampledDraftsBranchAndBound)->DenseRange(0, 4)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace pim
