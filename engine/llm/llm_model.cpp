// SPDX-License-Identifier: Apache-2.0
#include "engine/llm/llm_model.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <utility>

#include "engine/common/checked.h"
#include "engine/common/data_dir.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/json_fields.h"
#include "engine/common/json_input.h"

namespace pim::llm {
namespace {

using nlohmann::json;
using Names = std::span<const std::string_view>;

constexpr std::array<std::string_view, 13> kTopKeys{
    "name", "display",           "source", "layers",      "hidden", "heads", "kv_heads", "head_dim",
    "ffn",  "parallel_residual", "vocab",  "max_context", "dtype"};
constexpr std::array<std::string_view, 3> kFfnKeys{"hidden", "gated", "activation"};
constexpr std::array<std::string_view, 3> kActivations{"gelu", "relu", "silu"};
constexpr std::array<std::string_view, 2> kDtypes{"fp16", "fp8"};

std::string listed(Names names) {
  std::string s;
  for (std::string_view n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

std::string quote(const json& v) { return quoteJson(v); }

// Reads the fields of one JSON object. Every error is one line: the file, the field's path ("ffn.hidden")
// and the value, so a user finds the spot without guessing.
class Fields : public JsonFields<Fields> {
 public:
  using JsonFields::JsonFields;

  // A count: an integer in 1..max. Anything else (a string "40", 40.5, 0, -1) is refused, not converted.
  std::int64_t count(std::string_view key, std::int64_t max) const {
    const json& v = at(key);
    if (!v.is_number_integer()) fail(key, "must be a positive integer, got " + quote(v));
    // nlohmann keeps a non-negative integer as unsigned, possibly above int64's range: compare it as one.
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(max))
      fail(key, quote(v) + " is above the limit of " + std::to_string(max));
    const std::int64_t x = v.get<std::int64_t>();
    if (x <= 0) fail(key, "must be > 0, got " + quote(v));
    return x;
  }
  std::int64_t count(std::string_view key, std::int64_t max, std::int64_t dflt) const {
    return has(key) ? count(key, max) : dflt;
  }
  // Only true or false: a 0/1 flag could as well be a count typed into the wrong field.
  bool flag(std::string_view key, std::optional<bool> dflt = std::nullopt) const {
    if (!has(key) && dflt) return *dflt;
    if (!at(key).is_boolean()) fail(key, "must be true or false, got " + quote(at(key)));
    return at(key).get<bool>();
  }
  std::string text(std::string_view key) const {
    if (!at(key).is_string()) fail(key, "must be a string, got " + quote(at(key)));
    std::string s = at(key).get<std::string>();
    if (s.empty()) fail(key, "must not be empty");
    return s;
  }
  // One of `known`; `what` names the kind in the message ("unknown activation \"swish\"").
  std::string choice(std::string_view key, Names known, std::string_view what) const {
    std::string s = text(key);
    if (std::find(known.begin(), known.end(), s) == known.end())
      fail(key, "unknown " + std::string(what) + " " + quote(at(key)) + " (known: " + listed(known) + ")");
    return s;
  }
  // Refuses the first key not in `known`, suggesting the nearest known one for a likely typo.
  void refuseUnknownKeys(Names known) const {
    for (const auto& [key, value] : m_obj.items()) {
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      std::string_view nearest;
      std::size_t best = 3;  // suggest only within two edits
      for (std::string_view k : known)
        if (const std::size_t d = editDistance(key, k); d < best) best = d, nearest = k;
      const std::string hint = nearest.empty() ? "" : "did you mean \"" + std::string(nearest) + "\"? ";
      fail(key, "unknown key; " + hint + "(known: " + listed(known) + ")");
    }
  }
};

FfnShape readFfn(const Fields& top) {
  const Fields f = top.object("ffn");
  f.refuseUnknownKeys(kFfnKeys);
  FfnShape ffn;
  ffn.hidden = f.count("hidden", kMaxFfnHidden);
  ffn.gated = f.flag("gated");
  ffn.activation = f.choice("activation", kActivations, "activation");
  return ffn;
}

// Attention: kv_heads K/V heads each serve heads / kv_heads query heads, so kv_heads must divide heads.
void readAttention(const Fields& r, LlmModel& m) {
  m.heads = r.count("heads", kMaxHeads);
  m.kvHeads = r.count("kv_heads", kMaxHeads, m.heads);
  if (m.heads % m.kvHeads != 0)
    r.fail("kv_heads", std::to_string(m.kvHeads) + " does not divide heads " + std::to_string(m.heads) +
                           " (grouped-query attention shares each K/V head among heads / kv_heads heads)");
  m.headDim = r.count("head_dim", kMaxHeadDim);
}

std::string llmDir() { return dataDir() + "/llms"; }

// A path names a file ("my/model.json", "model.json"); anything else is a shipped model's name.
bool isPath(std::string_view s) {
  return s.find_first_of("/\\") != std::string_view::npos || s.ends_with(".json");
}

}  // namespace

std::int64_t LlmModel::weightParamsPerLayer() const {
  const std::string what = "LLM model '" + name + "': weights per layer";
  const std::int64_t qWidth = checkedMul(heads, headDim, what);
  const std::int64_t kvWidth = checkedMul(kvHeads, headDim, what);
  // Q and O are hidden x heads*headDim each; K and V hidden x kvHeads*headDim each.
  const std::int64_t attention = checkedMul(
      hidden,
      checkedAdd(checkedMul<std::int64_t>(2, qWidth, what), checkedMul<std::int64_t>(2, kvWidth, what), what),
      what);
  const std::int64_t ffnWeights =
      checkedMul(checkedMul<std::int64_t>(ffn.gated ? 3 : 2, hidden, what), ffn.hidden, what);
  return checkedAdd(attention, ffnWeights, what);
}

std::int64_t LlmModel::kvElementsPerTokenPerLayer() const {
  return checkedMul<std::int64_t>(2, checkedMul(kvHeads, headDim, "LLM model '" + name + "': K/V width"),
                                  "LLM model '" + name + "': K/V elements per token");
}

LlmModel parseLlmModel(std::string_view jsonText, std::string_view origin) {
  const json doc = parseJsonInput<json>(jsonText, origin);
  const std::string where(origin);
  if (!doc.is_object())
    throw InputError(where + ": must be a JSON object describing one model, got " + quote(doc));
  const Fields r(doc, where);
  r.refuseUnknownKeys(kTopKeys);
  LlmModel m;
  m.name = r.text("name");
  m.display = r.text("display");
  m.source = r.text("source");
  m.layers = r.count("layers", kMaxLayers);
  m.hidden = r.count("hidden", kMaxHidden);
  readAttention(r, m);
  m.ffn = readFfn(r);
  m.parallelResidual = r.flag("parallel_residual", false);
  m.vocab = r.count("vocab", kMaxVocab, 0);
  m.maxContext = r.count("max_context", kMaxContext, 0);
  m.dtype = r.choice("dtype", kDtypes, "dtype");
  return m;
}

LlmModel loadLlmModelFile(const std::string& path) {
  return parseLlmModel(readInputFile(path, "language-model file"), path);
}

std::vector<std::string> llmModelNames() {
  namespace fs = std::filesystem;
  const fs::path dir = llmDir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string() + ": LLM model directory not found");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

LlmModel llmModelByName(std::string_view nameOrPath) {
  namespace fs = std::filesystem;
  if (isPath(nameOrPath)) return loadLlmModelFile(std::string(nameOrPath));
  const fs::path file = fs::path(llmDir()) / (std::string(nameOrPath) + ".json");
  std::error_code ec;
  // A name is a file stem in the directory (anything with a '/' went the path way above); a hidden file
  // (".x") is not a shipped model.
  if (!nameOrPath.empty() && nameOrPath.front() != '.' && fs::is_regular_file(file, ec))
    return loadLlmModelFile(file.string());
  std::string known;
  for (const std::string& n : llmModelNames()) known += (known.empty() ? "" : ", ") + n;
  throw InputError("LLM model '" + std::string(nameOrPath) + "': not a shipped model (known: " + known +
                   "); give a path to a .json file for a model of your own");
}

}  // namespace pim::llm
