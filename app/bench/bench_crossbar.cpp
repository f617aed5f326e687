// SPDX-License-Identifier: Apache-2.0
// Crossbar compilation (issue 19) on crossbar-pimcomp: the whole `compile` of ResNet-18 with the GA at its
// defaults (population 200, 100 iterations, fast fitness, 2 threads), HT and LL, as the target (under
// 10 s on 2 cores) measures it; each stage alone (plan, HT and LL schedule, profile); the profiler's
// instructions per second; the GA's best fitness against iterations as counters; and one conv layer in the
// kernel explorer (every candidate compiled and profiled); ResNet-18 as a network problem in the explorer.
#include <benchmark/benchmark.h>

#include "engine/core/problem.h"
#include "engine/crossbar/ga.h"
#include "engine/crossbar/ht_schedule.h"
#include "engine/crossbar/ll_schedule.h"
#include "engine/kernel/library.h"
#include "engine/kernel/network.h"
#include "engine/target/crossbar/crossbar_backend.h"
#include "engine/target/crossbar/layer_candidates.h"
#include "engine/target/crossbar/network_compile.h"
#include "engine/target/registry.h"

namespace cb = pim::crossbar;

namespace {

const pim::Network& resnet18() {
  static const pim::Network net = pim::loadNetworkFile(pim::builtinNetworkPath("resnet18"));
  return net;
}
const pim::Backend& backend() { return pim::builtinBackends().get("crossbar-pimcomp"); }

cb::PipelineMode modeOf(const benchmark::State& st) {
  return st.range(0) == 0 ? cb::PipelineMode::Ht : cb::PipelineMode::Ll;
}

/// Counts instructions and drops them: a schedule's cost without the profiler's.
class CountingSink final : public pim::xbar::IProgramSink {
 public:
  bool group(const pim::xbar::InstructionGroup& ig) override {
    for (const auto& core : ig.cores) instructions += static_cast<std::int64_t>(core.size());
    return true;
  }
  std::int64_t instructions = 0;
};

/// Keeps every IG so the profiler can be timed alone.
class KeepingSink final : public pim::xbar::IProgramSink {
 public:
  bool group(const pim::xbar::InstructionGroup& ig) override {
    groups.push_back(ig);
    return true;
  }
  std::vector<pim::xbar::InstructionGroup> groups;
};

cb::CompilePlan balancePlan(cb::PipelineMode mode) {
  cb::CompileOptions o;
  o.mode = mode;
  return cb::compilePlan(resnet18(), pim::acceleratorOf(backend()), o);
}

void schedule(const cb::CompilePlan& plan, pim::xbar::IProgramSink& sink) {
  if (plan.options.mode == cb::PipelineMode::Ht)
    cb::scheduleHt(plan, sink);
  else
    cb::scheduleLl(plan, cb::LlOptions{}, sink);
}

}  // namespace

// Arg: 0 HT, 1 LL. The benchmark: `compile --replication ga` at its defaults on 2 threads.
static void BM_CrossbarCompileResNet18Ga(benchmark::State& st) {
  pim::NetworkCompileRequest r;
  r.compile.mode = modeOf(st);
  r.compile.replication = pim::kGaMethod;
  r.ga.threads = 2;
  pim::NetworkCompileResult last;
  for (auto _ : st) last = pim::compileNetwork(backend(), resnet18(), r);
  st.counters["time_ns"] = static_cast<double>(last.profile.totalNs);
  st.counters["plan_s"] = last.planSeconds;
  st.counters["schedule_profile_s"] = last.scheduleSeconds;
  // The GA's best fitness at the start and every 25 iterations (ns on its own scale).
  for (std::size_t i = 0; i < last.gaHistory.size(); i += 25)
    st.counters["ga_best_it" + std::to_string(i)] = last.gaHistory[i];
  st.SetLabel(r.compile.mode == cb::PipelineMode::Ht ? "HT" : "LL");
}
BENCHMARK(BM_CrossbarCompileResNet18Ga)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kSecond)
    ->Iterations(1)
    ->UseRealTime();

// Partition, balance replication and first-fit layout.
static void BM_CrossbarPlanResNet18(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(balancePlan(modeOf(st)).crossbarsUsed());
}
BENCHMARK(BM_CrossbarPlanResNet18)->Arg(0)->Unit(benchmark::kMillisecond);

// The schedule alone (instructions counted, not profiled).
static void BM_CrossbarScheduleResNet18(benchmark::State& st) {
  const cb::CompilePlan plan = balancePlan(modeOf(st));
  std::int64_t instructions = 0;
  for (auto _ : st) {
    CountingSink sink;
    schedule(plan, sink);
    instructions = sink.instructions;
  }
  st.counters["instructions"] = static_cast<double>(instructions);
  st.SetLabel(plan.options.mode == cb::PipelineMode::Ht ? "HT" : "LL");
}
BENCHMARK(BM_CrossbarScheduleResNet18)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The profiler alone on the scheduled program, in instructions per second.
static void BM_CrossbarProfileResNet18(benchmark::State& st) {
  const cb::CompilePlan plan = balancePlan(modeOf(st));
  KeepingSink kept;
  schedule(plan, kept);
  std::int64_t instructions = 0;
  for (const auto& ig : kept.groups)
    for (const auto& core : ig.cores) instructions += static_cast<std::int64_t>(core.size());
  const auto timing = pim::timingParamsOf(backend(), cb::TimingMode::PimcompNn);
  for (auto _ : st) {
    pim::xbar::Profiler p(static_cast<int>(plan.accelerator.cores()), timing);
    for (const auto& ig : kept.groups) p.group(ig);
    benchmark::DoNotOptimize(p.result().totalNs);
  }
  st.counters["instructions_per_s"] = benchmark::Counter(
      static_cast<double>(instructions) * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  st.SetLabel(plan.options.mode == cb::PipelineMode::Ht ? "HT" : "LL");
}
BENCHMARK(BM_CrossbarProfileResNet18)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The library conv2d (64 -> 64 channels, 56 x 56, 3 x 3) as the kernel explorer runs it on a crossbar
// backend: every candidate (mode x unfolding x replication rule) compiled and profiled, one thread.
static void BM_CrossbarLayerCandidates(benchmark::State& st) {
  const pim::Kernel k = pim::KernelLibrary::builtin().get("conv2d");
  double best = 0;
  std::size_t candidates = 0;
  for (auto _ : st) {
    const pim::Problem p(backend(), k, pim::parseShape(k, ""));
    const pim::ITarget& t = pim::targetOf(p.backend());
    candidates = pim::crossbarLayerContext(p).choices().size();
    best = 0;
    for (std::uint64_t id = 0; id < candidates; ++id) {
      const double ns = t.evaluate(p, pim::Draft{id, {}}, pim::EvalOptions{}).timeNs;
      best = id == 0 ? ns : std::min(best, ns);
    }
  }
  st.counters["candidates"] = static_cast<double>(candidates);
  st.counters["best_ns"] = best;
}
BENCHMARK(BM_CrossbarLayerCandidates)->Unit(benchmark::kMillisecond)->UseRealTime();

// ResNet-18 as a network problem in the explorer (`explore --network resnet18`): listing its candidates
// (every rule's plan in each mode and unfolding) and compiling and profiling the rules' candidates, one
// thread; the four genetic searches after them cost what BM_CrossbarCompileResNet18Ga measures, each.
static void BM_CrossbarNetworkCandidatesResNet18(benchmark::State& st) {
  const auto net = std::make_shared<const pim::Network>(resnet18());
  std::size_t candidates = 0, rules = 0;
  double best = 0;
  for (auto _ : st) {
    const pim::Problem p(backend(), net);
    const pim::ITarget& t = pim::targetOf(p.backend());
    const auto& choices = pim::crossbarLayerContext(p).choices();
    candidates = choices.size();
    rules = 0;
    best = 0;
    for (std::uint64_t id = 0; id < candidates; ++id) {
      if (choices[id].methods.front() == pim::kGaMethod) continue;
      const double ns = t.evaluate(p, pim::Draft{id, {}}, pim::EvalOptions{}).timeNs;
      best = rules++ == 0 ? ns : std::min(best, ns);
    }
  }
  st.counters["candidates"] = static_cast<double>(candidates);
  st.counters["rule_candidates"] = static_cast<double>(rules);
  st.counters["best_rule_ns"] = best;
}
BENCHMARK(BM_CrossbarNetworkCandidatesResNet18)->Unit(benchmark::kMillisecond)->UseRealTime();
