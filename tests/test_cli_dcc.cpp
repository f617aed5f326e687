// SPDX-License-Identifier: Apache-2.0
// `dcc-drafts` as a user runs it: every draft of DCC's generator labelled in the DCC-artifact mode, ranked,
// each label the one `simulate --model dcc-kernel` gives the same parts, the same on any thread count.
#include <gtest/gtest.h>

#include "tests/cli_run.h"

namespace pim::test {
namespace {

TEST(CliDcc, DraftsAreRankedBySimulatedCyclesOnAnyThreadCount) {
  const std::string shape = "-b attacc -k red --dims b=1,n=1024 --set system.devices=1";
  const auto one = cliJson("dcc-drafts " + shape + " --top 3 --json --threads 1");
  const auto all = cliJson("dcc-drafts " + shape + " --top 3 --json");  // one worker per hardware thread
  ASSERT_TRUE(one.is_object() && all.is_object());
  EXPECT_EQ(one, all);  // each label is independent of the others
  EXPECT_EQ(one["model"], "dcc-kernel");
  EXPECT_GT(one["drafts"].get<int>(), 3);
  ASSERT_EQ(one["best"].size(), 3u);
  for (std::size_t i = 1; i < 3; ++i)
    EXPECT_LE(one["best"][i - 1]["cycles"].get<std::int64_t>(), one["best"][i]["cycles"].get<std::int64_t>());
  EXPECT_DOUBLE_EQ(one["best_speedup_over_vendor"].get<double>(),
                   one["vendor"]["cycles"].get<double>() / one["best"][0]["cycles"].get<double>());
  // The best draft, named by its parts in DCC's (groups, cores, tile) form, simulates to its label.
  const auto best = cliJson("simulate " + shape + " --model dcc-kernel --schedule 'parts:" +
                            one["best"][0]["parts"].dump() + "' --json");
  ASSERT_TRUE(best.is_object());
  EXPECT_EQ(best["cycles"]["total"], one["best"][0]["cycles"]);
}

TEST(CliDcc, WhatTheArtifactDoesNotLabelIsRefusedByName) {
  expectCliRefused("dcc-drafts -b attacc -k red --dims b=1,n=1024 --model pimscope", {"--model", "dcc-*"});
  expectCliRefused("dcc-drafts -b hbm2-pim -k red --dims b=1,n=1024", {"no RED trace for hbm2-pim"});
}

}  // namespace
}  // namespace pim::test
