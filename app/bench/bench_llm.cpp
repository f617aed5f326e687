// SPDX-License-Identifier: Apache-2.0
// LLM inference (issue 21, docs/llm.md): GPT-3 13B, batch 1, 2,048 input and 128 output tokens on
// attacc-full+dcc, from a warm lookup table (every shape compiled before the timed run: target under 1 s) and
// from an empty one (every step's shapes compiled in the run: target under 60 s on 2 cores); and a request
// stream served online (DCC Fig. 15: MT-NLG 310B on 8 GPUs, batch 64, tokens in [128, 2048]; the argument is
// the number of requests, 2,000 in the figure).
#include <benchmark/benchmark.h>

#include "engine/llm/serve.h"

namespace llm = pim::llm;

namespace {

llm::LlmSetup gpt3() {
  llm::LlmSetup s;
  s.model = "gpt3-13b";
  s.threads = 2;
  return s;
}

void BM_LlmGpt3WarmTable(benchmark::State& st) {
  llm::LlmSimulator sim(gpt3());
  const llm::SystemChoice sys = llm::parseSystem("attacc-full+dcc");
  sim.request(sys, 1, 2048, 128);  // compiles every shape the request meets
  double tokenMs = 0;
  for (auto _ : st) tokenMs = sim.request(sys, 1, 2048, 128).meanTokenMs;
  st.counters["ms_per_token"] = tokenMs;
  st.counters["table_shapes"] = static_cast<double>(sim.table().size());
}
BENCHMARK(BM_LlmGpt3WarmTable)->Unit(benchmark::kMillisecond);

void BM_LlmGpt3EmptyTable(benchmark::State& st) {
  double compileMs = 0, shapes = 0;
  for (auto _ : st) {
    llm::LlmSimulator sim(gpt3());
    const llm::SystemResult r = sim.request(llm::parseSystem("attacc-full+dcc"), 1, 2048, 128);
    compileMs = r.compileMs;
    shapes = static_cast<double>(sim.table().size());
  }
  st.counters["compile_ms"] = compileMs;
  st.counters["table_shapes"] = shapes;
}
BENCHMARK(BM_LlmGpt3EmptyTable)->Unit(benchmark::kSecond)->Iterations(1);

void BM_LlmServeOnlineMtNlg(benchmark::State& st) {
  llm::LlmSetup s;
  s.model = "mt-nlg-310b";
  s.gpus = 8;
  s.threads = 2;
  s.checkCapacity = false;  // Fig. 15's batch of 64 at 4,096 tokens exceeds 8 x 5 stacks (docs/llm.md)
  llm::StreamSpec spec;
  spec.requests = static_cast<int>(st.range(0));
  llm::ServeResult r;
  for (auto _ : st) {
    llm::LlmSimulator sim(s);
    r = llm::serveStream(sim, llm::parseSystem("attacc-full+dcc"), spec, llm::LookupMode::Online);
  }
  st.counters["warmup_requests"] = r.warmup;
  st.counters["table_shapes"] = static_cast<double>(r.tableSize);
}
BENCHMARK(BM_LlmServeOnlineMtNlg)->Arg(20)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
