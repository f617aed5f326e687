// SPDX-License-Identifier: Apache-2.0
#include <benchmark/benchmark.h>

#include "engine/common/memory_policy.h"

// BENCHMARK_MAIN(), with the executables' memory policy first, so the figures are the CLI's and the window's.
int main(int argc, char** argv) {
  pim::keepFreedMemory();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
