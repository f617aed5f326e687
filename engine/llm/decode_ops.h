// SPDX-License-Identifier: Apache-2.0
// One decoder layer of an LLM as the operators a GPU runs (AttAcc's simulator, src/model.py: the same
// operators, dimensions and tensor-parallel split), each tagged with the phase it is reported under and,
// where a PIM device could run it instead, the PIMScope library kernel and shape it would run as.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/llm/gpu_ops.h"
#include "engine/llm/llm_model.h"

namespace pim::llm {

/// The phases a request's time and energy are broken into (DCC Fig. 11), and the LM head when it is timed.
enum class Phase { Qkv, Attention, Projection, Ffn, Other, Communication, LmHead };
inline constexpr int kPhaseCount = 7;
/// "qkv", "attention", "projection", "ffn", "other", "communication", "lm_head".
const char* phaseName(Phase p);

/// A kernel of the library (datasets/kernels) and its dimension sizes, as `explore --dims` takes them.
struct PimKernel {
  std::string kernel;  // "gemv", "attn" or (grouped-query attention) "attn_gqa"
  std::string dims;    // "b=1,out=15360,in=5120"
  bool operator<(const PimKernel& o) const { return kernel != o.kernel ? kernel < o.kernel : dims < o.dims; }
  bool operator==(const PimKernel&) const = default;
};

struct LayerOp {
  std::string name;  // qkv, score, softmax, context, proj, allreduce_attn, norm1, ffn_up, ffn_gate, act, ...
  Phase phase = Phase::Other;
  GpuOp gpu;  // as the GPU runs it
  /// What a PIM device would run instead: a GEMV for the weight layers, the whole decode attention (score,
  /// softmax and context as one `attn` kernel) on the score op; nullopt for what stays on the GPU.
  std::optional<PimKernel> pim;
  bool attentionPart = false;  // score, softmax or context: one kernel on PIM
};

/// A decode step of `batch` sequences attending `context` keys each (the prompt, the tokens generated so
/// far and the new one), on `gpus` GPUs in tensor parallel, `bytes` per element.
struct DecodeShape {
  std::int64_t batch = 1, context = 1;
  int gpus = 1, bytes = 2;
};

/// The operators of one decoder layer at one decode step, in execution order. Attention has one instance per
/// sequence and K/V head, its query heads the rows of one product (one row without grouped-query attention).
/// Throws InputError when heads or widths do not split over `gpus`.
std::vector<LayerOp> decodeLayerOps(const LlmModel& m, const DecodeShape& s);

/// The operators of one decoder layer over the prompt (prefill: `batch` x `lin` tokens, on the GPU).
std::vector<LayerOp> prefillLayerOps(const LlmModel& m, std::int64_t batch, std::int64_t lin, int gpus,
                                     int bytes);

/// What follows the last decoder layer for `tokens` tokens (a decode step's batch; a prefill's last token of
/// each sequence): the final norm and the LM head (hidden -> vocab; each GPU computes its share of the
/// logits, the vocabulary padded to a multiple of the GPUs as Megatron pads it), both in Phase::LmHead; the
/// head has a GEMV for PIM when `decode`. Greedy sampling reduces each GPU's best logit with a few bytes per
/// sequence: not timed.
std::vector<LayerOp> lmHeadOps(const LlmModel& m, std::int64_t tokens, int gpus, int bytes, bool decode);
/// Bytes of the LM head's weights (all GPUs' shares, padding included).
std::int64_t lmHeadWeightBytes(const LlmModel& m, int gpus, int bytes);

/// Bytes of the weights one GPU's share of one layer holds, and of the K/V cache one token adds per layer.
std::int64_t layerWeightBytes(const LlmModel& m, int bytes);
std::int64_t kvBytesPerToken(const LlmModel& m, int bytes);

}  // namespace pim::llm
