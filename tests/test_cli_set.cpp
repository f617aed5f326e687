// SPDX-License-Identifier: Apache-2.0
// `--set name=value`, the CLI's what-if panel: the same engine call as the window (Backend::setParameters),
// on every command that builds a problem, refused with exit code 2 naming the parameter when the text or the
// value is wrong, and never rounded, clamped or silently overwritten.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/core/problem.h"
#include "engine/search/baselines.h"
#include "engine/target/registry.h"
#include "tests/cli_run.h"
#include "tests/test_util.h"

namespace {

#ifdef PIMSCOPE_CLI
using pim::test::cli;
using pim::test::CliRun;
using pim::test::cliScratch;

using pim::test::cliJson;
using pim::test::expectCliRefused;

const std::string kGemv = "simulate -b hbm-pim -k gemv -d b=1,out=4096,in=4096 --schedule vendor --json";

/// What the window's what-if panel computes for the same edit: Backend::setParameters, then the vendor
/// schedule simulated with simulate's default options.
std::int64_t panelCycles(const std::vector<std::pair<std::string, double>>& changes) {
  pim::Backend b = pim::builtinBackends().get("hbm-pim");
  b.setParameters(changes);
  const pim::Kernel k = pim::resolveKernel("gemv", "");
  const pim::Problem p(b, k, pim::parseShape(k, "b=1,out=4096,in=4096"));
  const pim::Baseline vendor = pim::vendorBaseline(p, pim::EvalOptions{});
  EXPECT_TRUE(vendor.available) << vendor.reason;
  return vendor.eval.totalCycles;
}

TEST(CliSet, FewerDevicesMakeTheSameKernelSlowerAsInThePanel) {
  const auto shipped = cliJson(kGemv);
  const auto one = cliJson(kGemv + " --set system.devices=1");
  ASSERT_FALSE(shipped.empty());
  ASSERT_FALSE(one.empty());
  const auto cycles = [](const nlohmann::json& j) { return j["cycles"]["total"].get<std::int64_t>(); };
  EXPECT_GT(cycles(one), cycles(shipped));
  EXPECT_LT(one["banks_used"].get<int>(), shipped["banks_used"].get<int>());
  EXPECT_EQ(cycles(one), panelCycles({{"system.devices", 1}}));
  EXPECT_EQ(cycles(shipped), panelCycles({}));
  EXPECT_EQ(one["what_if"]["system.devices"]["value"], 1);
  EXPECT_EQ(one["what_if"]["system.devices"]["was"], 5);
  EXPECT_FALSE(shipped.contains("what_if"));  // outputs without --set are unchanged
}

TEST(CliSet, ShorterRefreshIntervalCostsCyclesAsInThePanel) {
  const auto shipped = cliJson(kGemv);
  const auto often = cliJson(kGemv + " --set timing.tREFI=1000");
  ASSERT_FALSE(often.empty());
  EXPECT_GT(often["cycles"]["total"].get<std::int64_t>(), shipped["cycles"]["total"].get<std::int64_t>());
  EXPECT_EQ(often["cycles"]["total"].get<std::int64_t>(), panelCycles({{"timing.tREFI", 1000}}));
}

TEST(CliSet, HumanOutputSaysWhatChanged) {
  const CliRun r =
      cli("drafts -b hbm-pim -k red -d b=1,n=1024 --set system.devices=1 --set timing.tREFI=5070");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("what-if: system.devices=1 (was 5), timing.tREFI=5070 (as shipped)\n", 0), 0u)
      << r.out;
  const CliRun plain = cli("drafts -b hbm-pim -k red -d b=1,n=1024");
  EXPECT_EQ(plain.out.find("what-if"), std::string::npos) << plain.out;
}

TEST(CliSet, EveryProblemCommandTakesIt) {
  const std::string set = " --set system.devices=1 --json";
  const std::string red = " -b hbm-pim -k red -d b=1,n=1024";
  const auto drafts = cliJson("drafts" + red + " --limit 1" + set);
  ASSERT_FALSE(drafts.empty());
  EXPECT_EQ(drafts["groups"], 16);  // 1 device x 16 groups (80 as shipped)
  const std::string id = std::to_string(drafts["drafts"][0]["id"].get<std::uint64_t>());
  for (const std::string& args :
       {"drafts" + red + set, "why" + red + " --draft " + id + set, "simulate" + red + set,
        "explore" + red + set, "export" + red + " --format ir --out " + cliScratch().file("x.ir") + set}) {
    const auto j = cliJson(args);
    EXPECT_EQ(j["what_if"]["system.devices"]["value"], 1) << args;
  }
  const std::string suite = cliScratch().file("set_suite.json");
  std::ofstream(suite) << R"({"name": "set", "description": "--set on evaluate",
    "kernels": {"red": ["b=1,n=1024"]}})";
  const auto evaluated = cliJson("evaluate -b hbm-pim -k red --suite " + suite + set);
  EXPECT_EQ(evaluated["what_if"]["system.devices"]["was"], 5);
  EXPECT_EQ(evaluated["configs"], 1);
  EXPECT_EQ(cli("ir" + red + " --draft " + id + " --set system.devices=1").code, 0);
}

// compare applies a --set to every compared backend that declares the parameter and says which do not.
TEST(CliSet, CompareChangesEveryBackendThatDeclaresIt) {
  const std::string args = "compare --backends hbm-pim,upmem -k red -d b=1,n=4096 --set timing.tREFI=2000";
  const auto j = cliJson(args + " --json");
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j["what_if"]["hbm-pim"]["timing.tREFI"]["value"], 2000);
  EXPECT_TRUE(j["what_if"]["upmem"].empty());  // upmem has no DRAM timing section
  const CliRun r = cli(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("what-if on hbm-pim: timing.tREFI=2000 (was 5070)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("what-if on upmem: as shipped; timing.tREFI not declared, left out\n"),
            std::string::npos)
      << r.out;
  const auto both =
      cliJson("compare --backends hbm-pim,attacc -k red -d b=1,n=4096 --set system.devices=1 --json");
  EXPECT_EQ(both["what_if"]["hbm-pim"]["system.devices"]["value"], 1);
  EXPECT_EQ(both["what_if"]["attacc"]["system.devices"]["value"], 1);
  expectCliRefused("compare --backends hbm-pim,upmem -k red --set timing.tREFX=2000",
                   {"timing.tREFX", "none of hbm-pim, upmem", "did you mean timing.tREFI"});
}

TEST(CliSet, BadTextOrValuesAreRefusedNamingTheParameter) {
  const std::string red = "drafts -b hbm-pim -k red -d b=1,n=1024 --set ";
  expectCliRefused(red + "system.device=1", {"system.device", "did you mean system.devices"});
  expectCliRefused(red + "devices=1", {"'devices'", "did you mean system.devices"});
  expectCliRefused(red + "nothing.like.it=1", {"nothing.like.it", "pimscope-cli params -b hbm-pim"});
  expectCliRefused(red + "system.devices", {"system.devices", "expected name=value"});
  expectCliRefused(red + "=1", {"'=1'", "expected name=value"});
  expectCliRefused(red + "system.devices=", {"system.devices", "expected name=value"});
  expectCliRefused(red + "system.devices=abc", {"system.devices", "'abc' is not a number"});
  expectCliRefused(red + "system.devices=1x", {"system.devices", "'1x' is not a number"});
  expectCliRefused(red + "system.devices=1e999", {"system.devices", "beyond the range"});
  expectCliRefused(red + "system.devices=0", {"system.devices", "outside [1, 64]"});
  expectCliRefused(red + "system.devices=65", {"system.devices", "outside [1, 64]"});
  expectCliRefused(red + "system.devices=1.5", {"system.devices", "must be an integer"});
  expectCliRefused(red + "system.devices=nan", {"system.devices", "finite"});
  expectCliRefused(red + "system.devices=-inf", {"system.devices", "finite"});
  expectCliRefused(red + "system.devices=1152921504606846976",
                   {"system.devices", "outside [1, 64]"});  // 2^60
  expectCliRefused(red + "timing.tREFI=9007199254740993",
                   {"timing.tREFI", "cannot be held exactly"});  // 2^53+1
  expectCliRefused(red + "system.devices=1 --set system.devices=2", {"system.devices", "given twice"});
  // The family's cross-checks, as in the panel: a refresh interval shorter than the refresh itself.
  expectCliRefused(red + "timing.tREFI=400", {"timing.tREFI", "must be > tRFC 456"});
  // Settings are applied together: with a shorter tRFC the same interval is fine.
  EXPECT_EQ(cli(red + "timing.tREFI=400 --set timing.tRFC=300").code, 0);
  // --channels sets system.devices, dram.channels and group.groupsPerDevice: a --set of another value for
  // one of them is a conflict, not silently overwritten; one that agrees is fine.
  const std::string sim = "simulate -b hbm2-pim -k va -d b=1,n=65536 --channels 8 --set ";
  expectCliRefused(sim + "dram.channels=4", {"dram.channels", "conflicts with --channels 8"});
  EXPECT_EQ(cli(sim + "system.devices=1 --set timing.tREFI=7800").code, 0);
}

// The store keys results and picks by the backend's hash over every parameter value: a --set run is its own
// problem, never served the shipped backend's pick, and its own pick is served on the next identical run.
TEST(CliSet, ExploreDbDoesNotReuseTheUnmodifiedBackendsResults) {
  const std::string db = cliScratch().file("set.db");
  const std::string args = "explore -b hbm-pim -k red -d b=1,n=1024 --db " + db + " --json";
  const auto shipped = cliJson(args);
  const auto edited = cliJson(args + " --set system.devices=1");
  const auto again = cliJson(args + " --set system.devices=1");
  ASSERT_FALSE(edited.empty());
  EXPECT_EQ(shipped["served_from"], "search");
  EXPECT_EQ(edited["served_from"], "search");
  EXPECT_EQ(again["served_from"], "lookup table");
  EXPECT_EQ(again["best"]["cycles"], edited["best"]["cycles"]);
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT count(*) FROM lookup", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(st, 0), 2);
  sqlite3_finalize(st);
  sqlite3_close(h);
}
#else
TEST(CliSet, NeedsTheCliBinary) { GTEST_SKIP() << "built without the pimscope-cli target"; }
#endif

}  // namespace
