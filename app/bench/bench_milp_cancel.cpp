// SPDX-License-Identifier: Apache-2.0
// How soon a MILP solve returns after a cancel (issue 20; docs/convmap.md "Watching, cancelling and bounding
// a solve"), on ResNet-18's first 3 x 3 layer on pimopt-default (56 x 56, 64 -> 64 channels: 37,670
// columns), the energy MILP with no start, one thread. The cancel lands at args[1] ms after the solve
// starts: 50 in the load and the first LP, 300-1,600 in CBC's preprocessing (CglPreProcess, which raises no
// call-back). The time reported is from the cancel to solve()'s return (manual time: the mean; max_ms the
// slowest).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "engine/convmap/hierarchy.h"
#include "engine/convmap/mapping_io.h"
#include "engine/convmap/mapping_milp.h"
#include "engine/milp/milp.h"

namespace {

using Clock = std::chrono::steady_clock;

const pim::convmap::MappingMilp& stage1Milp() {
  static const auto milp =
      pim::convmap::buildMappingMilp(pim::convmap::parseLayerDims("R=3,S=3,P=56,Q=56,C=64,K=64", "stage1"),
                                     pim::convmap::builtinHierarchy("pimopt-default"));
  return milp;
}

// args: the solver's index in milp::solverNames() (0 CBC, 1 GLPK where built), the cancel's delay in ms.
void BM_MilpCancelLatency(benchmark::State& st) {
  const auto solvers = pim::milp::solverNames();
  if (static_cast<std::size_t>(st.range(0)) >= solvers.size()) {
    st.SkipWithError("solver not built (GLPK: PIMSCOPE_GLPK)");
    return;
  }
  const auto solver = pim::milp::makeSolver(solvers[static_cast<std::size_t>(st.range(0))]);
  const auto& milp = stage1Milp();
  const auto delay = std::chrono::milliseconds(st.range(1));
  double slowest = 0;
  for (auto _ : st) {
    std::atomic<bool> cancel{false};
    Clock::time_point setAt;
    pim::milp::SolveOptions o;
    o.timeLimitSeconds = 60;
    o.cancel = &cancel;
    std::thread canceller([&] {
      std::this_thread::sleep_for(delay);
      setAt = Clock::now();
      cancel = true;
    });
    const auto r = solver->solve(milp.model, o);
    const auto returned = Clock::now();
    canceller.join();
    if (r.stop != pim::milp::StopReason::Cancelled) {
      st.SkipWithError("the solve ended before the cancel");
      return;
    }
    const double latency = std::chrono::duration<double>(returned - setAt).count();
    slowest = std::max(slowest, latency);
    st.SetIterationTime(latency);
  }
  st.counters["max_ms"] = slowest * 1e3;
  st.SetLabel(solvers[static_cast<std::size_t>(st.range(0))] + " cancel at " + std::to_string(st.range(1)) +
              " ms");
}

}  // namespace

BENCHMARK(BM_MilpCancelLatency)
    ->ArgsProduct({{0}, {50, 300, 600, 800, 1000, 1200, 1600}})
    ->Args({1, 50})
    ->Args({1, 300})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
