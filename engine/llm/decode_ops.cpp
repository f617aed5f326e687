// SPDX-License-Identifier: Apache-2.0
#include "engine/llm/decode_ops.h"

#include <string>

#include "engine/common/checked.h"
#include "engine/common/error.h"

namespace pim::llm {

const char* phaseName(Phase p) {
  switch (p) {
    case Phase::Qkv:
      return "qkv";
    case Phase::Attention:
      return "attention";
    case Phase::Projection:
      return "projection";
    case Phase::Ffn:
      return "ffn";
    case Phase::Other:
      return "other";
    case Phase::Communication:
      return "communication";
    case Phase::LmHead:
      return "lm_head";
  }
  return "?";
}

namespace {

/// `value` / `gpus`, refused when it does not divide: a tensor-parallel share must be whole.
std::int64_t share(const LlmModel& m, std::int64_t value, int gpus, const char* what) {
  if (gpus < 1 || value % gpus != 0)
    throw InputError(m.name + ": " + what + " (" + std::to_string(value) + ") does not split over " +
                     std::to_string(gpus) + " GPUs in tensor parallel");
  return value / gpus;
}

GpuOp op(GpuOpKind kind, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t numOp, int bytes,
         ActKind act = ActKind::Gelu) {
  GpuOp g;
  g.kind = kind;
  g.act = act;
  g.m = m;
  g.n = n;
  g.k = k;
  g.numOp = numOp;
  g.dbyte = bytes;
  return g;
}

ActKind activationOf(const LlmModel& m) {
  if (m.ffn.gated) return ActKind::Glu;
  return m.ffn.activation == "relu" ? ActKind::Relu : ActKind::Gelu;
}

LayerOp layerOp(std::string name, Phase phase, GpuOp gpu, std::optional<PimKernel> pim = std::nullopt) {
  LayerOp o;
  o.name = std::move(name);
  o.phase = phase;
  o.gpu = gpu;
  o.pim = std::move(pim);
  return o;
}

std::string gemvDims(std::int64_t batch, std::int64_t out, std::int64_t in) {
  return "b=" + std::to_string(batch) + ",out=" + std::to_string(out) + ",in=" + std::to_string(in);
}

/// The per-GPU widths every layer uses.
struct Widths {
  std::int64_t qkvOut, attnWidth, ffn, headsPerGpu;
  std::int64_t kvHeadsPerGpu;
  std::int64_t group;  // query heads per K/V head (1 without grouped-query attention)
};

Widths widthsOf(const LlmModel& m, int gpus) {
  Widths w;
  w.headsPerGpu = share(m, m.heads, gpus, "heads");
  w.kvHeadsPerGpu = share(m, m.kvHeads, gpus, "kv_heads");
  w.group = m.heads / m.kvHeads;
  w.attnWidth = w.headsPerGpu * m.headDim;
  w.qkvOut = w.attnWidth + 2 * w.kvHeadsPerGpu * m.headDim;
  w.ffn = share(m, m.ffn.hidden, gpus, "ffn.hidden");
  return w;
}

/// The layers after attention, shared by prefill (`tokens` = batch x prompt) and decode (`tokens` = batch):
/// projection, all-reduce, norm, the FFN, all-reduce, norm (AttAcc model.py's order).
void appendProjectionAndFfn(std::vector<LayerOp>& ops, const LlmModel& m, const Widths& w,
                            std::int64_t tokens, int bytes, bool decode) {
  auto gemv = [&](std::int64_t out, std::int64_t in) {
    return decode ? std::optional<PimKernel>(PimKernel{"gemv", gemvDims(tokens, out, in)}) : std::nullopt;
  };
  ops.push_back(layerOp("proj", Phase::Projection, op(GpuOpKind::Fc, tokens, m.hidden, w.attnWidth, 1, bytes),
                        gemv(m.hidden, w.attnWidth)));
  ops.push_back(layerOp("allreduce_attn", Phase::Communication,
                        op(GpuOpKind::AllReduce, tokens, m.hidden, 1, 1, bytes)));
  ops.push_back(layerOp("norm1", Phase::Other, op(GpuOpKind::Norm, tokens, m.hidden, 1, 1, bytes)));
  ops.push_back(layerOp("ffn_up", Phase::Ffn, op(GpuOpKind::Fc, tokens, w.ffn, m.hidden, 1, bytes),
                        gemv(w.ffn, m.hidden)));
  if (m.ffn.gated)
    ops.push_back(layerOp("ffn_gate", Phase::Ffn, op(GpuOpKind::Fc, tokens, w.ffn, m.hidden, 1, bytes),
                          gemv(w.ffn, m.hidden)));
  ops.push_back(
      layerOp("act", Phase::Other, op(GpuOpKind::Act, tokens, w.ffn, 1, 1, bytes, activationOf(m))));
  ops.push_back(layerOp("ffn_down", Phase::Ffn, op(GpuOpKind::Fc, tokens, m.hidden, w.ffn, 1, bytes),
                        gemv(m.hidden, w.ffn)));
  ops.push_back(layerOp("allreduce_ffn", Phase::Communication,
                        op(GpuOpKind::AllReduce, tokens, m.hidden, 1, 1, bytes)));
  ops.push_back(layerOp("norm2", Phase::Other, op(GpuOpKind::Norm, tokens, m.hidden, 1, 1, bytes)));
}

}  // namespace

std::vector<LayerOp> decodeLayerOps(const LlmModel& m, const DecodeShape& s) {
  if (s.batch < 1 || s.context < 1) throw InputError("decode step: batch and context must be at least 1");
  const Widths w = widthsOf(m, s.gpus);
  // One attention instance per (sequence, K/V head); its `g` query heads are the rows of one matrix product,
  // so K and V are read once per K/V head (1 row without grouped-query attention). Softmax: one per query
  // head.
  const std::int64_t kvHeads = w.kvHeadsPerGpu * s.batch, g = w.group;
  std::vector<LayerOp> ops;
  ops.push_back(layerOp("qkv", Phase::Qkv, op(GpuOpKind::Fc, s.batch, w.qkvOut, m.hidden, 1, s.bytes),
                        PimKernel{"gemv", gemvDims(s.batch, w.qkvOut, m.hidden)}));
  const std::string length = ",l=" + std::to_string(s.context) + ",d=" + std::to_string(m.headDim);
  const PimKernel pim =
      g == 1
          ? PimKernel{"attn", "b=" + std::to_string(s.batch) + ",h=" + std::to_string(w.headsPerGpu) + length}
          : PimKernel{"attn_gqa", "h=" + std::to_string(kvHeads) + ",g=" + std::to_string(g) + length};
  LayerOp score = layerOp("score", Phase::Attention,
                          op(GpuOpKind::Matmul, g, s.context, m.headDim, kvHeads, s.bytes), pim);
  score.attentionPart = true;
  ops.push_back(score);
  LayerOp softmax =
      layerOp("softmax", Phase::Attention, op(GpuOpKind::Softmax, 1, s.context, 1, kvHeads * g, s.bytes));
  softmax.attentionPart = true;
  ops.push_back(softmax);
  LayerOp context =
      layerOp("context", Phase::Attention, op(GpuOpKind::Matmul, g, m.headDim, s.context, kvHeads, s.bytes));
  context.attentionPart = true;
  ops.push_back(context);
  appendProjectionAndFfn(ops, m, w, s.batch, s.bytes, true);
  return ops;
}

std::vector<LayerOp> prefillLayerOps(const LlmModel& m, std::int64_t batch, std::int64_t lin, int gpus,
                                     int bytes) {
  if (batch < 1 || lin < 1) throw InputError("prefill: batch and input tokens must be at least 1");
  const Widths w = widthsOf(m, gpus);
  const std::int64_t kvHeads = w.kvHeadsPerGpu * batch, rows = w.group * lin;  // as decode, lin tokens each
  const std::int64_t tokens = batch * lin;
  std::vector<LayerOp> ops;
  ops.push_back(layerOp("qkv", Phase::Qkv, op(GpuOpKind::Fc, tokens, w.qkvOut, m.hidden, 1, bytes)));
  ops.push_back(
      layerOp("score", Phase::Attention, op(GpuOpKind::Matmul, rows, lin, m.headDim, kvHeads, bytes)));
  ops.push_back(
      layerOp("softmax", Phase::Attention, op(GpuOpKind::Softmax, lin, lin, 1, kvHeads * w.group, bytes)));
  ops.push_back(
      layerOp("context", Phase::Attention, op(GpuOpKind::Matmul, rows, m.headDim, lin, kvHeads, bytes)));
  appendProjectionAndFfn(ops, m, w, tokens, bytes, false);
  return ops;
}

namespace {

std::int64_t vocabPerGpu(const LlmModel& m, int gpus) { return (m.vocab + gpus - 1) / gpus; }

}  // namespace

std::vector<LayerOp> lmHeadOps(const LlmModel& m, std::int64_t tokens, int gpus, int bytes, bool decode) {
  if (m.vocab < 1) throw InputError("LLM model '" + m.name + "': no vocab, so its LM head cannot be timed");
  const std::int64_t vocab = vocabPerGpu(m, gpus);
  std::optional<PimKernel> gemv;
  if (decode) gemv = PimKernel{"gemv", gemvDims(tokens, vocab, m.hidden)};
  return {layerOp("norm_final", Phase::LmHead, op(GpuOpKind::Norm, tokens, m.hidden, 1, 1, bytes)),
          layerOp("lm_head", Phase::LmHead, op(GpuOpKind::Fc, tokens, vocab, m.hidden, 1, bytes), gemv)};
}

std::int64_t lmHeadWeightBytes(const LlmModel& m, int gpus, int bytes) {
  return checkedMul<std::int64_t>(checkedMul<std::int64_t>(vocabPerGpu(m, gpus), gpus, "LM head rows"),
                                  checkedMul<std::int64_t>(m.hidden, bytes, "LM head row bytes"),
                                  "LM head bytes");
}

std::int64_t layerWeightBytes(const LlmModel& m, int bytes) { return m.weightParamsPerLayer() * bytes; }

std::int64_t kvBytesPerToken(const LlmModel& m, int bytes) { return m.kvElementsPerTokenPerLayer() * bytes; }

}  // namespace pim::llm
