// SPDX-License-Identifier: Apache-2.0
// The malformed-input catalogue (issue 22), part 5: results keyed by what they are, stored picks verified
// before they are served, and trained models written only where they should be
// (tests/test_malformed_input.cpp has the introduction).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "engine/common/sha256.h"
#include "engine/core/problem.h"
#include "engine/kernel/dsl.h"
#include "engine/kernel/library.h"
#include "engine/target/registry.h"
#include "tests/cli_run.h"
#include "tests/malformed_input.h"

namespace pim {
namespace {

using namespace pim::test;

// A kernel named like the library's `red` that computes a sum of squares instead.
const std::string kFakeRed = std::string(kRedHead) + "  for b < b, i < n: y[b] += x[b][i] * x[b][i]\nend\n";

TEST(ComputationHash, Sha256MatchesTheStandardVectors) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),  // padding in a 2nd block
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(ComputationHash, SameComputationWhateverTheNameCommentsOrLayout) {
  const Kernel red = KernelLibrary::builtin().get("red");
  const Kernel renamed = parseKernel(
      "# a comment\nkernel total(b = 2, n = 64)   # other defaults\n  doc \"another doc\"\n"
      "  input  x: f16[b][n]\n  output y: f16[b]\n  for b < b, i < n:\n      y[b] += x[b][i]\nend\n",
      "total.pim");
  EXPECT_EQ(computationHash(red), computationHash(renamed));
  EXPECT_EQ(computationHash(red).rfind("ir1:", 0), 0u);
  EXPECT_EQ(computationHash(red).size(), 4u + 64u);
}

TEST(ComputationHash, KernelNamedRedComputingSomethingElseDiffers) {
  const Kernel red = KernelLibrary::builtin().get("red");
  EXPECT_NE(computationHash(red), computationHash(parseKernel(kFakeRed, "fake.pim")));
  // One dtype is enough to be another computation.
  std::string f32 = std::string(kRedHead) + "  for b < b, i < n: y[b] += x[b][i]\nend\n";
  f32.replace(f32.find("f16"), 3, "f32");
  EXPECT_NE(computationHash(red), computationHash(parseKernel(f32, "f32.pim")));
}

#ifdef PIMSCOPE_CLI
using test::cli;
using test::cliScratch;

const std::string kRedJson = "-b hbm2-pim -d b=1,n=4096 --json ";

/// `explore --db db` of the library's red or of the DSL file `file`: where the pick came from and which.
std::pair<std::string, nlohmann::json> explore(const std::string& db, const std::string& file = "") {
  const CliRun r = cli("explore " + kRedJson + "--db " + db +
                       (file.empty() ? std::string(" -k red") : " --kernel-file " + file));
  EXPECT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded()) return {"<no json>", {}};
  return {j["served_from"].get<std::string>(), j["best"]["draft"]};
}

TEST(MalformedResults, KernelNamedLikeALibraryKernelGetsItsOwnLookupEntries) {
  const std::string db = cliScratch().file("names.db");
  writeBytes(cliScratch().file("fake_red.pim"), kFakeRed);
  EXPECT_EQ(explore(db).first, "search");
  EXPECT_EQ(explore(db, cliScratch().file("fake_red.pim")).first, "search");  // not the library red's pick
  EXPECT_EQ(explore(db, cliScratch().file("fake_red.pim")).first, "lookup table");
  EXPECT_EQ(explore(db).first, "lookup table");
  const CliRun rows = cli("explore " + kRedJson + "--db " + db + " -k red");  // still one row per computation
  EXPECT_EQ(rows.code, 0);
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(h, "SELECT count(DISTINCT kernel_hash), count(*) FROM lookup", -1, &st, nullptr),
      SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 2);
  EXPECT_EQ(sqlite3_column_int(st, 1), 2);
  sqlite3_finalize(st);
  sqlite3_close(h);
}

TEST(MalformedResults, PlantedLookupRowWithABogusDraftIsNotServed) {
  const std::string db = cliScratch().file("planted.db");
  const auto [first, draft] = explore(db);
  ASSERT_EQ(first, "search");
  rawExec(db, "UPDATE lookup SET draft_id = 123456789012345");
  const CliRun r = cli("explore " + kRedJson + "--db " + db + " -k red");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("lookup entry for red[b=1,n=4096] on hbm2-pim ignored: draft 123456789012345 is not "
                       "in its space of "),
            std::string::npos)
      << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["served_from"], "search");
  EXPECT_EQ(j["best"]["draft"], draft);
  EXPECT_EQ(explore(db).first, "lookup table");  // the search replaced the row
}

TEST(MalformedResults, PlantedLookupRowWithAPrunedDraftIsNotServed) {
  const std::string db = cliScratch().file("pruned.db");
  ASSERT_EQ(explore(db).first, "search");
  const Kernel red = KernelLibrary::builtin().get("red");
  const Problem p(builtinBackends().get("hbm2-pim"), red, parseShape(red, "b=1,n=4096"));
  const auto space = targetOf(p.backend()).candidates(p);
  std::uint64_t pruned = 0;
  while (pruned < space->size() && space->why(pruned).kept) ++pruned;
  ASSERT_LT(pruned, space->size());
  rawExec(db, "UPDATE lookup SET draft_id = " + std::to_string(pruned));
  const CliRun r = cli("explore " + kRedJson + "--db " + db + " -k red");
  EXPECT_NE(r.err.find("ignored: draft " + std::to_string(pruned) + " is pruned (rule "), std::string::npos)
      << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["served_from"], "search");
}

// ---------------------------------------------------------------------------------------------------------
// Trained models: where they go

std::string tinySuite() {
  const std::string suite = cliScratch().file("tiny_suite.json");
  writeBytes(suite, R"({"name": "tiny", "description": "one small shape",
    "kernels": {"red": ["b=1,n=1024"]}})");
  return suite;
}

TEST(MalformedOutput, TrainRefusesAFifoAtTheModelPathBeforeLabelling) {
  const std::string dir = cliScratch().file("fifo_models");
  std::filesystem::create_directories(dir);
  ASSERT_EQ(::mkfifo((dir + "/hbm2-pim.model").c_str(), 0600), 0);
  const CliRun r = cli("train -b hbm2-pim --suite " + tinySuite() + " --out " + dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--out " + dir + "/hbm2-pim.model: is a FIFO, not a file PIMScope may replace"),
            std::string::npos)
      << r.err;
}

TEST(MalformedOutput, TrainWithoutOutWritesToTheUserFolderNotThroughAPlantedLink) {
  const std::string home = cliScratch().file("xdg");
  const std::string models = home + "/pimscope/models";
  std::filesystem::create_directories(models);
  // The temporary name older versions used: a link there must not be written through.
  writeBytes(cliScratch().file("victim"), "keep");
  ASSERT_EQ(::symlink(cliScratch().file("victim").c_str(), (models + "/hbm2-pim.model.tmp").c_str()), 0);
  const CliRun r =
      cli("train -b hbm2-pim --suite " + tinySuite() + " --max-samples 40", "XDG_DATA_HOME=" + home);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote " + models + "/hbm2-pim.model and " + models + "/hbm2-pim.json"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(std::filesystem::is_regular_file(models + "/hbm2-pim.model"));
  EXPECT_EQ(readBytes(cliScratch().file("victim")), "keep");
}
#endif

}  // namespace
}  // namespace pim
