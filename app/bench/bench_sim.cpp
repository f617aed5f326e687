// SPDX-License-Identifier: Apache-2.0
// Simulator speed on the HBM2-PIM calibration kernels (target: < 3.5 ms per GEMV 4096x4096 on 64 pCH).
#include <benchmark/benchmark.h>

#include "sim/simulator.h"
#include "sim/vendor_hbm2pim.h"

using namespace pim::sim;

static void BM_SimHbm2PimGemv4096(benchmark::State& st) {
  const DeviceConfig c = hbm2PimConfig(true);
  for (auto _ : st) {
    const Program p = hbm2pimGemv(c, 64, 4096, 4096);
    benchmark::DoNotOptimize(simulate(c, p).totalCycles);
  }
}
BENCHMARK(BM_SimHbm2PimGemv4096)->Unit(benchmark::kMillisecond);

static void BM_SimHbm2PimAdd1M(benchmark::State& st) {
  const DeviceConfig c = hbm2PimConfig(true);
  for (auto _ : st) {
    const Program p = hbm2pimAdd(c, 64, 1 << 20);
    benchmark::DoNotOptimize(simulate(c, p).totalCycles);
  }
}
BENCHMARK(BM_SimHbm2PimAdd1M)->Unit(benchmark::kMillisecond);
