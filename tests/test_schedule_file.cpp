// SPDX-License-Identifier: Apache-2.0
// The canonical schedule file: export -> import reproduces the simulated cycles on every backend with a code
// generator, re-exports match the committed golden files, malformed or foreign files are refused naming the
// file and the field, and writes are atomic.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>
#include "tests/test_util.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/common/error.h"
#include "engine/kernel/library.h"
#include "engine/prune/pruner.h"
#include "engine/search/schedule_file.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

using pim::test::readBytes;
using pim::test::TempDir;
using pim::test::writeBytes;

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::string testDataDir() {
#ifdef PIMSCOPE_TEST_DATA_DIR
  return PIMSCOPE_TEST_DATA_DIR;
#else
  return dataDir() + "/../tests/data";
#endif
}

using test::problem;

// A fixed, kept, non-trivial draft: the 8th kept one in id order.
Draft pickDraft(const Problem& p) {
  const auto kept = firstKept(DraftCandidateSpace(p.space()), 8);
  EXPECT_FALSE(kept.empty());
  return kept.back();
}

// Field-by-field comparison: integers and strings exactly, floating point to 1e-9 relative, "created"
// ignored.
void expectSameJson(const Json& want, const Json& got, const std::string& at) {
  if (want.is_object() && got.is_object()) {
    for (const auto& [key, value] : want.items()) {
      if (at.empty() && key == "created") continue;
      const std::string field = at.empty() ? key : at + "." + key;
      if (!got.contains(key)) {
        ADD_FAILURE() << field << ": missing from the re-export";
        continue;
      }
      expectSameJson(value, got[key], field);
    }
    for (const auto& [key, value] : got.items()) {
      if (!want.contains(key)) ADD_FAILURE() << (at.empty() ? key : at + "." + key) << ": not in the golden";
    }
  } else if (want.is_array() && got.is_array()) {
    ASSERT_EQ(want.size(), got.size()) << at;
    for (std::size_t i = 0; i < want.size(); ++i)
      expectSameJson(want[i], got[i], at + "[" + std::to_string(i) + "]");
  } else if (want.is_number_float() || got.is_number_float()) {
    ASSERT_TRUE(want.is_number() && got.is_number()) << at;
    const double a = want.get<double>(), b = got.get<double>();
    EXPECT_LE(std::fabs(a - b), 1e-9 * std::max(1.0, std::fabs(a))) << at << ": " << a << " vs " << b;
  } else {
    EXPECT_EQ(want, got) << at;
  }
}

struct Exported {
  std::unique_ptr<Problem> problem;
  Draft draft;
  EvalOptions options;
  Evaluation eval;
};

Exported exportSmall(const std::string& backend, const std::string& path) {
  Exported x;
  x.problem = problem(backend, "red", "b=1,n=4096");
  x.draft = pickDraft(*x.problem);
  x.options.keepUnitStats = false;
  x.eval = evaluateDraft(*x.problem, x.draft, x.options);
  exportSchedule(path, *x.problem, x.draft, x.options, x.eval);
  return x;
}

TEST(ScheduleFile, ExportThenImportReproducesTheCyclesOnEveryCodegenBackend) {
  TempDir dir;
  for (const char* backend : {"hbm2-pim", "hbm-pim", "attacc", "gddr6-aim"}) {
    const std::string path = dir.file(std::string(backend) + ".json");
    const Exported x = exportSmall(backend, path);
    const ImportedSchedule s = importSchedule(path);
    EXPECT_EQ(s.problem->backend().hash(), x.problem->backend().hash()) << backend;
    EXPECT_EQ(s.draft, x.draft) << backend;
    EXPECT_EQ(s.evaluation.cycles, x.eval.cycles) << backend;
    EXPECT_EQ(s.evaluation.totalCycles, x.eval.totalCycles) << backend;
    EXPECT_EQ(s.recorded.totalCycles, x.eval.totalCycles) << backend;
    EXPECT_TRUE(s.registryMatches) << backend;
    EXPECT_EQ(s.version, kScheduleVersion);
  }
}

TEST(ScheduleFile, ImportKeepsTheEvaluationOptions) {
  TempDir dir;
  const auto p = problem("gddr6-aim", "red", "b=1,n=4096");
  const Draft d = pickDraft(*p);
  EvalOptions o;
  o.indexing = IndexingStrategy::Expand;
  o.optimizer.stagedRearrangement = false;
  o.sim.refresh = false;
  const Evaluation e = evaluateDraft(*p, d, o);
  exportSchedule(dir.file("s.json"), *p, d, o, e, 123.5);
  const ImportedSchedule s = importSchedule(dir.file("s.json"));
  EXPECT_EQ(s.options.indexing, IndexingStrategy::Expand);
  EXPECT_FALSE(s.options.optimizer.stagedRearrangement);
  EXPECT_TRUE(s.options.optimizer.groupCommands);
  EXPECT_FALSE(s.options.sim.refresh);
  ASSERT_TRUE(s.predictedNs);
  EXPECT_DOUBLE_EQ(*s.predictedNs, 123.5);
  EXPECT_EQ(s.evaluation.totalCycles, e.totalCycles);
}

// A crossbar candidate's file records the timing it ran in; a file without it is PIMCOMP-NN's; a wrong
// name is refused with its field.
TEST(ScheduleFile, ACrossbarFileKeepsItsTimingMode) {
  TempDir dir;
  const auto p = problem("crossbar-pimcomp", "fc", "n=1,k=1000,c=512");
  const Draft d{1, {}};
  for (const xbar::TimingModel m : {xbar::TimingModel::PimcompNn, xbar::TimingModel::Intended}) {
    EvalOptions o;
    o.sim.crossbarTiming = m;
    const Evaluation e = evaluateDraft(*p, d, o);
    const std::string file = dir.file(std::string(xbar::timingModelName(m)) + ".json");
    exportSchedule(file, *p, d, o, e, std::nullopt);
    const ImportedSchedule s = importSchedule(file);
    EXPECT_EQ(s.options.sim.crossbarTiming, m);
    EXPECT_EQ(s.evaluation.timeNs, e.timeNs);
  }
  // Without the field (files before it): PIMCOMP-NN's, which an intended file's cycles do not reproduce.
  for (const char* name : {"pimcomp-nn", "intended"}) {
    Json j = Json::parse(readBytes(dir.file(std::string(name) + ".json")));
    j["options"].erase("timing");
    writeBytes(dir.file("old.json"), j.dump());
    if (std::string(name) == "pimcomp-nn")
      EXPECT_EQ(importSchedule(dir.file("old.json")).options.sim.crossbarTiming,
                xbar::TimingModel::PimcompNn);
    else
      EXPECT_THROW(importSchedule(dir.file("old.json")), InputError);
  }
  Json j = Json::parse(readBytes(dir.file("intended.json")));
  j["options"]["timing"] = "fast";
  writeBytes(dir.file("bad.json"), j.dump());
  try {
    importSchedule(dir.file("bad.json"));
    ADD_FAILURE() << "accepted";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("options.timing"), std::string::npos) << err.what();
  }
}

// Regenerate deliberately with PIMSCOPE_UPDATE_GOLDEN=1.
TEST(ScheduleFile, ReExportMatchesTheGoldenFiles) {
  const bool update = std::getenv("PIMSCOPE_UPDATE_GOLDEN") != nullptr &&
                      std::string(std::getenv("PIMSCOPE_UPDATE_GOLDEN")) == "1";
  for (const char* backend : {"hbm2-pim", "gddr6-aim"}) {
    const std::string golden = testDataDir() + "/golden/schedule_" + backend + "_red.json";
    const auto p = problem(backend, "red", "b=1,n=4096");
    const Draft d = pickDraft(*p);
    EvalOptions o;
    o.keepUnitStats = false;
    const Evaluation e = evaluateDraft(*p, d, o);
    const Json now = scheduleJson(*p, d, o, e, std::nullopt, "2026-01-01T00:00:00Z");
    if (update) {
      fs::create_directories(fs::path(golden).parent_path());
      writeFileAtomically(golden, now.dump(2) + "\n");
      continue;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with PIMSCOPE_UPDATE_GOLDEN=1";
    const Json want = Json::parse(readBytes(golden));
    SCOPED_TRACE(golden + " (regenerate deliberately with PIMSCOPE_UPDATE_GOLDEN=1)");
    expectSameJson(want, now, "");
    // The golden file itself still imports and reproduces its cycles on this build.
    const ImportedSchedule s = importSchedule(golden);
    EXPECT_EQ(s.evaluation.totalCycles, want["simulated"]["cycles"]["total"].get<std::int64_t>());
  }
}

void expectRefused(const std::string& path, const std::string& field) {
  try {
    importSchedule(path);
    ADD_FAILURE() << path << " was accepted";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(field), std::string::npos) << msg;
  }
}

TEST(ScheduleFileRefusals, ANonScheduleJsonIsRefused) {
  TempDir dir;
  writeBytes(dir.file("other.json"), R"({"hello": "world"})");
  expectRefused(dir.file("other.json"), "format");
  writeBytes(dir.file("backend.json"), builtinBackends().get("gddr6-aim").toJson());
  expectRefused(dir.file("backend.json"), "not a PIMScope schedule");
  writeBytes(dir.file("array.json"), "[1, 2, 3]");
  expectRefused(dir.file("array.json"), "format");
  writeBytes(dir.file("wrong.json"), R"({"format": "something-else", "version": 1})");
  expectRefused(dir.file("wrong.json"), "format");
  expectRefused(dir.file("absent.json"), "cannot open");
}

TEST(ScheduleFileRefusals, ANewerVersionIsRefused) {
  TempDir dir;
  exportSmall("gddr6-aim", dir.file("s.json"));
  Json j = Json::parse(readBytes(dir.file("s.json")));
  j["version"] = kScheduleVersion + 1;
  writeBytes(dir.file("newer.json"), j.dump(2));
  expectRefused(dir.file("newer.json"), "version");
  try {
    importSchedule(dir.file("newer.json"));
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
}

// Version 1 predates residency: its numbers were made with every tensor streamed, and it is read so.
TEST(ScheduleFile, AVersion1FileIsReadWithEveryTensorStreamed) {
  TempDir dir;
  const auto p = problem("hbm-pim", "gemv", "b=1,out=256,in=256");
  ASSERT_TRUE(p->residency().any());  // the library declares W resident
  const Draft d = pickDraft(*p);
  EvalOptions o;
  o.keepUnitStats = false;
  exportSchedule(dir.file("s.json"), *p, d, o, evaluateDraft(*p, d, o));
  Json j = Json::parse(readBytes(dir.file("s.json")));
  j["version"] = 1;
  j.erase("resident");
  writeBytes(dir.file("v1.json"), j.dump(2));
  try {
    importSchedule(dir.file("v1.json"));
    ADD_FAILURE() << "a version-1 file with a resident call's cycles was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("simulated"), std::string::npos) << e.what();
  }
}

TEST(ScheduleFileRefusals, AnUnknownResidentTensorIsNamed) {
  TempDir dir;
  exportSmall("hbm-pim", dir.file("s.json"));
  Json j = Json::parse(readBytes(dir.file("s.json")));
  j["resident"] = "W,Q";
  writeBytes(dir.file("r.json"), j.dump(2));
  expectRefused(dir.file("r.json"), "resident");
}

TEST(ScheduleFileRefusals, ATruncatedFileIsRefused) {
  TempDir dir;
  exportSmall("gddr6-aim", dir.file("s.json"));
  const std::string text = readBytes(dir.file("s.json"));
  writeBytes(dir.file("cut.json"), text.substr(0, text.size() / 2));
  expectRefused(dir.file("cut.json"), "invalid JSON");
  writeBytes(dir.file("empty.json"), "");
  expectRefused(dir.file("empty.json"), "invalid JSON");
}

TEST(ScheduleFileRefusals, MissingOrEditedFieldsAreNamed) {
  TempDir dir;
  exportSmall("gddr6-aim", dir.file("s.json"));
  const Json good = Json::parse(readBytes(dir.file("s.json")));

  Json j = good;
  j["kernel"].erase("source");
  writeBytes(dir.file("nosource.json"), j.dump());
  expectRefused(dir.file("nosource.json"), "kernel.source: missing");

  j = good;
  j["backend"]["hash"] = "0123456789abcdef";
  writeBytes(dir.file("hash.json"), j.dump());
  expectRefused(dir.file("hash.json"), "backend.hash");

  j = good;
  j["backend"]["parameters"]["timing"]["CL"]["value"] =
      j["backend"]["parameters"]["timing"]["CL"]["value"].get<int>() + 1;
  writeBytes(dir.file("edited.json"), j.dump());
  expectRefused(dir.file("edited.json"), "backend.hash");

  j = good;
  j["simulated"]["cycles"]["compute"] = j["simulated"]["cycles"]["compute"].get<std::int64_t>() + 1;
  writeBytes(dir.file("mismatch.json"), j.dump());
  expectRefused(dir.file("mismatch.json"), "does not reproduce");

  j = good;
  j["draft"]["parts"][0][0] = 9999;
  writeBytes(dir.file("parts.json"), j.dump());
  expectRefused(dir.file("parts.json"), "draft.parts");

  j = good;
  j["options"]["indexing"] = "sideways";
  writeBytes(dir.file("indexing.json"), j.dump());
  expectRefused(dir.file("indexing.json"), "options.indexing");
}

std::vector<std::string> listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ScheduleFileAtomicWrite, AFailedWriteThrowsAndLeavesNothingHalfWritten) {
  TempDir dir;
  // Read-only directory (root ignores directory permissions, so only checked when it bites).
  const std::string ro = dir.file("ro");
  fs::create_directory(ro);
  writeBytes(ro + "/old.json", "old contents");
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec, fs::perm_options::replace);
  if (access(ro.c_str(), W_OK) != 0) {
    EXPECT_THROW(writeFileAtomically(ro + "/new.json", "new"), InputError);
    EXPECT_THROW(writeFileAtomically(ro + "/old.json", "new"), InputError);
    EXPECT_EQ(listing(ro), std::vector<std::string>{"old.json"});
    EXPECT_EQ(readBytes(ro + "/old.json"), "old contents");
  }
  fs::permissions(ro, fs::perms::owner_all, fs::perm_options::replace);

  // A directory that does not exist: the error names the path.
  const std::string missing = dir.file("no/such/dir/s.json");
  try {
    writeFileAtomically(missing, "x");
    ADD_FAILURE() << "write into a missing directory succeeded";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }

  // The rename itself fails (the target is a directory): the temporary file is removed and the target kept.
  const std::string target = dir.file("target");
  fs::create_directory(target);
  writeBytes(target + "/keep", "keep");
  EXPECT_THROW(writeFileAtomically(target, "new"), InputError);
  EXPECT_EQ(listing(dir.path()), (std::vector<std::string>{"ro", "target"}));
  EXPECT_EQ(readBytes(target + "/keep"), "keep");
}

TEST(ScheduleFileAtomicWrite, ExportOverAnExistingFileReplacesItWhole) {
  TempDir dir;
  const std::string path = dir.file("s.json");
  writeBytes(path, std::string(200000, 'x'));  // longer than any schedule file
  exportSmall("gddr6-aim", path);
  const std::string text = readBytes(path);
  EXPECT_LT(text.size(), 200000u);
  EXPECT_EQ(text.find(std::string(8, 'x')), std::string::npos);
  EXPECT_NO_THROW(Json::parse(text));
  EXPECT_NO_THROW(importSchedule(path));
  EXPECT_EQ(listing(dir.path()), std::vector<std::string>{"s.json"});
}

}  // namespace
}  // namespace pim
