// SPDX-License-Identifier: Apache-2.0
// UPMEM DPU engine speed: one DPU running PrIM's VA (16 tasklets, 1,024-B blocks, 400 blocks per tasklet:
// 14.8 M instructions; 20, a full-system VA's share of one DPU), simulated in full and by slices
// (sim/dpu/dpu_slice.h); the upmem target end to end;
// the imtp search's trials per second.
#include <benchmark/benchmark.h>

#include "engine/kernel/library.h"
#include "engine/search/evaluate.h"
#include "engine/search/explorer.h"
#include "engine/target/registry.h"
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
BENCHMARK(BM_DpuVaFull)->Arg(20)->Arg(400)->Unit(benchmark::kMillisecond);

static void BM_DpuVaSliced(benchmark::State& st) {
  const DpuKernel k = primVa(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(simulateDpuSliced({}, k).run.cycles);
}
BENCHMARK(BM_DpuVaSliced)->Arg(400)->Arg(40000)->Unit(benchmark::kMillisecond);

// The upmem target end to end: one draft's code generation, host plan and DPU model, for PrIM's full-system
// sizes on 2,048 DPUs (32 ranks x 64; identical DPUs simulated once, long loops by slices).
namespace {

std::unique_ptr<pim::Problem> upmemProblem(const char* kernel, const char* dims, pim::DType t) {
  const pim::Kernel k = pim::retyped(pim::KernelLibrary::builtin().get(kernel), t);
  return std::make_unique<pim::Problem>(pim::builtinBackends().get("upmem"), k, pim::parseShape(k, dims));
}

void evaluateOn2048(benchmark::State& st, const char* kernel, const char* dims, pim::DType t) {
  const auto p = upmemProblem(kernel, dims, t);
  // PrIM's split: the largest tensor's outer axis over 32 ranks x 64 DPUs (part 1 for VA and RED, whose
  // batch is part 0; part 0 for GEMV and SCAN).
  std::vector<pim::PartChoice> parts(static_cast<std::size_t>(p->space().partCount()));
  parts[std::string(kernel) == "va" || std::string(kernel) == "red" ? 1 : 0] = {32, 64, 0};
  const pim::Draft d = p->space().draft(p->space().idOf(parts));
  for (auto _ : st) benchmark::DoNotOptimize(pim::evaluateDraft(*p, d).totalCycles);
}

}  // namespace

static void BM_UpmemEvaluateVa2048(benchmark::State& st) {
  evaluateOn2048(st, "va", "b=1,n=167772160", pim::DType::I32);
}
BENCHMARK(BM_UpmemEvaluateVa2048)->Unit(benchmark::kMillisecond);

static void BM_UpmemEvaluateRed2048(benchmark::State& st) {
  evaluateOn2048(st, "red", "b=1,n=419430400", pim::DType::I64);
}
BENCHMARK(BM_UpmemEvaluateRed2048)->Unit(benchmark::kMillisecond);

static void BM_UpmemEvaluateGemv2048(benchmark::State& st) {
  evaluateOn2048(st, "gemv", "b=1,out=163840,in=4096", pim::DType::I32);
}
BENCHMARK(BM_UpmemEvaluateGemv2048)->Unit(benchmark::kMillisecond);

// PrIM's SCAN-SSA: two launches, a handshake chain per block (simulated in full, not by slices).
static void BM_UpmemEvaluateScan2048(benchmark::State& st) {
  evaluateOn2048(st, "scan", "n=251658240", pim::DType::I64);
}
BENCHMARK(BM_UpmemEvaluateScan2048)->Unit(benchmark::kMillisecond);

// The same draft simulated instruction by instruction (SimSettings::extrapolate off): what the slices save.
static void BM_UpmemEvaluateVa2048Full(benchmark::State& st) {
  const auto p = upmemProblem("va", "b=1,n=167772160", pim::DType::I32);
  std::vector<pim::PartChoice> parts(static_cast<std::size_t>(p->space().partCount()));
  parts[1] = {32, 64, 0};
  const pim::Draft d = p->space().draft(p->space().idOf(parts));
  pim::EvalOptions eo;
  eo.sim.extrapolate = false;
  for (auto _ : st) benchmark::DoNotOptimize(pim::evaluateDraft(*p, d, eo).totalCycles);
}
BENCHMARK(BM_UpmemEvaluateVa2048Full)->Unit(benchmark::kMillisecond);

// The imtp strategy: 256 trials (4 batches of 64, the cost model retrained after each) on PrIM's one-rank
// VA and GEMV, one worker; the counter is trials per second, search and evaluation together.
static void imtpTrials(benchmark::State& st, const char* kernel, const char* dims) {
  const auto p = upmemProblem(kernel, dims, pim::DType::I32);
  pim::ExploreOptions o;
  o.strategy = "imtp";
  o.sampling.trials = 256;
  o.threads = 1;
  std::size_t trials = 0;
  for (auto _ : st) {
    pim::Explorer ex(*p, o);
    const std::atomic<bool> never{false};
    ex.run(never);
    trials += ex.records().size();
  }
  st.counters["trials_per_s"] = benchmark::Counter(static_cast<double>(trials), benchmark::Counter::kIsRate);
}

static void BM_ImtpTrialsVa(benchmark::State& st) { imtpTrials(st, "va", "b=1,n=2621440"); }
BENCHMARK(BM_ImtpTrialsVa)->Unit(benchmark::kMillisecond)->Iterations(2);

static void BM_ImtpTrialsGemv(benchmark::State& st) { imtpTrials(st, "gemv", "b=1,out=8192,in=1024"); }
BENCHMARK(BM_ImtpTrialsGemv)->Unit(benchmark::kMillisecond)->Iterations(2);
