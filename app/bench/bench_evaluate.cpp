// SPDX-License-Identifier: Apache-2.0
// Draft evaluation speed: one draft per kernel (lowering + bank-level simulation), and the time to label
// every pruned draft of a kernel by simulation (what exhaustive search and the Table-4 evaluation pay).
#include <benchmark/benchmark.h>

#include "engine/common/error.h"
#include "engine/kernel/library.h"
#include "engine/search/baselines.h"
#include "engine/search/evaluate.h"

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
  return std::make_unique<Problem>(BackendRegistry::builtin().get(c.backend), k, parseShape(k, c.dims));
}

std::vector<Draft> kept(const Problem& p) {
  std::vector<Draft> out;
  Pruner(p.space()).forEachKept([&](const Draft& d) {
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
  o.keepBanks = false;
  Evaluation e;
  for (auto _ : state) e = evaluateDraft(*p, d, o);
  state.SetLabel(std::string(c.backend) + " " + c.kernel + "[" + c.dims + "] " + p->space().label(d));
  state.counters["sim_cycles"] = static_cast<double>(e.totalCycles);
  state.counters["commands"] = static_cast<double>(e.commands);
}
BENCHMARK(BM_EvaluateDraft)->DenseRange(0, 6)->Unit(benchmark::kMillisecond);

// Every pruned draft of a kernel, simulated once (infeasible drafts are counted separately).
struct LabelCase {
  const char* backend;
  const char* kernel;
  const char* dims;
};
constexpr LabelCase kLabelCases[] = {
    {"hbm-pim", "red", "b=1,n=4096"},
    {"hbm-pim", "va", "b=1,n=4096"},
    {"attacc", "red", "b=1,n=4096"},
    {"gddr6-aim", "red", "b=1,n=4096"},
    {"gddr6-aim", "gemv", "b=1,out=512,in=512"},
    {"hbm2-pim", "relu", "b=1,n=8192"},
};

void BM_LabelEveryPrunedDraft(benchmark::State& state) {
  const LabelCase& c = kLabelCases[state.range(0)];
  const Kernel k = KernelLibrary::builtin().get(c.kernel);
  const Problem p(BackendRegistry::builtin().get(c.backend), k, parseShape(k, c.dims));
  const auto all = kept(p);
  EvalOptions o;
  o.keepBanks = false;
  std::size_t infeasible = 0;
  for (auto _ : state) {
    infeasible = 0;
    for (const Draft& d : all) {
      try {
        benchmark::DoNotOptimize(evaluateDraft(p, d, o).totalCycles);
      } catch (const InputError&) {
        ++infeasible;
      }
    }
  }
  state.SetLabel(std::string(c.backend) + " " + c.kernel + "[" + c.dims + "]");
  state.counters["drafts"] = static_cast<double>(all.size());
  state.counters["infeasible"] = static_cast<double>(infeasible);
  state.counters["ms_per_draft"] =
      benchmark::Counter(static_cast<double>(all.size()) / 1e3,
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_LabelEveryPrunedDraft)->DenseRange(0, 5)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace pim
