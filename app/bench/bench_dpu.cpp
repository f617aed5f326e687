// SPDX-License-Identifier: Apache-2.0
// UPMEM DPU engine speed: one DPU running PrIM's VA (16 tasklets, 1,024-B blocks, 400 blocks per tasklet:
// 14.8 M instructions), simulated in full and by slices (sim/dpu/dpu_slice.h).
#include <benchmark/benchmark.h>

#include "sim/dpu/dpu_engine.h"
#include "sim/dpu/dpu_slice.h"

using namespace pim::sim::dpu;

namespace {

DpuKernel primVa(std::int64_t blocks) {
  const TaskletProgram t = {Step::issue(20),
                            Step::loop(blocks, {Step::mramRead(1024), Step::mramRead(1024),
                                                Step::issue(13 + 9 * 256), Step::mramWrite(1024)}),
                            Step::issue(5)};
  return {std::vector<TaskletProgram>(16, t)};
}

}  // namespace

static void BM_DpuVaFull(benchmark::State& st) {
  const DpuKernel k = primVa(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(simulateDpu({}, k).cycles);
}
BENCHMARK(BM_DpuVaFull)->Arg(400)->Unit(benchmark::kMillisecond);

static void BM_DpuVaSliced(benchmark::State& st) {
  const DpuKernel k = primVa(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(simulateDpuSliced({}, k).run.cycles);
}
BENCHMARK(BM_DpuVaSliced)->Arg(400)->Arg(40000)->Unit(benchmark::kMillisecond);
