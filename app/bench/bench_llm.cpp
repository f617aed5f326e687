// SPDX-License-Identifier: Apache-2.0
// LLM inference (issue 21, docs/llm.md): GPT-3 13B, batch 1, 2,048 input and 128 output tokens on
// attacc-full+dcc, from a warm lookup table (every shape compiled before the timed run: target under 1 s) and
// from an empty one (every step's shapes compiled in the run: target under 60 s on 2 cores); a request stream
// served online; and one compilation of a Fig. 15 attention shape.
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

/// A stream served online from an empty table: GPT-3 13B, batch 4, prompts of 128-512 and 16-64 output
/// tokens (the argument: requests). DCC's Fig. 15 stream (MT-NLG 310B on 8 GPUs, batch 64, 2,000 requests of
/// 128-2,048 tokens) meets ~4,000 attention shapes; its time is that many compilations (docs/llm.md).
void BM_LlmServeOnlineGpt3(benchmark::State& st) {
  llm::StreamSpec spec;
  spec.requests = static_cast<int>(st.range(0));
  spec.batch = 4;
  spec.linMin = 128;
  spec.linMax = 512;
  spec.loutMin = 16;
  spec.loutMax = 64;
  llm::ServeResult r;
  for (auto _ : st) {
    llm::LlmSimulator sim(gpt3());
    r = llm::serveStream(sim, llm::parseSystem("attacc-full+dcc"), spec, llm::LookupMode::Online);
  }
  st.counters["warmup_requests"] = r.warmup;
  st.counters["table_shapes"] = static_cast<double>(r.tableSize);
}
BENCHMARK(BM_LlmServeOnlineGpt3)->Arg(50)->Unit(benchmark::kSecond)->Iterations(1);

/// One compilation of an attention shape of Fig. 15's stream (MT-NLG 310B's 16 heads per GPU, batch 64).
void BM_LlmCompileMtNlgAttention(benchmark::State& st) {
  llm::LlmSetup s;
  s.model = "mt-nlg-310b";
  s.gpus = 8;
  s.threads = 1;
  std::int64_t context = 2048;
  llm::LlmSimulator sim(s);
  for (auto _ : st)
    sim.table().run({"attn", "b=64,h=16,l=" + std::to_string(context++) + ",d=128"}, llm::Tiling::Dcc);
}
BENCHMARK(BM_LlmCompileMtNlgAttention)->Unit(benchmark::kMillisecond)->Iterations(5);

}  // namespace
