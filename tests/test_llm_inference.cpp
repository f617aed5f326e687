// SPDX-License-Identifier: Apache-2.0
// LLM inference end to end (engine/llm): a decoder layer's kernels and their sizes, the systems' placement
// rules, the KV-cache append counted by hand, residency (what a resident GEMV moves, what its preload costs),
// the request's sums, and the online lookup table converging to the offline one.
#include <gtest/gtest.h>

#include <numeric>

#include "engine/common/error.h"
#include "engine/core/problem.h"
#include "engine/kernel/residency.h"
#include "engine/llm/kv_append.h"
#include "engine/llm/serve.h"
#include "engine/schedule/parts_text.h"
#include "engine/search/evaluate.h"
#include "engine/target/registry.h"

namespace pim::llm {
namespace {

std::int64_t fcFlops(const std::vector<LayerOp>& ops) {
  std::int64_t f = 0;
  for (const LayerOp& o : ops)
    if (o.gpu.kind == GpuOpKind::Fc) f += gpuOpFlops(o.gpu);
  return f;
}

const LayerOp& named(const std::vector<LayerOp>& ops, const std::string& name) {
  for (const LayerOp& o : ops)
    if (o.name == name) return o;
  throw std::logic_error("no op " + name);
}

// Every weight is read once per token and sequence: the FC FLOPs of a decode step are 2 x batch x weights,
// for every shipped model, and split evenly over tensor-parallel GPUs.
TEST(LlmDecode, WeightLayersCoverEveryWeightOnce) {
  for (const std::string& name : llmModelNames()) {
    const LlmModel m = llmModelByName(name);
    for (int gpus : {1, 8}) {
      if (m.heads % gpus != 0) continue;
      const auto ops = decodeLayerOps(m, {4, 1000, gpus, 2});
      EXPECT_EQ(fcFlops(ops) * gpus, 2 * 4 * m.weightParamsPerLayer()) << name << " on " << gpus << " GPUs";
    }
  }
}

TEST(LlmDecode, Gpt3LayerHasAttAccsShapes) {
  const LlmModel m = llmModelByName("gpt3-13b");
  const auto ops = decodeLayerOps(m, {1, 2049, 1, 2});
  const GpuOp& qkv = named(ops, "qkv").gpu;
  EXPECT_EQ(qkv.m, 1);
  EXPECT_EQ(qkv.n, 3 * 5120);
  EXPECT_EQ(qkv.k, 5120);
  EXPECT_EQ(named(ops, "qkv").pim->dims, "b=1,out=15360,in=5120");
  const GpuOp& score = named(ops, "score").gpu;
  EXPECT_EQ(score.n, 2049);
  EXPECT_EQ(score.k, 128);
  EXPECT_EQ(score.numOp, 40);
  EXPECT_EQ(named(ops, "score").pim->kernel, "attn");
  EXPECT_EQ(named(ops, "score").pim->dims, "b=1,h=40,l=2049,d=128");
  // Score and context: 2 x 2049 x 128 MACs per head, 40 heads.
  EXPECT_EQ(gpuOpFlops(score) + gpuOpFlops(named(ops, "context").gpu), 2 * 2 * 2049 * 128 * 40);
  EXPECT_EQ(named(ops, "ffn_up").gpu.n, 20480);
  EXPECT_EQ(named(ops, "ffn_down").gpu.k, 20480);
  // 8 GPUs: MT-NLG's 128 heads, 16 each; QKV 3 x 16384 / 8 columns.
  const auto mt = decodeLayerOps(llmModelByName("mt-nlg-310b"), {64, 300, 8, 2});
  EXPECT_EQ(named(mt, "qkv").gpu.n, 6144);
  EXPECT_EQ(named(mt, "score").pim->dims, "b=64,h=16,l=300,d=128");
  EXPECT_EQ(layerWeightBytes(m, 2), 2 * 314572800);
  EXPECT_EQ(kvBytesPerToken(m, 2), 2 * 2 * 5120);
}

// attacc.md's calibration point: decode attention, B=1, H=32, L=2048, head dim 128 on the A100 takes 40.39 us
// (QK^T, softmax and PV, one thread block per head).
TEST(LlmDecode, GpuAttentionMeetsAttAccsCalibrationPoint) {
  LlmModel m = llmModelByName("gpt3-13b");
  m.heads = m.kvHeads = 32;
  double us = 0;
  for (const LayerOp& op : decodeLayerOps(m, {1, 2048, 1, 2}))
    if (op.attentionPart) us += gpuOpCost(op.gpu, GpuSystem{}).time_s * 1e6;
  EXPECT_NEAR(us, 40.39, 0.01);
}

// Grouped-query attention (Llama 2 70B: 64 query heads over 8 K/V heads; 8 GPUs hold one K/V head each): one
// instance per sequence and K/V head whose 8 query heads are the rows of one matrix product, so the GPU reads
// K and V once per K/V head; on PIM the attn_gqa kernel holds one K/V head per instance. The MACs are those
// of 8 heads of ordinary attention.
TEST(LlmDecode, GroupedQueryAttentionReadsEachKvHeadOnce) {
  const LlmModel m = llmModelByName("llama2-70b");
  ASSERT_EQ(m.kvHeads, 8);
  const auto ops = decodeLayerOps(m, {2, 100, 8, 2});
  const GpuOp& score = named(ops, "score").gpu;
  EXPECT_EQ(score.m, 8);
  EXPECT_EQ(score.numOp, 2);  // 2 sequences x 1 K/V head of this GPU
  EXPECT_EQ(named(ops, "score").pim->kernel, "attn_gqa");
  EXPECT_EQ(named(ops, "score").pim->dims, "h=2,g=8,l=100,d=128");  // 2 sequences x 1 K/V head
  EXPECT_EQ(named(ops, "softmax").gpu.numOp, 16);                   // one per sequence and query head
  EXPECT_EQ(named(ops, "qkv").gpu.n, (64 + 2 * 8) * 128 / 8);
  EXPECT_EQ(gpuOpFlops(score) + gpuOpFlops(named(ops, "context").gpu), 2 * 2 * 100 * 128 * (2 * 8));
  // The same model without the grouping reads its K per query head: 8 times the K bytes.
  LlmModel mha = m;
  mha.kvHeads = mha.heads;
  const auto mhaOps = decodeLayerOps(mha, {2, 100, 8, 2});
  const GpuOp& mhaScore = named(mhaOps, "score").gpu;
  EXPECT_EQ(gpuOpSizes(mhaScore).in2, 8 * gpuOpSizes(score).in2);
  EXPECT_EQ(gpuOpSizes(mhaScore).in1, gpuOpSizes(score).in1);
}

TEST(LlmDecode, GatedFfnHasTwoUpProjections) {
  const auto ops = decodeLayerOps(llmModelByName("llama2-33b"), {1, 10, 1, 2});
  EXPECT_EQ(named(ops, "ffn_gate").gpu.n, 17920);
  EXPECT_EQ(named(ops, "act").gpu.act, ActKind::Glu);
}

TEST(LlmDecode, RefusesAnUnevenSplit) {
  EXPECT_THROW(decodeLayerOps(llmModelByName("llama2-33b"), {1, 10, 8, 2}), InputError);  // 52 heads
}

// attacc.md: 5 stacks x 16 channels x 64 GEMV units stream 32-column rows: ACTAB, MACAB -> MACAB every 6
// cycles under the power constraint, MACAB -> PREA 8, PREA -> ACTAB 19: 19 + 31 x 6 + 8 + 19 = 232 cycles of
// 0.769 ns per 1 KB row and unit, 5,120 units: 29.39 TB/s, 8.77x the A100's 3,352 GB/s (AttAcc states 9).
// Without it every 4 cycles: 170 cycles, 11.96x (AttAcc states 16, the column rate without row switches).
TEST(LlmSystems, PimBandwidthScaleFromTheBackend) {
  Backend b = builtinBackend("attacc");
  EXPECT_NEAR(pimBandwidthScale(b), 5120.0 * 1024 / (232 * 0.769e-9) / 3352e9, 1e-9);
  b.setParameter("pim.power_constraint", 0);
  EXPECT_NEAR(pimBandwidthScale(b), 5120.0 * 1024 / (170 * 0.769e-9) / 3352e9, 1e-9);
}

TEST(LlmSystems, NamesRoundTripAndUnknownOnesAreRefused) {
  for (const std::string& n : systemNames()) EXPECT_EQ(parseSystem(n).name(), n);
  try {
    parseSystems("gpu,attacc");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown system 'attacc'"), std::string::npos);
  }
  EXPECT_THROW(parseSystems("gpu,gpu"), InputError);
  EXPECT_THROW(parseSystems(""), InputError);
}

// One token of 40 heads on 80 channels: one head per channel. K and V rows of 128 FP16 are 8 column writes
// each over the 4 banks of a bank group: 16 writes and 8 activations. tFAW allows 4 activations per 39
// cycles: 78 cycles, more than the bus (16 x BL/2 = 32) and tCCD_L (16 x 4 = 64); plus the first write's
// tRCDWR 19 + CWL 6 + BL/2 2 and the last's tWR 21 + tRP 19: 145 cycles, 111.5 ns.
TEST(LlmKvAppend, CountedByHandOnAttAcc) {
  const KvAppendCost c = kvAppendCost(builtinBackend("attacc"), 40, 128, 2);
  EXPECT_EQ(c.headsPerChannel, 1);
  EXPECT_EQ(c.writesPerHead, 16);
  EXPECT_EQ(c.activationsPerHead, 8);
  EXPECT_EQ(c.cycles, 145);
  EXPECT_NEAR(c.ns, 145 * 0.769, 1e-9);
  EXPECT_STREQ(c.bound, "activations (tFAW)");
  // Energy: per head 8 ACT x 909 + 16 WR x 512 + 512 B x 6.4 pJ.
  EXPECT_NEAR(c.energyPj, 40 * (8 * 909.0 + 16 * 512.0 + 512 * 6.4), 1e-6);
  // 1,024 instances: 13 per channel.
  EXPECT_EQ(kvAppendCost(builtinBackend("attacc"), 1024, 128, 2).headsPerChannel, 13);
}

LlmSetup quickSetup(const std::string& model) {
  LlmSetup s;
  s.model = model;
  s.topK = 1;
  s.threads = 2;
  return s;
}

// The GPU system is the sum of AttAcc's A100 model over the layer's operators, times the layers.
TEST(LlmRequest, GpuStepIsTheSumOfItsOperators) {
  LlmSimulator sim(quickSetup("gpt3-13b"));
  const SystemResult r = sim.request(parseSystem("gpu"), 1, 128, 3);
  ASSERT_TRUE(r.available) << r.reason;
  ASSERT_EQ(r.steps.size(), 2U);
  double layerNs = 0;
  for (const LayerOp& op : decodeLayerOps(sim.model(), {1, 129, 1, 2}))
    layerNs += gpuOpCost(op.gpu, GpuSystem{}).time_s * 1e9;
  EXPECT_NEAR(r.steps[0].ms, layerNs * 40 / 1e6, 1e-9);
  EXPECT_EQ(r.steps[1].context, 130);
  EXPECT_NEAR(r.meanTokenMs, (r.steps[0].ms + r.steps[1].ms) / 2, 1e-12);
  EXPECT_NEAR(r.totalMs, r.prefillMs + r.steps[0].ms + r.steps[1].ms, 1e-9);
  EXPECT_NEAR(std::accumulate(r.breakdownMs.begin(), r.breakdownMs.end(), 0.0), r.meanTokenMs, 1e-9);
  // The decision table names attention as one kernel: its three GPU kernels' time, the PIM kernel's shape.
  for (const KernelDecision& d : r.decisions)
    if (d.op == "attention") {
      EXPECT_EQ(d.shape, "attn[b=1,h=40,l=129..130,d=128]");
      EXPECT_NEAR(d.gpuUs * 1e3 * 40 / 1e6, r.steps[0].phaseMs[static_cast<int>(Phase::Attention)], 1e-9);
    }
}

// AttAcc_Full keeps QKV and the projection on the GPU, runs attention on PIM with the vendor tiling and
// shares the FFN rows by AttAcc's bandwidth rule: memory-bound at batch 1, the GPU keeps 1 / (1 + scale).
TEST(LlmRequest, AttAccFullPlacesAsAttAcc) {
  LlmSimulator sim(quickSetup("gpt3-13b"));
  const SystemResult r = sim.request(parseSystem("attacc-full"), 1, 128, 2);
  ASSERT_TRUE(r.available) << r.reason;
  const double scale = pimBandwidthScale(sim.table().backend());
  for (const KernelDecision& d : r.decisions) {
    if (d.op == "qkv" || d.op == "proj") {
      EXPECT_EQ(d.where, Placement::Gpu) << d.op;
    }
    if (d.op == "attention") {
      EXPECT_EQ(d.where, Placement::Pim);
      EXPECT_EQ(d.schedule, "vendor");
    }
    if (d.op.starts_with("ffn_")) {
      EXPECT_EQ(d.where, Placement::Split) << d.op;
      EXPECT_NEAR(d.splitUs, d.gpuUs / (1 + scale), 1e-9) << d.op;
    }
  }
  EXPECT_GT(r.kvAppendMs, 0);
  EXPECT_GT(r.memory.weightPreloadMs, 0);  // the FFN's PIM rows are laid out once at model load
  EXPECT_EQ(sim.request(parseSystem("gpu"), 1, 128, 2).memory.weightPreloadMs, 0);
}

// A resident GEMV moves only its activations per call; placing W once (the preload) costs what a call that
// streams W and keeps x resident spends on its input rearrangement.
TEST(LlmResidency, PreloadIsTheResidentTensorsInputRearrangement) {
  const Backend b = builtinBackend("attacc");
  PimKernelTable table(b);
  const PimKernel k{"gemv", "b=1,out=4096,in=4096"};
  const PimRun run = table.run(k, Tiling::Vendor);
  ASSERT_TRUE(run.available) << run.reason;
  const Kernel kernel = resolveKernel("gemv", "");
  const Problem resident(b, kernel, parseShape(kernel, k.dims));
  const Problem weightsOnly(b, kernel, parseShape(kernel, k.dims),
                            overrideResidency(kernel, Residency::declared(kernel), "x", "W"));
  std::vector<PartTriple> parts;
  for (const auto& p : run.layout) parts.push_back({p[0], p[1], p[2]});
  const Draft d = draftFromParts(resident.space(), parts);
  const Evaluation call = evaluateDraft(resident, d);
  const Evaluation streamW = evaluateDraft(weightsOnly, d);
  EXPECT_NEAR(run.ns, call.timeNs, 1e-9);
  EXPECT_NEAR(run.preloadNs, static_cast<double>(streamW.cycles[0]) * streamW.tCKns, 1e-9);
  // A call's input rearrangement places only x (in every bank that multiplies it), not W's 32 MB.
  EXPECT_LT(call.cycles[0], streamW.cycles[0]);
}

// Steps ahead simulate their attention in the cache's layout side by side (prefetchLayouts): exactly the
// kernels whose pick splits differently, with the figures runLayout gives one at a time.
TEST(LlmResidency, PrefetchedLayoutsAreWhatEachStepWouldSimulate) {
  const Backend b = builtinBackend("attacc");
  std::vector<PimKernel> ks;
  for (int l : {17, 33, 65, 129, 257, 513, 1025})
    ks.push_back({"attn", "b=4,h=8,l=" + std::to_string(l) + ",d=128"});
  PimKernelTable ahead(b), oneByOne(b);
  ahead.prepare(ks, 2);
  const LayoutSignature cache = ahead.run(ks[0], Tiling::Dcc).layout;
  int differing = 0;
  for (const PimKernel& k : ks) differing += ahead.run(k, Tiling::Dcc).layout != cache ? 1 : 0;
  ASSERT_GT(differing, 1) << "the shapes chosen no longer exercise a change of split";
  ahead.prefetchLayouts(ks, cache, 2);
  for (const PimKernel& k : ks) {
    const bool differs = ahead.run(k, Tiling::Dcc).layout != cache;
    EXPECT_EQ(ahead.holdsLayout(k, cache), differs) << k.dims;
    if (!differs) continue;
    const PimRun kept = ahead.runLayout(k, cache), fresh = oneByOne.runLayout(k, cache);
    ASSERT_TRUE(kept.available) << kept.reason;
    EXPECT_EQ(kept.ns, fresh.ns) << k.dims;
    EXPECT_EQ(kept.energyPj, fresh.energyPj) << k.dims;
    EXPECT_EQ(kept.schedule, fresh.schedule) << k.dims;
  }
}

TEST(LlmRequest, RefusesWhatDoesNotFitWithTheNumbers) {
  LlmSimulator sim(quickSetup("mt-nlg-310b"));
  const SystemResult r = sim.request(parseSystem("gpu"), 64, 2048, 128);
  EXPECT_FALSE(r.available);
  EXPECT_NE(r.reason.find("618.5 GB of weights"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("85.9 GB of 1 x 5 attacc stacks"), std::string::npos) << r.reason;
  EXPECT_THROW(sim.request(parseSystem("gpu"), 0, 10, 10), InputError);
  EXPECT_THROW(sim.request(parseSystem("gpu"), 1, 10, 1), InputError);
  EXPECT_THROW(sim.request(parseSystem("gpu"), 1, kMaxTokens + 1, 10), InputError);
}

// Llama 3 8B's 32 query heads share 8 K/V heads: on AttAcc_Full attention runs on PIM as attn_gqa with the
// vendor's layout (K/V heads over the channels, each group's query heads one after another), and each step
// appends one K and V row per K/V head, not per query head.
TEST(LlmRequest, GroupedQueryAttentionRunsOnPim) {
  LlmSimulator sim(quickSetup("llama3-8b"));
  const SystemResult r = sim.request(parseSystem("attacc-full"), 1, 64, 2);
  ASSERT_TRUE(r.available) << r.reason;
  bool sawAttention = false;
  for (const KernelDecision& d : r.decisions)
    if (d.op == "attention") {
      sawAttention = true;
      EXPECT_EQ(d.where, Placement::Pim);
      EXPECT_EQ(d.schedule, "vendor");
      EXPECT_EQ(d.shape, "attn_gqa[h=8,g=4,l=65,d=128]");
    }
  EXPECT_TRUE(sawAttention);
  const KvAppendCost append = kvAppendCost(sim.table().backend(), 8, 128, 2);
  EXPECT_NEAR(r.kvAppendMs, append.ns * 32 / 1e6, 1e-12);
}

// --lm-head: the final norm and the LM head once per step after the layers (GPT-3 13B: 5120 -> 50257 logits;
// on 8 GPUs each computes ceil(50257 / 8) = 6283 of them, the vocabulary padded as Megatron pads it). On the
// gpu system a step gains exactly those two operators' time, under their own phase; the prefill gains them
// on each sequence's last token; the weights grow by the head's.
TEST(LlmLmHead, TimedOnceAfterTheLayers) {
  const LlmModel m = llmModelByName("gpt3-13b");
  const auto head = lmHeadOps(m, 4, 8, 2, true);
  ASSERT_EQ(head.size(), 2U);
  EXPECT_EQ(head[1].name, "lm_head");
  EXPECT_EQ(head[1].gpu.m, 4);
  EXPECT_EQ(head[1].gpu.n, 6283);
  EXPECT_EQ(head[1].gpu.k, 5120);
  EXPECT_EQ(head[1].pim->dims, "b=4,out=6283,in=5120");
  EXPECT_EQ(lmHeadWeightBytes(m, 8, 2), 6283LL * 8 * 5120 * 2);
  EXPECT_FALSE(lmHeadOps(m, 4, 8, 2, false)[1].pim.has_value());  // prefill: on the GPU
  LlmModel noVocab = m;
  noVocab.vocab = 0;
  EXPECT_THROW(lmHeadOps(noVocab, 1, 1, 2, true), InputError);

  LlmSetup off = quickSetup("gpt3-13b"), on = off;
  on.lmHead = true;
  LlmSimulator without(off), with(on);
  const SystemResult a = without.request(parseSystem("gpu"), 2, 128, 3),
                     b = with.request(parseSystem("gpu"), 2, 128, 3);
  ASSERT_TRUE(a.available && b.available);
  double headMs = 0;
  for (const LayerOp& op : lmHeadOps(m, 2, 1, 2, true)) headMs += gpuOpCost(op.gpu, GpuSystem{}).time_s * 1e3;
  EXPECT_NEAR(b.steps[0].ms - a.steps[0].ms, headMs, 1e-9);
  EXPECT_NEAR(b.steps[0].phaseMs[static_cast<int>(Phase::LmHead)], headMs, 1e-9);
  EXPECT_EQ(a.steps[0].phaseMs[static_cast<int>(Phase::LmHead)], 0);
  double prefillHeadMs = 0;
  for (const LayerOp& op : lmHeadOps(m, 2, 1, 2, false))
    prefillHeadMs += gpuOpCost(op.gpu, GpuSystem{}).time_s * 1e3;
  EXPECT_NEAR(b.prefillMs - a.prefillMs, prefillHeadMs, 1e-9);
  EXPECT_EQ(b.memory.weightBytes - a.memory.weightBytes, lmHeadWeightBytes(m, 1, 2));
  bool row = false;
  for (const KernelDecision& d : b.decisions) row = row || d.op == "lm_head";
  EXPECT_TRUE(row);
}

// Placed as QKV is: AttAcc keeps it on the GPU, DCC moves it to PIM where its GEMV is faster. Its weights
// are laid out once at model load, like a layer's, but once, not once per layer.
TEST(LlmLmHead, OnPimItsWeightsArePreloadedOnce) {
  LlmSetup off = quickSetup("gpt3-13b"), on = off;
  on.lmHead = true;
  LlmSimulator without(off), with(on);
  const SystemResult a = without.request(parseSystem("attacc-base+dcc"), 1, 128, 2);
  const SystemResult b = with.request(parseSystem("attacc-base+dcc"), 1, 128, 2);
  ASSERT_TRUE(a.available && b.available) << a.reason << b.reason;
  const KernelDecision* head = nullptr;
  for (const KernelDecision& d : b.decisions)
    if (d.op == "lm_head") head = &d;
  ASSERT_NE(head, nullptr);
  ASSERT_EQ(head->where, Placement::Pim) << head->schedule;
  const PimRun run = with.table().run(PimKernel{"gemv", "b=1,out=50257,in=5120"}, Tiling::Dcc);
  EXPECT_NEAR(b.memory.weightPreloadMs - a.memory.weightPreloadMs, run.preloadNs / 1e6, 1e-9);
  EXPECT_EQ(with.request(parseSystem("attacc-base"), 1, 128, 2).decisions.back().where, Placement::Gpu);
  // Sampling reads the logits on the GPU: 50,257 FP16 logits cross the link after a head on PIM.
  const LlmHardware hw{GpuSystem{}, 2, &with.table()};
  const StepCost step = decodeStepCost(with.model(), hw, parseSystem("attacc-base+dcc"), 1, 129, true);
  ASSERT_FALSE(step.ops.empty());
  EXPECT_EQ(step.ops.back().op, "link");
  EXPECT_EQ(step.ops.back().shape, "100514 B");
  EXPECT_TRUE(step.ops.back().once);
}

TEST(LlmRequest, Fp8RunsOnTheGpuOnly) {
  LlmSetup s = quickSetup("gpt3-13b");
  s.dtype = "fp8";
  LlmSimulator sim(s);
  EXPECT_TRUE(sim.request(parseSystem("gpu"), 1, 16, 2).available);
  const SystemResult pim = sim.request(parseSystem("attacc-base"), 1, 16, 2);
  EXPECT_FALSE(pim.available);
  EXPECT_NE(pim.reason.find("FP16 only"), std::string::npos) << pim.reason;
}

// DCC Fig. 15: the online table compiles each shape the first time it appears and converges to the offline
// one, which compiled every shape before the stream. Three identical requests: the first online request pays
// the compilation, the later ones are the offline latencies exactly.
TEST(LlmServe, OnlineConvergesToOffline) {
  StreamSpec spec;
  spec.requests = 3;
  spec.batch = 1;
  spec.linMin = spec.linMax = 64;
  spec.loutMin = spec.loutMax = 3;
  LlmSimulator online(quickSetup("gpt3-13b")), offline(quickSetup("gpt3-13b"));
  const SystemChoice sys = parseSystem("attacc-base+dcc");
  const ServeResult on = serveStream(online, sys, spec, LookupMode::Online);
  const ServeResult off = serveStream(offline, sys, spec, LookupMode::Offline);
  ASSERT_EQ(on.requests.size(), 3U) << on.reason;
  ASSERT_EQ(off.requests.size(), 3U) << off.reason;
  EXPECT_GT(on.requests[0].compileMs, 0);
  EXPECT_EQ(on.warmup, 1);
  EXPECT_EQ(off.warmup, 0);
  for (int i = 1; i < 3; ++i) EXPECT_DOUBLE_EQ(on.requests[i].latencyMs, off.requests[i].latencyMs);
  EXPECT_GT(on.requests[0].latencyMs, off.requests[0].latencyMs);
  EXPECT_EQ(on.tableSize, off.tableSize);
  EXPECT_EQ(on.tableSize, 4U);  // attention at 65 and 66, the QKV and projection GEMVs
}

TEST(LlmServe, StreamIsReproducibleAndRangesAreChecked) {
  StreamSpec s;
  s.requests = 50;
  s.seed = 7;
  const auto a = streamRequests(s), b = streamRequests(s);
  ASSERT_EQ(a.size(), 50U);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].lin, b[i].lin);
    EXPECT_GE(a[i].lin, 128);
    EXPECT_LE(a[i].lout, 2048);
  }
  s.linMin = 3000;  // above linMax
  EXPECT_THROW(streamRequests(s), InputError);
}

}  // namespace
}  // namespace pim::llm
