// SPDX-License-Identifier: Apache-2.0
// Decoder-only LLMs as data: one JSON file per model, datasets/llms/<name>.json, holding the shape a PIM
// evaluation needs (layers, width, heads, grouped-query K/V heads, FFN width and kind, element type) and the
// source of every number. A user adds a model by adding one file; a file that loads is consistent (every
// size positive and below a sane limit, heads a multiple of kv_heads, no unknown key), so a consumer never
// re-checks what it reads.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pim::llm {

/// Largest sizes accepted. Far above any published model (MT-NLG 530B: 105 layers, width 20480, 128 heads,
/// FFN 81920), they only stop absurd input before products of sizes grow near int64's range.
inline constexpr std::int64_t kMaxLayers = 1000;
inline constexpr std::int64_t kMaxHidden = std::int64_t{1} << 20;
inline constexpr std::int64_t kMaxHeads = std::int64_t{1} << 14;
inline constexpr std::int64_t kMaxFfnHidden = std::int64_t{1} << 22;
inline constexpr std::int64_t kMaxHeadDim = std::int64_t{1} << 16;
inline constexpr std::int64_t kMaxVocab = std::int64_t{1} << 24;
inline constexpr std::int64_t kMaxContext = std::int64_t{1} << 30;

/// The feed-forward block. Not gated: up (hidden x ffn.hidden), activation, down. Gated (SwiGLU, GeGLU): two
/// up projections, one through the activation, multiplied element-wise, then down.
struct FfnShape {
  std::int64_t hidden = 0;
  bool gated = false;
  std::string activation;  // "gelu", "relu" or "silu"
  bool operator==(const FfnShape&) const = default;
};

struct LlmModel {
  std::string name;     // the file's "name"; the registry name is the file stem
  std::string display;  // for tables: "GPT-3 13B"
  std::string source;   // where the numbers come from
  std::string dtype;    // default element type: "fp16" or "fp8"
  std::int64_t layers = 0, hidden = 0, heads = 0;
  std::int64_t kvHeads = 0;     // == heads unless grouped-query attention
  std::int64_t headDim = 0;     // heads * headDim need not equal hidden (some models differ)
  std::int64_t vocab = 0;       // 0: not given
  std::int64_t maxContext = 0;  // 0: not given
  FfnShape ffn;
  bool parallelResidual = false;  // attention and FFN read the same input (GPT-J)
  bool operator==(const LlmModel&) const = default;

  /// Weights of one decoder layer, biases and norms left out: Q hidden*heads*headDim, K and V
  /// hidden*kvHeads*headDim each, O heads*headDim*hidden, FFN (gated ? 3 : 2)*hidden*ffn.hidden. Throws
  /// InputError should the count overflow int64 (only a hand-built model can; a loaded one is bounded).
  std::int64_t weightParamsPerLayer() const;
  /// K and V elements one token adds to one layer's cache: 2*kvHeads*headDim.
  std::int64_t kvElementsPerTokenPerLayer() const;
};

/// Parses one model file. Every error is one InputError line "<origin>: <field>: <problem>" quoting the
/// value: malformed JSON (through parseJsonInput: syntax, depth, a duplicate key, 1e400), a missing field, a
/// wrong type, a non-integer, a size <= 0 or above its limit, an unknown activation or dtype, an unknown key
/// (a typo must not be silently ignored), heads not a multiple of kv_heads.
LlmModel parseLlmModel(std::string_view jsonText, std::string_view origin);

/// parseLlmModel of a file, checked to be a regular file first (a directory or FIFO is refused by name).
LlmModel loadLlmModelFile(const std::string& path);

/// The shipped models: the stems of <data>/llms/*.json ($PIMSCOPE_DATA if set, else the source tree's
/// datasets/), sorted. Throws InputError when the directory is missing.
std::vector<std::string> llmModelNames();

/// A shipped model by name ("gpt3-13b"), or a model file by path (anything with a '/' or ending in ".json").
/// An unknown name throws InputError listing the shipped names.
LlmModel llmModelByName(std::string_view nameOrPath);

}  // namespace pim::llm
