// SPDX-License-Identifier: Apache-2.0
// `pimscope-cli llms`, `llm` and `serve` as a user runs them: the issue's JSON fields, the CSV exports, and
// one clear line for every bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/cli_run.h"
#include "tests/test_util.h"

namespace {

#ifdef PIMSCOPE_CLI
using pim::test::cli;
using pim::test::cliJson;
using pim::test::expectCliRefused;

TEST(CliLlm, LlmsListsTheShippedModels) {
  const auto j = cliJson("llms --json");
  ASSERT_EQ(j.size(), 6U);
  EXPECT_EQ(j[1]["model"], "gpt3-13b");
  EXPECT_EQ(j[1]["weight_params"], 12582912000LL);
  EXPECT_EQ(j[3]["model"], "llama2-70b");
  EXPECT_EQ(j[3]["kv_heads"], 8);
  EXPECT_EQ(j[3]["weight_params"], 68451041280LL);  // 80 x (8192 x (2 x 8192 + 2 x 1024) + 3 x 8192 x 28672)
}

TEST(CliLlm, JsonHasTheIssuesFields) {
  const auto j = cliJson("llm --model gpt3-13b --system gpu,attacc-full --batch 2 --lin 64 --lout 4 --json");
  EXPECT_EQ(j["model"], "gpt3-13b");
  EXPECT_EQ(j["batch"], 2);
  EXPECT_EQ(j["lin"], 64);
  EXPECT_EQ(j["lout"], 4);
  ASSERT_EQ(j["systems"].size(), 2U);
  for (const auto& s : j["systems"]) {
    ASSERT_TRUE(s["available"].get<bool>()) << s.dump();
    for (const char* k : {"mean", "first", "last"}) EXPECT_GT(s["time_per_token_ms"][k].get<double>(), 0);
    for (const char* k : {"qkv", "attention", "projection", "ffn", "other", "communication"})
      EXPECT_TRUE(s["breakdown_ms"].contains(k)) << k;
    EXPECT_GT(s["total_ms"].get<double>(), 0);
    EXPECT_GT(s["tokens_per_s"].get<double>(), 0);
    EXPECT_GT(s["energy_per_token_mj"].get<double>(), 0);
    EXPECT_FALSE(s["decisions"].empty());
    EXPECT_EQ(s["per_token_ms"].size(), 3U);
  }
  EXPECT_EQ(j["systems"][1]["decisions"][1]["where"], "pim");  // attention on AttAcc
}

TEST(CliLlm, CsvExportsTheSeriesAndTheDecisions) {
  pim::test::TempDir dir;
  const std::string tokens = dir.file("tokens.csv"), decisions = dir.file("decisions.csv");
  const auto r =
      cli("llm --system gpu,attacc-base --lin 32 --lout 3 --csv " + tokens + " --decisions-csv " + decisions);
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream t(tokens), d(decisions);
  std::stringstream tss, dss;
  tss << t.rdbuf();
  dss << d.rdbuf();
  const std::string ts = tss.str(), ds = dss.str();
  EXPECT_EQ(ts.rfind("system,step,context,ms,compile_ms,relayout_ms,qkv_ms", 0), 0U);
  EXPECT_EQ(std::count(ts.begin(), ts.end(), '\n'), 1 + 2 * 2);  // header, 2 systems x 2 steps
  EXPECT_NE(ds.find("attacc-base,attention,attention,\"attn[b=1,h=40,l=33..34,d=128]\",pim,vendor"),
            std::string::npos)
      << ds;
}

TEST(CliLlm, BadInputIsOneLineNamingIt) {
  expectCliRefused("llm --batch 0", {"--batch", "0"});
  expectCliRefused("llm --lout 1", {"--lout", "2.."});
  expectCliRefused("llm --system gpu,attac", {"unknown system 'attac'", "attacc-full+dcc"});
  expectCliRefused("llm --model gpt5", {"gpt5", "gpt3-13b"});
  expectCliRefused("llm --dtype int4", {"--dtype", "int4"});
  expectCliRefused("llm --gpus 8 --model llama2-33b", {"52", "8 GPUs"});
  expectCliRefused("serve --lin 300:200", {"--lin", "300:200"});
  expectCliRefused("serve --lin 1:x", {"--lin", "not a range"});
  expectCliRefused("serve --lookup sideways", {"--lookup", "sideways"});
}

TEST(CliLlm, AModelThatDoesNotFitIsRefusedWithTheNumbers) {
  const auto j = cliJson("llm --model mt-nlg-310b --system gpu --batch 8 --lin 128 --lout 2 --json");
  ASSERT_EQ(j["systems"].size(), 1U);
  EXPECT_FALSE(j["systems"][0]["available"].get<bool>());
  EXPECT_NE(j["systems"][0]["reason"].get<std::string>().find("GB of weights"), std::string::npos);
}
#endif

}  // namespace
