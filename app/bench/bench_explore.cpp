// SPDX-License-Identifier: Apache-2.0
// The pick `pimscope-cli explore` makes, timed as the command runs it: the shipped model loads on its own
// thread while drafts are generated, pruned and screened, then the model ranks the screened drafts and the
// best predictions are confirmed by simulation with branch and bound. Counters give each stage's seconds
// (last iteration) and the draft counts; BM_LoadShippedModel times the model load alone.
#include <benchmark/benchmark.h>

#include "engine/kernel/library.h"
#include "engine/predict/predictor.h"
#include "engine/search/explorer.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

struct Case {
  const char* backend;
  const char* kernel;
};

// Library kernels at their default shapes: the largest spaces of each backend that has a model.
constexpr Case kCases[] = {{"hbm-pim", "gemv"}, {"attacc", "attn"},   {"attacc", "gemm"},
                           {"hbm-pim", "va"},   {"hbm2-pim", "gemv"}, {"gddr6-aim", "gemv"},
                           {"gddr6-aim", "red"}};

void BM_ExplorePick(benchmark::State& state) {
  const Case& c = kCases[state.range(0)];
  const Kernel k = KernelLibrary::builtin().get(c.kernel);
  const Problem p(builtinBackends().get(c.backend), k, parseShape(k, ""));
  ExploreProgress last;
  const std::atomic<bool> never{false};
  for (auto _ : state) {
    ShippedModelLoader loader(c.backend);
    ExploreOptions o;
    o.boundConfirmations = true;
    o.predictorSource = [&] { return loader.get(); };
    Explorer ex(p, o);
    ex.run(never);
    last = ex.progress();
    if (!ex.best()) state.SkipWithError("no draft could be simulated");
  }
  state.SetLabel(std::string(c.backend) + " " + c.kernel + " " + shapeString(k, p.shape()));
  for (const auto& [stage, seconds] : last.stageSeconds) state.counters[stage + "_s"] = seconds;
  state.counters["kept"] = static_cast<double>(last.remaining);
  state.counters["predicted"] = static_cast<double>(last.predicted);
  state.counters["simulated"] = static_cast<double>(last.simulated);
}
BENCHMARK(BM_ExplorePick)->DenseRange(0, 6)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_LoadShippedModel(benchmark::State& state) {
  const char* backend = kCases[state.range(0)].backend;
  for (auto _ : state) {
    auto model = Predictor::loadShipped(backend);
    if (!model) state.SkipWithError("no shipped model");
    benchmark::DoNotOptimize(model);
  }
  state.SetLabel(backend);
}
BENCHMARK(BM_LoadShippedModel)->Arg(0)->Arg(1)->Arg(4)->Arg(5)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace pim
