// SPDX-License-Identifier: Apache-2.0
// Conv mapping (issue 20) per ResNet-18 layer on pimopt-default: the model's evaluation of one mapping, the
// trace simulator's walk of it (the mapping the heuristic picks with 3,000 proposals, seed 1), and the
// heuristic mapper itself at 3,000 proposals with its gap to the analytic bound. Arg = the layer's index
// among ResNet-18's conv and FC layers.
#include <benchmark/benchmark.h>

#include <map>

#include "engine/convmap/mapper.h"
#include "engine/convmap/network_layers.h"
#include "engine/convmap/trace_bridge.h"

using namespace pim::convmap;

namespace {

struct Case {
  ConvLayer layer;
  Hierarchy h;
  ConvMapping mapping;
};

MapOptions benchOptions() {
  MapOptions o;
  o.maxEvaluations = 3000;
  o.timeLimitSeconds = 600;
  return o;
}

const Case& resnet18Layer(std::int64_t index) {
  static std::map<std::int64_t, Case> cache;
  if (auto it = cache.find(index); it != cache.end()) return it->second;
  const auto layers = networkLayers(networkOption("resnet18"));
  Case c{std::get<ConvLayer>(layers.at(static_cast<std::size_t>(index)).layer),
         builtinHierarchy("pimopt-default"),
         {}};
  c.mapping = makeMapper("heuristic")->solve(c.layer, c.h, benchOptions(), nullptr).mapping;
  return cache.emplace(index, std::move(c)).first->second;
}

void labelled(benchmark::State& st, const Case& c) { st.SetLabel(c.layer.name + " " + shapeText(c.layer)); }

}  // namespace

static void BM_ConvMapEvaluate(benchmark::State& st) {
  const auto& c = resnet18Layer(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(evaluate(c.layer, c.h, c.mapping).latencyCycles);
  labelled(st, c);
}
BENCHMARK(BM_ConvMapEvaluate)->DenseRange(0, 20, 4)->Unit(benchmark::kMicrosecond);

static void BM_ConvMapTrace(benchmark::State& st) {
  const auto& c = resnet18Layer(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(checkAgainstTrace(c.layer, c.h, c.mapping).traceTotal());
  labelled(st, c);
}
BENCHMARK(BM_ConvMapTrace)->DenseRange(0, 20, 4)->Unit(benchmark::kMillisecond);

// Second arg: the objective (0 latency, 1 energy); the counter is the result's gap to the analytic lower
// bound (lower_bound.h), in percent.
static void BM_ConvMapHeuristic(benchmark::State& st) {
  const auto& c = resnet18Layer(st.range(0));
  const auto mapper = makeMapper("heuristic");
  auto o = benchOptions();
  o.objective.kind = st.range(1) == 0 ? Objective::Latency : Objective::Energy;
  double gap = 0;
  for (auto _ : st) gap = mapper->solve(c.layer, c.h, o, nullptr).gap.value_or(-1);
  st.counters["gap_pct"] = gap * 100;
  labelled(st, c);
}
BENCHMARK(BM_ConvMapHeuristic)
    ->ArgsProduct({{0, 8, 20}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);
