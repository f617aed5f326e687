// SPDX-License-Identifier: Apache-2.0
// `simulate` on upmem as PrIM's and CoMoNM's experiments are run: PrIM's NR_DPUS (--dpus), tasklets
// (--tasklets), every instruction simulated (--no-extrapolation) and CoMoNM's mapping files (mapping:FILE);
// each refused with one line and exit code 2 where it does not apply.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_run.h"
#include "tests/test_util.h"

namespace {

#ifdef PIMSCOPE_CLI
using pim::test::cli;
using pim::test::CliRun;

const std::string kVa = "simulate -b upmem -k va --dims n=2621440 --dtype i32 ";

nlohmann::json jsonOf(const std::string& args) { return pim::test::cliJson(args + " --json"); }
using pim::test::expectCliRefused;

std::string mappingFile(const std::string& name, const std::string& text) {
  const std::string path = pim::test::cliScratch().file(name);
  pim::test::writeBytes(path, text);
  return path;
}

// PrIM's strong-scaling runs: 1, 4, 16 and 64 DPUs of one rank; more DPUs never slow the DPU kernel down.
TEST(CliUpmem, DpusRunsPrimOnThatManyDpus) {
  double previous = 0;
  for (int dpus : {1, 4, 16, 64}) {
    const auto j = jsonOf(kVa + "--dpus " + std::to_string(dpus));
    EXPECT_EQ(j["upmem"]["dpus"], dpus);
    EXPECT_EQ(j["upmem"]["tasklets"], 16);
    const double kernel = j["upmem"]["dpu_kernel_ms"].get<double>();
    if (previous > 0) {
      EXPECT_LT(kernel, previous) << dpus;
    }
    previous = kernel;
  }
  expectCliRefused(kVa + "--dpus 100", {"--schedule vendor", "100 DPUs", "multiple"});
  expectCliRefused(kVa + "--dpus 0", {"--dpus: 0"});
  expectCliRefused(kVa + "--dpus 4 -s draft:0", {"--dpus", "draft:0"});
  expectCliRefused("simulate -b hbm-pim -k va --dpus 4", {"--dpus", "only upmem"});
}

TEST(CliUpmem, TaskletsIsTheParameterShorthand) {
  const auto j = jsonOf(kVa + "--dpus 1 --tasklets 8");
  EXPECT_EQ(j["upmem"]["tasklets"], 8);
  EXPECT_EQ(j["what_if"]["pim.tasklets"]["value"], 8);
  EXPECT_NE(j["schedule"]["summary"].get<std::string>().find("8 tasklets"), std::string::npos);
  EXPECT_EQ(jsonOf(kVa + "--dpus 1 --tasklets 8 --set pim.tasklets=8")["cycles"],
            j["cycles"]);  // the same value twice is no conflict
  expectCliRefused(kVa + "--tasklets 8 --set pim.tasklets=4",
                   {"--tasklets", "conflicts with --set pim.tasklets=4"});
  expectCliRefused(kVa + "--tasklets 25", {"pim.tasklets"});
  expectCliRefused("simulate -b attacc -k va --tasklets 8", {"--tasklets", "only upmem"});
}

TEST(CliUpmem, NoExtrapolationSimulatesEveryInstruction) {
  const auto sliced = jsonOf(kVa + "--dpus 4");
  const auto full = jsonOf(kVa + "--dpus 4 --no-extrapolation");
  EXPECT_EQ(sliced["upmem"]["extrapolated"], 1);
  EXPECT_EQ(full["upmem"]["extrapolated"], 0);
  EXPECT_NEAR(sliced["upmem"]["dpu_kernel_ms"].get<double>() / full["upmem"]["dpu_kernel_ms"].get<double>(),
              1.0, 0.01);
  expectCliRefused("simulate -b hbm-pim -k va --no-extrapolation", {"--no-extrapolation", "only upmem"});
}

TEST(CliUpmem, MappingFileIsASchedule) {
  const std::string text = mappingFile("va.map",
                                       "# VA on 4 DPUs, 8 tasklets (CoMoNM's notation)\n"
                                       "Upmem_map: [ M1: {(1, 1), (1, 4), (1, 8), (1, 81920)} ]\n");
  const auto j = jsonOf(kVa + "-s mapping:" + text);
  EXPECT_EQ(j["schedule"]["kind"], "mapping");
  EXPECT_EQ(j["upmem"]["dpus"], 4);
  EXPECT_EQ(j["upmem"]["tasklets"], 8);
  // The same draft as PrIM's on 4 DPUs with 8 tasklets: the same host plan and DPU programs, except PrIM's
  // output assignment, which element-wise kernels do not have.
  EXPECT_EQ(j["cycles"], jsonOf(kVa + "--dpus 4 --tasklets 8")["cycles"]);
  const std::string json = mappingFile(
      "va.json", R"({"target": "upmem", "maps": [{"levels": [[1, 1], [1, 4], [1, 8], [1, 81920]]}],
                     "block_bytes": 512})");
  const auto jj = jsonOf(kVa + "-s mapping:" + json);
  EXPECT_EQ(jj["what_if"]["pim.blockBytes"]["value"], 512);

  const std::string bad =
      mappingFile("bad.map", "Upmem_map: [\n  M1: {(1, 1), (1, 4), (1, 8), (1, 8192)}\n]\n");
  expectCliRefused(kVa + "-s mapping:" + bad,
                   {"bad.map:2:3", "dimension 2 (i)", "4 x 8 x 8192 = 262144", "2621440"});
  expectCliRefused(kVa + "--tasklets 4 -s mapping:" + text,
                   {"--tasklets", "the mapping file gives the tasklets"});
  expectCliRefused(kVa + "--set pim.tasklets=4 -s mapping:" + text, {"mapping file", "conflicts with --set"});
  expectCliRefused(kVa + "-s mapping:" + pim::test::cliScratch().path(), {"is a directory"});
}
// CoMoNM's sub-maps (Fig. 8b): each runs over its box as the kernel of that size, with its own tasklets; the
// host adds the partial results of a reduction split across them.
TEST(CliUpmem, SubMapsRunOneAfterAnother) {
  const std::string gemv = "simulate -b upmem -k gemv --dims b=1,out=512,in=1152 --dtype i32 ";
  const std::string text = mappingFile("halves.map",
                                       "Upmem_map: [\n"
                                       "  M2: {(1, 2, 1), (1, 64, 1), (1, 1, 8), (1, 4, 72)},\n"
                                       "  M1: {(1, 2, 1), (1, 64, 1), (1, 1, 4), (1, 4, 144)},\n"
                                       "]\n");
  const auto j = jsonOf(gemv + "-s mapping:" + text);
  const auto& subs = j["schedule"]["sub_maps"];
  ASSERT_EQ(subs.size(), 2u) << j.dump();
  EXPECT_EQ(subs[0]["name"], "M1");                             // the order of the indices
  EXPECT_EQ(subs[0]["box_lo"], (std::vector<int>{0, 0, 576}));  // placed second, after M2
  EXPECT_EQ(subs[0]["shape"], "b=1,out=512,in=576");
  EXPECT_EQ(subs[0]["evaluation"]["upmem"]["tasklets"], 4);
  EXPECT_EQ(subs[0]["settings"]["pim.tasklets"], 4);
  EXPECT_EQ(subs[1]["evaluation"]["upmem"]["tasklets"], 8);
  EXPECT_EQ(j["schedule"]["merge"]["partials"], 512);
  EXPECT_EQ(j["upmem"]["launches"], 2);
  EXPECT_EQ(j["cycles"]["total"].get<std::int64_t>(),
            subs[0]["evaluation"]["cycles"]["total"].get<std::int64_t>() +
                subs[1]["evaluation"]["cycles"]["total"].get<std::int64_t>() +
                j["schedule"]["merge"]["cycles"].get<std::int64_t>());
  const CliRun r = cli(gemv + "-s mapping:" + text);
  EXPECT_NE(r.out.find("M1 over [0, 1) x [0, 512) x [576, 1152) (b=1,out=512,in=576, pim.tasklets=4)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("host merge of 512 partial results"), std::string::npos) << r.out;
  expectCliRefused(gemv + "--set pim.tasklets=8 -s mapping:" + text,
                   {"halves.map:3:3: M1 sets pim.tasklets to 4", "conflicts with --set pim.tasklets=8"});
  const std::string gap = mappingFile("gap.map",
                                      "Upmem_map: [ M1: {(1, 2, 1), (1, 64, 1), (1, 1, 4), (1, 4, 144)} ,\n"
                                      "             M2: {(1, 2, 1), (1, 64, 1), (1, 1, 4), (1, 4, 100)} ]\n");
  expectCliRefused(gemv + "-s mapping:" + gap, {"iteration (0, 0, 976)", "in no sub-map"});
  expectCliRefused(gemv + "-s mapping:" + text + " --trace " + pim::test::cliScratch().file("t.json"),
                   {"--trace", "2 sub-maps", "one at a time"});
}

TEST(CliUpmem, PrimSearchIsAScheduleAndAnExploreBaseline) {
  const auto j = jsonOf(kVa + "-s prim-search");
  EXPECT_EQ(j["schedule"]["kind"], "prim-search");
  EXPECT_NE(j["schedule"]["summary"].get<std::string>().find("PrIM+search"), std::string::npos);
  EXPECT_LE(j["cycles"]["total"].get<double>(), jsonOf(kVa + "-s vendor")["cycles"]["total"].get<double>());
  const auto e = jsonOf("explore -b upmem -k va --dims n=16384 --dtype i32");
  ASSERT_TRUE(e["baselines"]["prim_search"].is_object()) << e.dump();
  EXPECT_TRUE(e["speedup"]["vs_prim_search"].is_number());
  expectCliRefused("simulate -b hbm-pim -k va -s prim-search", {"'prim-search' is not vendor, gpu, draft"});
}
#endif

}  // namespace
