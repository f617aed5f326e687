// SPDX-License-Identifier: Apache-2.0
// The numbers PIMScope prints must not move when its structure does: every library kernel on every DRAM-PIM
// backend through `simulate` (vendor, GPU, a sample of drafts, the optimizer switches), `drafts`, `why`,
// `ir`, `explore` with the shipped predictor and `compare`, each output compared byte for byte (as a digest)
// with tests/data/golden/cli_golden.json, recorded before the hardware-target refactor.
// PIMSCOPE_GOLDEN_UPDATE=1 rewrites the file (only for a change that is meant to move numbers, said in the
// commit); PIMSCOPE_GOLDEN_DUMP=<dir> writes every output there to diff a mismatch.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli_run.h"
#include "tests/test_util.h"

namespace {

#ifdef PIMSCOPE_CLI
using Json = nlohmann::ordered_json;

const std::string kGoldenFile = std::string(PIMSCOPE_TEST_DATA_DIR) + "/golden/cli_golden.json";

using pim::test::cliScratch;

using Run = pim::test::CliRun;

using pim::test::cli;

/// Wall-clock fields differ from run to run; everything else must not.
void dropTimes(Json& j) {
  if (j.is_object()) {
    for (const char* k : {"seconds", "stage_seconds"}) j.erase(k);
    for (auto& [k, v] : j.items()) dropTimes(v);
  } else if (j.is_array()) {
    for (auto& v : j) dropTimes(v);
  }
}

std::string digest(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a 64: stable across compilers, unlike std::hash
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

/// What one command printed, canonical: JSON without wall-clock fields, or text; and the exit code.
struct Outcome {
  Json record;       // {args, code, digest, headline}
  std::string text;  // the canonical output (for PIMSCOPE_GOLDEN_DUMP)
  Json json;         // the parsed output of a --json command that succeeded
};

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

/// The checkout's own path appears in outputs (backend files); a clone elsewhere must compare equal.
const std::string& sourceDir() {
  static const std::string dir = [] {
    std::string d = PIMSCOPE_TEST_DATA_DIR;
    return d.substr(0, d.rfind("/tests/data"));
  }();
  return dir;
}

/// `{out}` in a command stands for a scratch file whose path differs from run to run; outputs name it `{out}`
/// and the source tree `{src}`.
Outcome outcome(const std::string& args) {
  const std::string out = cliScratch().file("golden_out.txt");
  Run r = cli(replaced(args, "{out}", out));
  r.out = replaced(replaced(r.out, out, "{out}"), sourceDir(), "{src}");
  r.err = replaced(replaced(r.err, out, "{out}"), sourceDir(), "{src}");
  Outcome o;
  Json headline = nullptr;
  if (r.code == 0 && args.find("--json") != std::string::npos) {
    Json j = Json::parse(r.out);
    dropTimes(j);
    // The golden file pins the DRAM-PIM families; upmem's file changes with its own target.
    if (j.is_array()) {
      Json kept = Json::array();
      for (auto& e : j)
        if (!(e.is_object() && e.value("name", "") == "upmem")) kept.push_back(std::move(e));
      j = std::move(kept);
    }
    o.text = j.dump(1);
    // A readable anchor beside the digest: the total cycles or time where the command has one.
    if (j.is_object()) {
      if (j.contains("cycles") && j["cycles"].contains("total")) headline = j["cycles"]["total"];
      if (j.contains("best") && j["best"].contains("time_ns")) headline = j["best"]["time_ns"];
      if (j.contains("verdict")) headline = j["verdict"];
      if (j.contains("remaining")) headline = j["remaining"];
    }
    o.json = std::move(j);
  } else {
    o.text = r.code == 0 ? r.out : r.err;
    if (r.code != 0) headline = r.err.substr(0, r.err.find('\n'));
  }
  o.record = {{"args", args}, {"code", r.code}, {"digest", digest(o.text)}, {"headline", headline}};
  return o;
}

const char* const kKernels[] = {"gemv", "red", "va", "mul", "geva", "relu", "attn", "ttv", "mmtv", "gemm"};

/// Runs commands in order, keeping each outcome; later commands may use an earlier one's output.
class Session {
 public:
  void run(const std::string& args) {
    Outcome o = outcome(args);
    if (const char* dump = std::getenv("PIMSCOPE_GOLDEN_DUMP")) {
      std::filesystem::create_directories(dump);
      std::ofstream(std::string(dump) + "/" + o.record["digest"].get<std::string>() + ".txt") << args << "\n"
                                                                                              << o.text;
    }
    m_last = std::move(o.json);
    m_all.push_back(std::move(o.record));
  }
  const Json& last() const { return m_last; }
  Json take() { return std::move(m_all); }

 private:
  Json m_all = Json::array();
  Json m_last;
};

/// Every library kernel on backend `b`. Draft ids come from the same run's `drafts` and `explore` outputs.
Json backendOutcomes(const std::string& b) {
  Session s;
  for (const char* k : kKernels) {
    const std::string p = " -b " + b + " -k " + k;
    s.run("simulate" + p + " -s vendor --json");
    s.run("simulate" + p + " -s gpu --json");
    s.run("drafts" + p + " --limit 3 --json");
    std::vector<std::string> ids;
    if (s.last().contains("drafts"))
      for (const auto& d : s.last()["drafts"]) ids.push_back(std::to_string(d["id"].get<std::uint64_t>()));
    s.run("explore" + p + " --json");
    if (s.last().contains("best") && s.last()["best"]["draft"].is_number())
      ids.push_back(std::to_string(s.last()["best"]["draft"].get<std::uint64_t>()));
    for (const auto& id : ids) {
      s.run("simulate" + p + " -s draft:" + id + " --json");
      s.run("why" + p + " --draft " + id + " --json");
    }
    if (ids.empty()) continue;
    const std::string chosen = ids.back();  // explore's pick where there is one: a draft that runs
    s.run("simulate" + p + " -s draft:" + chosen + " --refresh off --json");
    s.run("simulate" + p + " -s draft:" + chosen + " --no-staged --json");
    s.run("simulate" + p + " -s draft:" + chosen + " --no-group-commands --json");
    s.run("simulate" + p + " -s draft:" + chosen + " --indexing expand --json");
    s.run("ir" + p + " --draft " + chosen + " --json");
    s.run("export" + p + " --draft " + chosen + " --format commands -o {out} --json");
  }
  return s.take();
}

Json sharedOutcomes() {
  Session s;
  for (const char* c : {"backends --json", "kernels --json",
                        "simulate -b hbm2-pim -k gemv -d b=1,out=4096,in=4096 -s vendor --channels 16 --json",
                        "simulate -b hbm2-pim -k relu -d b=1,n=131072 -s vendor --refresh off --json",
                        "simulate -b attacc -k attn -d b=4,h=32,l=256,d=128 -s vendor --json",
                        "explore -b hbm-pim -k gemv --strategy exhaustive --max-simulations 40 --json",
                        "explore -b attacc -k attn --strategy compute-centric --json"})
    s.run(c);
  for (const char* k : kKernels)
    s.run(std::string("compare --backends hbm-pim,attacc,gddr6-aim,hbm2-pim -k ") + k + " --json");
  return s.take();
}

/// Compares `now` with one section of the golden file (or with PIMSCOPE_GOLDEN_UPDATE records it).
void checkSection(const std::string& section, const Json& now) {
  Json golden = Json::object();
  if (std::ifstream in(kGoldenFile); in) golden = Json::parse(in);
  if (std::getenv("PIMSCOPE_GOLDEN_UPDATE")) {
    golden[section] = now;
    std::ofstream(kGoldenFile) << golden.dump(1) << "\n";
    GTEST_SKIP() << "recorded " << now.size() << " outputs for " << section;
  }
  ASSERT_TRUE(golden.contains(section)) << kGoldenFile << " has no section " << section;
  const Json& then = golden[section];
  ASSERT_EQ(then.size(), now.size()) << section << ": the list of commands changed";
  for (std::size_t i = 0; i < now.size(); ++i) {
    EXPECT_EQ(now[i]["args"], then[i]["args"]);
    EXPECT_EQ(now[i]["code"], then[i]["code"]) << now[i]["args"];
    EXPECT_EQ(now[i]["digest"], then[i]["digest"])
        << now[i]["args"] << "\n  then: " << then[i]["headline"] << "\n  now:  " << now[i]["headline"];
  }
}

TEST(GoldenCli, Hbm2Pim) { checkSection("hbm2-pim", backendOutcomes("hbm2-pim")); }
TEST(GoldenCli, HbmPim) { checkSection("hbm-pim", backendOutcomes("hbm-pim")); }
TEST(GoldenCli, Attacc) { checkSection("attacc", backendOutcomes("attacc")); }
TEST(GoldenCli, Gddr6Aim) { checkSection("gddr6-aim", backendOutcomes("gddr6-aim")); }
TEST(GoldenCli, SharedCommands) { checkSection("shared", sharedOutcomes()); }
#endif

}  // namespace
