// SPDX-License-Identifier: Apache-2.0
// LLMs as data (engine/llm/llm_model.h): the four shipped models load with the shapes DCC and AttAcc's
// simulator evaluate, their weight counts match figures computed by hand (and, with embeddings, the
// published totals), and every malformed model file is refused with one line naming the file, the field
// and the value.
#include <gtest/gtest.h>

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/common/data_dir.h"
#include "engine/common/error.h"
#include "engine/llm/llm_model.h"

namespace {

using namespace pim;
using namespace pim::llm;
using nlohmann::json;

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

// `text` is refused with one line holding every needle.
void expectRefused(const std::string& text, std::initializer_list<std::string> needles) {
  const std::string msg = errorOf([&] { parseLlmModel(text, "m.json"); });
  for (const std::string& n : needles)
    EXPECT_NE(msg.find(n), std::string::npos) << "message: " << msg << "\nexpected to contain: " << n;
  EXPECT_EQ(msg.rfind("m.json: ", 0), 0u) << "names the file first: " << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
}

// A valid model (GPT-3 13B's shape), edited by `edit`, as text.
std::string model(const std::function<void(json&)>& edit = {}) {
  json j = {{"name", "m"},      {"display", "M"},
            {"source", "test"}, {"layers", 40},
            {"hidden", 5120},   {"heads", 40},
            {"head_dim", 128},  {"ffn", {{"hidden", 20480}, {"gated", false}, {"activation", "gelu"}}},
            {"dtype", "fp16"}};
  if (edit) edit(j);
  return j.dump();
}

// Sets $PIMSCOPE_DATA for one scope (dataDir()'s rule), then puts the old value back.
class DataDirOverride {
 public:
  explicit DataDirOverride(const std::string& dir) {
    if (const char* old = std::getenv("PIMSCOPE_DATA")) m_saved = old;
    m_had = std::getenv("PIMSCOPE_DATA") != nullptr;
    setenv("PIMSCOPE_DATA", dir.c_str(), 1);
  }
  ~DataDirOverride() {
    if (m_had)
      setenv("PIMSCOPE_DATA", m_saved.c_str(), 1);
    else
      unsetenv("PIMSCOPE_DATA");
  }

 private:
  std::string m_saved;
  bool m_had = false;
};

std::string tempDir() {
  std::string dir = testing::TempDir() + "pimscope-llms-XXXXXX";
  if (!mkdtemp(dir.data())) ADD_FAILURE() << "mkdtemp " << dir;
  return dir;
}

TEST(LlmModel, TheFourShippedModelsAreListedSorted) {
  EXPECT_EQ(llmModelNames(), (std::vector<std::string>{"gpt-j-6b", "gpt3-13b", "llama2-33b", "llama2-70b",
                                                       "llama3-8b", "mt-nlg-310b"}));
  for (const std::string& name : llmModelNames()) {
    const LlmModel m = llmModelByName(name);
    EXPECT_EQ(m.name, name) << "the file's name is its stem";
    EXPECT_EQ(m.dtype, "fp16") << name;
  }
}

TEST(LlmModel, Gpt3_13bIsAttAccsGpt13b) {
  const LlmModel m = llmModelByName("gpt3-13b");
  EXPECT_EQ(m.display, "GPT-3 13B");
  EXPECT_EQ(m.layers, 40);
  EXPECT_EQ(m.hidden, 5120);
  EXPECT_EQ(m.heads, 40);
  EXPECT_EQ(m.kvHeads, 40);  // default: no grouped-query attention
  EXPECT_EQ(m.headDim, 128);
  EXPECT_EQ(m.ffn, (FfnShape{20480, false, "gelu"}));
  EXPECT_FALSE(m.parallelResidual);
  EXPECT_EQ(m.vocab, 50257);
  EXPECT_EQ(m.maxContext, 2048);
  // 4*5120^2 + 2*5120*20480 = 104,857,600 + 209,715,200; times 40 layers = 12.58e9.
  EXPECT_EQ(m.weightParamsPerLayer(), 314'572'800);
  EXPECT_EQ(m.layers * m.weightParamsPerLayer(), 12'582'912'000);
  EXPECT_EQ(m.kvElementsPerTokenPerLayer(), 10'240);  // 2 * 40 * 128
}

TEST(LlmModel, Llama2_33bHasLlama33bsShapeAndGatedFfn) {
  const LlmModel m = llmModelByName("llama2-33b");
  EXPECT_EQ(m.layers, 60);
  EXPECT_EQ(m.hidden, 6656);
  EXPECT_EQ(m.heads, 52);
  EXPECT_EQ(m.kvHeads, 52);
  EXPECT_EQ(m.headDim, 128);
  EXPECT_EQ(m.ffn, (FfnShape{17920, true, "silu"}));
  EXPECT_EQ(m.vocab, 32000);
  EXPECT_EQ(m.maxContext, 4096);
  // 4*6656^2 + 3*6656*17920 = 177,209,344 + 357,826,560; times 60 = 32.10e9.
  EXPECT_EQ(m.weightParamsPerLayer(), 535'035'904);
  EXPECT_EQ(m.layers * m.weightParamsPerLayer(), 32'102'154'240);
  // With the untied input and output embeddings (2*32000*6656) it is LLaMA's published 32.5B.
  EXPECT_EQ(m.layers * m.weightParamsPerLayer() + 2 * m.vocab * m.hidden, 32'528'138'240);
  EXPECT_NE(m.source.find("17749.33"), std::string::npos) << "says why not AttAcc's 8/3";
}

TEST(LlmModel, MtNlg310bIsAttAccsMt310b) {
  const LlmModel m = llmModelByName("mt-nlg-310b");
  EXPECT_EQ(m.layers, 96);
  EXPECT_EQ(m.hidden, 16384);
  EXPECT_EQ(m.heads, 128);
  EXPECT_EQ(m.headDim, 128);
  EXPECT_EQ(m.ffn, (FfnShape{65536, false, "gelu"}));
  EXPECT_EQ(m.vocab, 51200);
  EXPECT_EQ(m.maxContext, 0);  // not given
  // 4*16384^2 + 2*16384*65536 = 12*16384^2 = 3,221,225,472; times 96 = 3.09e11 (int64 holds it easily).
  EXPECT_EQ(m.weightParamsPerLayer(), 3'221'225'472);
  EXPECT_EQ(m.layers * m.weightParamsPerLayer(), 309'237'645'312);
  // With the tied embedding (51200*16384) it is Megatron's published 310.1B.
  EXPECT_EQ(m.layers * m.weightParamsPerLayer() + m.vocab * m.hidden, 310'076'506'112);
}

TEST(LlmModel, GptJ6bHasParallelResidualAndWideHeads) {
  const LlmModel m = llmModelByName("gpt-j-6b");
  EXPECT_EQ(m.layers, 28);
  EXPECT_EQ(m.hidden, 4096);
  EXPECT_EQ(m.heads, 16);
  EXPECT_EQ(m.headDim, 256);
  EXPECT_EQ(m.ffn, (FfnShape{16384, false, "gelu"}));
  EXPECT_TRUE(m.parallelResidual);
  EXPECT_EQ(m.vocab, 50400);
  EXPECT_EQ(m.maxContext, 2048);
  // 4*4096^2 + 2*4096*16384 = 67,108,864 + 134,217,728; times 28 = 5.64e9.
  EXPECT_EQ(m.weightParamsPerLayer(), 201'326'592);
  EXPECT_EQ(m.layers * m.weightParamsPerLayer(), 5'637'144'576);
  EXPECT_EQ(m.kvElementsPerTokenPerLayer(), 8'192);  // 2 * 16 * 256
}

// Grouped-query attention shrinks K and V (and the cache) but not Q and O: Llama 2 70B's shape.
TEST(LlmModel, GroupedQueryAttentionCountsKvHeadsForKAndV) {
  const LlmModel m = parseLlmModel(model([](json& j) {
                                     j["layers"] = 80, j["hidden"] = 8192, j["heads"] = 64, j["kv_heads"] = 8;
                                     j["ffn"] = {{"hidden", 28672}, {"gated", true}, {"activation", "silu"}};
                                   }),
                                   "m.json");
  EXPECT_EQ(m.kvHeads, 8);
  // 8192*(2*64*128 + 2*8*128) + 3*8192*28672 = 150,994,944 + 704,643,072.
  EXPECT_EQ(m.weightParamsPerLayer(), 855'638'016);
  EXPECT_EQ(m.kvElementsPerTokenPerLayer(), 2'048);  // 2 * 8 * 128
}

TEST(LlmModel, OptionalFieldsTakeTheirDefaultsAndHeadsNeedNotSpanHidden) {
  const LlmModel m = parseLlmModel(model([](json& j) { j["head_dim"] = 96; }), "m.json");
  EXPECT_EQ(m.kvHeads, 40);
  EXPECT_FALSE(m.parallelResidual);
  EXPECT_EQ(m.vocab, 0);
  EXPECT_EQ(m.maxContext, 0);
  EXPECT_EQ(m.headDim, 96);  // 40 * 96 != 5120 is allowed
  EXPECT_EQ(parseLlmModel(model([](json& j) { j["dtype"] = "fp8"; }), "m.json").dtype, "fp8");
}

TEST(LlmModel, BadFilesNameTheFieldAndTheValue) {
  expectRefused(model([](json& j) { j.erase("layers"); }), {"m.json: layers: missing"});
  expectRefused(model([](json& j) { j["layers"] = 0; }), {"m.json: layers: must be > 0, got 0"});
  expectRefused(model([](json& j) { j["layers"] = -3; }), {"layers: must be > 0, got -3"});
  expectRefused(model([](json& j) { j["layers"] = "40"; }),
                {"m.json: layers: must be a positive integer, got \"40\""});
  expectRefused(model([](json& j) { j["layers"] = 40.5; }), {"layers: must be a positive integer, got 40.5"});
  expectRefused(model([](json& j) { j["layer"] = j["layers"]; }),
                {"m.json: layer: unknown key; did you mean \"layers\"?", "known: name, display, source"});
  expectRefused(model([](json& j) { j["ffn"]["activation"] = "swish"; }),
                {"m.json: ffn.activation: unknown activation \"swish\" (known: gelu, relu, silu)"});
  expectRefused(model([](json& j) { j["kv_heads"] = 7; }), {"m.json: kv_heads: 7 does not divide heads 40"});
  expectRefused(model([](json& j) { j["kv_heads"] = 80; }), {"kv_heads: 80 does not divide heads 40"});
  expectRefused(R"({"name": "m", "layers": 40, "layers": 41})", {"m.json: layers: duplicate key"});
  const std::string full = model();
  expectRefused(full.substr(0, full.size() / 2), {"m.json: line 1, column ", "invalid JSON"});
}

TEST(LlmModel, OtherMalformedFieldsAreRefused) {
  expectRefused(model([](json& j) { j.erase("ffn"); }), {"m.json: ffn: missing"});
  expectRefused(model([](json& j) { j["ffn"] = 20480; }), {"ffn: must be an object, got 20480"});
  expectRefused(model([](json& j) { j["ffn"].erase("hidden"); }), {"m.json: ffn.hidden: missing"});
  expectRefused(model([](json& j) { j["ffn"]["hiden"] = 1; }),
                {"ffn.hiden: unknown key; did you mean \"hidden\"?"});
  expectRefused(model([](json& j) { j["ffn"]["gated"] = 1; }), {"ffn.gated: must be true or false, got 1"});
  expectRefused(model([](json& j) { j["parallel_residual"] = "yes"; }), {"parallel_residual: must be true"});
  expectRefused(model([](json& j) { j["dtype"] = "bf16"; }),
                {"dtype: unknown dtype \"bf16\" (known: fp16, fp8)"});
  expectRefused(model([](json& j) { j["name"] = ""; }), {"m.json: name: must not be empty"});
  expectRefused(model([](json& j) { j["display"] = 13; }), {"display: must be a string, got 13"});
  expectRefused(model([](json& j) { j.erase("source"); }), {"source: missing"});
  expectRefused(model([](json& j) { j["head_dim"] = 0; }), {"head_dim: must be > 0, got 0"});
  expectRefused(model([](json& j) { j["kv_heads"] = 0; }), {"kv_heads: must be > 0, got 0"});
  expectRefused(model([](json& j) { j["vocab"] = 0; }), {"vocab: must be > 0, got 0"});
  expectRefused(model([](json& j) { j["max_context"] = nullptr; }),
                {"max_context: must be a positive integer"});
  expectRefused(model([](json& j) { j["zzz"] = 1; }), {"zzz: unknown key; (known: name,"});
  expectRefused("[1, 2]", {"m.json: must be a JSON object describing one model"});
  expectRefused(R"({"layers": 1e400})", {"m.json: line 1, column", "invalid JSON"});
  expectRefused(R"({"a": {"b": {"a": 1, "a": 2}}})", {"m.json: a.b.a: duplicate key"});
}

TEST(LlmModel, SizesAboveTheLimitsAreRefusedWithTheLimit) {
  expectRefused(model([](json& j) { j["layers"] = 1001; }), {"layers: 1001 is above the limit of 1000"});
  expectRefused(model([](json& j) { j["hidden"] = (1 << 20) + 1; }),
                {"hidden: 1048577 is above the limit of 1048576"});
  expectRefused(model([](json& j) { j["heads"] = (1 << 14) + 1; }),
                {"heads: 16385 is above the limit of 16384"});
  expectRefused(model([](json& j) { j["ffn"]["hidden"] = (1 << 22) + 1; }),
                {"ffn.hidden: 4194305 is above the limit of 4194304"});
  expectRefused(model([](json& j) { j["layers"] = std::uint64_t{18446744073709551615u}; }),
                {"layers: 18446744073709551615 is above the limit of 1000"});
  // At the limits the model loads and its counts do not overflow.
  const LlmModel big =
      parseLlmModel(model([](json& j) {
                      j["layers"] = kMaxLayers, j["hidden"] = kMaxHidden, j["heads"] = kMaxHeads;
                      j["head_dim"] = kMaxHeadDim;
                      j["ffn"] = {{"hidden", kMaxFfnHidden}, {"gated", true}, {"activation", "silu"}};
                    }),
                    "m.json");
  // 2^20 * 4 * 2^30 + 3 * 2^20 * 2^22 = 2^52 + 3 * 2^42.
  EXPECT_EQ(big.weightParamsPerLayer(), (std::int64_t{1} << 52) + 3 * (std::int64_t{1} << 42));
}

// A hand-built model is not bounded by the loader: the counts throw instead of wrapping.
TEST(LlmModel, CountsThrowInsteadOfOverflowing) {
  LlmModel m;
  m.name = "huge";
  m.hidden = std::int64_t{1} << 40;
  m.heads = m.kvHeads = std::int64_t{1} << 20;
  m.headDim = std::int64_t{1} << 10;
  m.ffn = {1, false, "gelu"};
  const std::string msg = errorOf([&] { m.weightParamsPerLayer(); });
  EXPECT_NE(msg.find("LLM model 'huge': weights per layer"), std::string::npos) << msg;
  EXPECT_NE(msg.find("overflows"), std::string::npos) << msg;
  m.kvHeads = std::int64_t{1} << 62;
  EXPECT_NE(errorOf([&] { m.kvElementsPerTokenPerLayer(); }).find("overflows"), std::string::npos);
}

TEST(LlmModel, ByNameTakesAShippedNameOrAPath) {
  const std::string path = dataDir() + "/llms/gpt3-13b.json";
  EXPECT_EQ(llmModelByName(path), llmModelByName("gpt3-13b"));
  EXPECT_EQ(loadLlmModelFile(path), llmModelByName("gpt3-13b"));
  const std::string unknown = errorOf([] { llmModelByName("gpt-4"); });
  EXPECT_NE(unknown.find("LLM model 'gpt-4': not a shipped model (known: gpt-j-6b, gpt3-13b, llama2-33b, "
                         "llama2-70b, llama3-8b, mt-nlg-310b)"),
            std::string::npos)
      << unknown;
  EXPECT_NE(errorOf([] { llmModelByName(""); }).find("not a shipped model"), std::string::npos);
  EXPECT_NE(errorOf([] { llmModelByName(".gpt3-13b"); }).find("not a shipped model"), std::string::npos);
  // A path is read as a path: a missing file is named, not looked up among the shipped names.
  const std::string missing = errorOf([] { llmModelByName("no/such/model.json"); });
  EXPECT_NE(missing.find("no/such/model.json: cannot open language-model file"), std::string::npos)
      << missing;
}

TEST(LlmModel, FileErrorsNameThePath) {
  const std::string dir = tempDir();
  const std::string file = dir + "/bad.json";
  std::ofstream(file) << model([](json& j) { j["layers"] = 0; });
  EXPECT_EQ(errorOf([&] { loadLlmModelFile(file); }), file + ": layers: must be > 0, got 0");
  EXPECT_NE(errorOf([&] { loadLlmModelFile(dir); }).find(dir + ": is a directory, not a language-model file"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// A user adds a model with one file; $PIMSCOPE_DATA moves the shipped ones with the rest of the data.
TEST(LlmModel, OneFileAddsAModel) {
  const std::string dir = tempDir();
  std::filesystem::create_directory(dir + "/llms");
  std::ofstream(dir + "/llms/mine.json") << model([](json& j) { j["name"] = "My model"; });
  std::ofstream(dir + "/llms/notes.txt") << "not a model";
  {
    const DataDirOverride data(dir);
    EXPECT_EQ(llmModelNames(), std::vector<std::string>{"mine"});
    EXPECT_EQ(llmModelByName("mine").name, "My model");
    EXPECT_NE(errorOf([] { llmModelByName("gpt3-13b"); }).find("(known: mine)"), std::string::npos);
  }
  {
    const DataDirOverride data(dir + "/nowhere");
    EXPECT_NE(errorOf([] { llmModelNames(); }).find("/nowhere/llms: LLM model directory not found"),
              std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
