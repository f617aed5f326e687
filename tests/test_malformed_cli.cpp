// SPDX-License-Identifier: Apache-2.0
// The malformed-input catalogue (issue 22), part 3: worker threads the system refuses, and the CLI's answers
// (exit code 2 and one line; tests/test_malformed_input.cpp has the introduction).
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "engine/common/threads.h"
#include "tests/cli_run.h"
#include "tests/malformed_input.h"

namespace pim {
namespace {

using namespace pim::test;

// ---------------------------------------------------------------------------------------------------------
// Threads

TEST(WorkerThreads, StartThreadsRunsEveryBody) {
  std::vector<std::thread> pool;
  std::atomic<int> ran{0};
  EXPECT_EQ(startThreads(pool, 3, [&](std::size_t) { ++ran; }), 3u);
  for (auto& t : pool) t.join();
  EXPECT_EQ(ran.load(), 3);
}

#if !defined(__SANITIZE_ADDRESS__)
// A thread the system refuses (here: no address space left for its stack) ends the pool, not the process.
TEST(WorkerThreads, RefusedThreadIsNotFatal) {
  EXPECT_EXIT(
      {
        rlimit r{};
        getrlimit(RLIMIT_AS, &r);
        r.rlim_cur = std::size_t{1} << 30;  // room for the process and a few 8 MiB stacks
        setrlimit(RLIMIT_AS, &r);
        std::vector<std::thread> pool;
        const std::size_t started = startThreads(pool, 100000, [](std::size_t) {});
        for (auto& t : pool) t.join();
        std::_Exit(started < 100000 ? 0 : 3);  // no static destructors in the child (the parent's to run)
      },
      testing::ExitedWithCode(0), "");
}
#endif

// ---------------------------------------------------------------------------------------------------------
// The CLI: exit code 2 and one line

#ifdef PIMSCOPE_CLI
using test::cli;
using test::cliScratch;

void expectCliError(const std::string& args, std::initializer_list<std::string> needles) {
  const test::CliRun r = cli(args);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("pimscope-cli: error: ", 0), 0u) << r.err;
  for (const std::string& n : needles) EXPECT_NE(r.err.find(n), std::string::npos) << args << "\n" << r.err;
}

const std::string kRed = "-b hbm2-pim -k red -d b=1,n=4096 ";

TEST(MalformedCli, NegativeDraftInScheduleIsNotWrapped) {
  expectCliError("simulate " + kRed + "--schedule draft:-1",
                 {"--schedule draft:<id>: '-1' is not a draft id"});
  EXPECT_EQ(cli("simulate " + kRed + "--schedule draft:-1").err.find("18446744073709551615"),
            std::string::npos);
}

TEST(MalformedCli, DraftIdBeyondSixtyFourBitsIsRefused) {
  expectCliError("simulate " + kRed + "--schedule draft:99999999999999999999",
                 {"'99999999999999999999' is not a draft id"});
}

// An option's text beyond 64 bits was saturated by the conversion: "draft 18446744073709551615: no such
// draft".
TEST(MalformedCli, DraftOptionBeyondSixtyFourBitsIsRefusedWithItsText) {
  expectCliError("why " + kRed + "--draft 99999999999999999999999",
                 {"--draft: '99999999999999999999999' is above 2^64-1"});
}

TEST(MalformedCli, DraftIdWithTextIsRefused) {
  expectCliError("simulate " + kRed + "--schedule draft:12x", {"'12x' is not a draft id"});
}

TEST(MalformedCli, DraftIdWithBlankOrSignIsRefused) {
  expectCliError("simulate " + kRed + "--schedule 'draft: 5'", {"' 5' is not a draft id"});
  expectCliError("simulate " + kRed + "--schedule draft:+5", {"'+5' is not a draft id"});
}

TEST(MalformedCli, NegativeExportDraftIsRefused) {
  expectCliError("export " + kRed + "--draft -1 --out " + cliScratch().file("x.ir") + " --format ir",
                 {"'-1' is not a draft id"});
}

TEST(MalformedCli, NegativeWhyDraftIsRefused) {
  expectCliError("why " + kRed + "--draft -1", {"--draft: '-1' is not a whole number >= 0"});
}

TEST(MalformedCli, NegativeTopIsRefused) {
  expectCliError("explore " + kRed + "--top -5", {"--top: '-5' is not a whole number >= 0"});
}

TEST(MalformedCli, NegativeMaxConfirmIsRefused) {
  expectCliError("explore " + kRed + "--max-confirm -1", {"--max-confirm: '-1' is not a whole number >= 0"});
}

TEST(MalformedCli, NanBandIsRefused) {
  expectCliError("explore " + kRed + "--band nan", {"--band: 'nan' is not a finite number >= 0"});
}

TEST(MalformedCli, InfiniteBandIsRefused) {
  expectCliError("explore " + kRed + "--band inf", {"--band: 'inf' is not a finite number >= 0"});
}

TEST(MalformedCli, NegativeBandIsRefused) {
  expectCliError("explore " + kRed + "--band -0.5", {"--band: '-0.5' is not a finite number >= 0"});
}

TEST(MalformedCli, NegativePredictLimitIsRefused) {
  expectCliError("explore " + kRed + "--predict-limit -3",
                 {"--predict-limit: '-3' is not a whole number >= 0"});
}

TEST(MalformedCli, NegativeEvaluateTopIsRefused) {
  expectCliError("evaluate -b hbm2-pim -k red --suite x.json --top -1",
                 {"--top: '-1' is not a whole number"});
}

TEST(MalformedCli, NegativeThreadsIsRefused) {
  expectCliError("train -b hbm2-pim --suite x.json --threads -1", {"--threads: '-1' is not a whole number"});
}

TEST(MalformedCli, NegativeDraftsLimitIsRefused) {
  expectCliError("drafts " + kRed + "--limit -1", {"--limit: '-1' is not a whole number >= 0"});
}

TEST(MalformedCli, NegativeChannelsIsRefused) {
  expectCliError("simulate " + kRed + "--channels -4", {"--channels: '-4' is not a whole number >= 0"});
}

TEST(MalformedCli, DirectoryAsSuiteSaysSo) {
  expectCliError("train -b hbm2-pim --suite " + cliScratch().path(), {"is a directory, not a suite file"});
}

TEST(MalformedCli, DirectoryAsKernelFileSaysSo) {
  expectCliError("drafts -b hbm2-pim --kernel-file " + cliScratch().path(),
                 {"is a directory, not a kernel file"});
}

TEST(MalformedCli, DevZeroAsKernelFileIsRefused) {
  expectCliError("drafts -b hbm2-pim --kernel-file /dev/zero", {"/dev/zero: is a device, not a kernel file"});
}

// 50 MB of tokens, nested nowhere: refused by its size before a byte is lexed, at once and in little memory.
TEST(MalformedCli, FiftyMegabytesOfTokensAreRefusedBySize) {
  const std::string path = cliScratch().file("huge.pim");
  writeBytes(path, repeat("tok ", 50 * 1024 * 1024 / 4));
  expectCliError("drafts -b hbm2-pim --kernel-file " + path,
                 {path + ": is 52428800 bytes, above the limit of 16 MiB for a kernel file"});
  std::filesystem::remove(path);
}

TEST(MalformedCli, DevZeroAsScheduleIsRefused) {
  expectCliError("import /dev/zero", {"/dev/zero: is a device, not a schedule file"});
}

TEST(MalformedCli, NumberOverflowInScheduleIsAnInputError) {
  writeBytes(cliScratch().file("big.json"), R"({"format": "pimscope-schedule", "version": 1e400})");
  expectCliError("import " + cliScratch().file("big.json"),
                 {"big.json: line 1,", "number overflow parsing '1e400'"});
}

TEST(MalformedCli, DeeplyNestedKernelFileIsAnInputError) {
  writeBytes(cliScratch().file("deep.pim"),
             kernelWithExtent(repeat("(", 1000000) + "n" + repeat(")", 1000000)));
  expectCliError("drafts -b hbm2-pim --kernel-file " + cliScratch().file("deep.pim"),
                 {"deep.pim:2:276: expression nested deeper than 256 levels"});
}

// A DSL doc or comment in Latin-1 went into the schedule file's JSON and ended as "internal error" (nlohmann
// type_error 316): the kernel file is refused where the byte is.
TEST(MalformedCli, InvalidUtf8InAKernelFileIsRefusedWhereItIs) {
  writeBytes(cliScratch().file("latin1.pim"),
             std::string(kRedHead) + "  doc \"caf\xe9\"\n" + "  for b < b, i < n: y[b] += x[b][i]\nend\n");
  expectCliError("export -b hbm2-pim --kernel-file " + cliScratch().file("latin1.pim") + " --out " +
                     cliScratch().file("latin1.json"),
                 {"latin1.pim:4:", "invalid UTF-8 (byte 0xe9); a kernel file is UTF-8 text"});
}

// An output path that is not UTF-8 is written, and the --json summary naming it is still valid JSON.
TEST(MalformedCli, NonUtf8OutputPathGivesValidJson) {
  const std::string out = cliScratch().file("\xff\xfe.csv");
  const test::CliRun r = cli("export " + kRed + "--format csv --limit 2 --json --out '" + out + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["path"].get<std::string>(), cliScratch().file("\xef\xbf\xbd\xef\xbf\xbd.csv"));
  EXPECT_TRUE(std::filesystem::is_regular_file(out));
}

TEST(MalformedCli, TooManyThreadsAreCappedWithAWarning) {
  const test::CliRun r = cli("explore " + kRed + "--threads 100000");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("pimscope-cli: warning: --threads 100000 is more than the"), std::string::npos)
      << r.err;
}
#endif

}  // namespace
}  // namespace pim
