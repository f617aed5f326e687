// SPDX-License-Identifier: Apache-2.0
// Session files: a real exploration round-trips field by field, a failed save leaves the previous file and
// no temporary behind, foreign/corrupt/newer files are refused by name and left byte-for-byte untouched, and
// the shipped example session still matches what the engine computes today.
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <unistd.h>
#include "tests/test_util.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/common/error.h"
#include "engine/kernel/residency.h"
#include "engine/store/store.h"
#include "engine/target/registry.h"
#include "engine/workflow/session_file.h"
#include "test_util.h"

using pim::InputError;
using pim::SessionData;
using pim::SessionFile;

namespace {

using pim::test::readBytes;
using pim::test::TempDir;
using pim::test::writeBytes;

namespace fs = std::filesystem;

/// An exhaustive exploration of red b=1,n=4096 on hbm-pim with its vendor and GPU baselines.
SessionData explored(const pim::Problem& p) {
  pim::ExploreOptions o;
  o.strategy = "exhaustive";
  o.eval.keepUnitStats = false;
  pim::Explorer ex(p, o);
  std::atomic<bool> cancel{false};
  ex.run(cancel);
  SessionData d;
  d.settings.backend = "hbm-pim";
  d.settings.kernel = "red";
  d.settings.shape = "b=1,n=4096";
  d.settings.strategy = "exhaustive";
  d.settings.rules = {true, false, true};
  d.settings.groupCommands = false;
  d.settings.maxSimulations = 123;
  d.records = ex.records();
  d.progress = ex.progress();
  d.baselines.push_back(pim::vendorBaseline(p, o.eval));
  d.baselines.push_back(pim::gpuBaseline(p));
  d.predictorErrorPct = 7.5;
  d.note = "a note";
  d.view["layout"] = std::string("\0\x01\xff binary", 10);
  d.view["pareto.x"] = "0";
  return d;
}

void expectSameEval(const pim::Evaluation& a, const pim::Evaluation& b) {
  EXPECT_EQ(a.draft, b.draft);
  EXPECT_EQ(a.provenance, b.provenance);
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.totalCycles, b.totalCycles);
  EXPECT_EQ(a.tCKns, b.tCKns);
  EXPECT_EQ(a.timeNs, b.timeNs);
  EXPECT_EQ(a.energyPj, b.energyPj);
  EXPECT_EQ(a.energy.actPre_pJ, b.energy.actPre_pJ);
  EXPECT_EQ(a.energy.rdWr_pJ, b.energy.rdWr_pJ);
  EXPECT_EQ(a.energy.pimCompute_pJ, b.energy.pimCompute_pJ);
  EXPECT_EQ(a.energy.refresh_pJ, b.energy.refresh_pJ);
  EXPECT_EQ(a.energy.hostIo_pJ, b.energy.hostIo_pJ);
  EXPECT_EQ(a.energy.bufferMoves_pJ, b.energy.bufferMoves_pJ);
  EXPECT_EQ(a.unitsUsed, b.unitsUsed);
  EXPECT_EQ(a.placedBytes, b.placedBytes);
  EXPECT_EQ(a.paddingBytes, b.paddingBytes);
  EXPECT_EQ(a.commands, b.commands);
  EXPECT_EQ(a.serialSegments, b.serialSegments);
}

void setPragma(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

/// The residency a session's settings name: the kernel's declared one, or exactly the listed tensors.
pim::Residency storedResidency(const pim::Kernel& k, const std::optional<std::string>& resident) {
  if (!resident) return pim::Residency::declared(k);
  pim::Residency none;
  none.resident.assign(k.tensors.size(), false);
  return pim::overrideResidency(k, none, *resident, "");
}

/// load() must refuse `path` with a message naming it and containing `what`, and leave it untouched.
void expectRefused(const std::string& path, const std::string& what) {
  const std::string before = readBytes(path);
  const bool journal = fs::exists(path + "-journal"), wal = fs::exists(path + "-wal");
  try {
    SessionFile::load(path);
    ADD_FAILURE() << path << " was accepted";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
  }
  EXPECT_EQ(readBytes(path), before);
  EXPECT_EQ(fs::exists(path + "-journal"), journal);
  EXPECT_EQ(fs::exists(path + "-wal"), wal);
}

}  // namespace

TEST(SessionFile, RoundTripsARealExploration) {
  auto p = pim::test::problem("hbm-pim", "red", "b=1,n=4096");
  const SessionData d = explored(*p);
  ASSERT_GT(d.records.size(), 10u);
  ASSERT_TRUE(d.progress.best);
  TempDir dir;
  const std::string path = dir.file("s.pimsession");
  SessionFile::save(path, d);
  EXPECT_EQ(dir.entries(), 1u);  // one self-contained file: no journal, no WAL, no temporary left
  SessionData back = SessionFile::load(path);
  pim::resolveDrafts(back, *p);

  EXPECT_EQ(back.settings.backend, "hbm-pim");
  EXPECT_EQ(back.settings.kernel, "red");
  EXPECT_EQ(back.settings.shape, "b=1,n=4096");
  EXPECT_EQ(back.settings.strategy, "exhaustive");
  EXPECT_EQ(back.settings.rules, (std::vector<bool>{true, false, true}));
  EXPECT_TRUE(back.settings.stagedRearrangement);
  EXPECT_FALSE(back.settings.groupCommands);
  EXPECT_EQ(back.settings.maxSimulations, 123u);
  EXPECT_EQ(back.progress.stage, d.progress.stage);
  EXPECT_EQ(back.progress.generated, d.progress.generated);
  ASSERT_EQ(back.progress.pruned.size(), d.progress.pruned.size());
  for (std::size_t i = 0; i < d.progress.pruned.size(); ++i) {  // in force: the saved switches, not the run's
    EXPECT_EQ(back.progress.pruned[i].name, d.progress.pruned[i].name);
    EXPECT_EQ(back.progress.pruned[i].number, d.progress.pruned[i].number);
    EXPECT_EQ(back.progress.pruned[i].removed, d.progress.pruned[i].removed);
  }
  EXPECT_EQ(back.progress.remaining, d.progress.remaining);
  EXPECT_EQ(back.progress.simulated, d.progress.simulated);
  EXPECT_EQ(back.progress.best, d.progress.best);
  EXPECT_EQ(back.progress.bestNs, d.progress.bestNs);
  EXPECT_EQ(back.progress.elapsedSeconds, d.progress.elapsedSeconds);
  EXPECT_EQ(back.predictorErrorPct, d.predictorErrorPct);
  EXPECT_EQ(back.note, d.note);
  EXPECT_EQ(back.view, d.view);

  ASSERT_EQ(back.records.size(), d.records.size());
  int simulated = 0, failed = 0;
  for (std::size_t i = 0; i < d.records.size(); ++i) {
    const pim::DraftRecord& a = d.records[i];
    const pim::DraftRecord& b = back.records[i];
    EXPECT_EQ(a.draft, b.draft) << i;  // parts decoded through the problem equal the explorer's
    EXPECT_EQ(a.predictedNs, b.predictedNs);
    EXPECT_EQ(a.computeOnlyCycles, b.computeOnlyCycles);
    EXPECT_EQ(a.error, b.error);
    ASSERT_EQ(a.simulated != nullptr, b.simulated != nullptr) << i;
    if (a.simulated) {
      ++simulated;
      expectSameEval(*a.simulated, *b.simulated);
      EXPECT_TRUE(b.simulated->unitStats.empty());
    }
    failed += !a.error.empty();
  }
  EXPECT_GT(simulated, 0);
  ASSERT_EQ(back.baselines.size(), d.baselines.size());
  for (std::size_t i = 0; i < d.baselines.size(); ++i) {
    EXPECT_EQ(back.baselines[i].name, d.baselines[i].name);
    EXPECT_EQ(back.baselines[i].available, d.baselines[i].available);
    EXPECT_EQ(back.baselines[i].reason, d.baselines[i].reason);
    EXPECT_EQ(back.baselines[i].summary, d.baselines[i].summary);
    EXPECT_EQ(back.baselines[i].draft, d.baselines[i].draft);
    expectSameEval(back.baselines[i].eval, d.baselines[i].eval);
  }
  // A second save replaces the first in place.
  back.note = "second";
  SessionFile::save(path, back);
  EXPECT_EQ(SessionFile::load(path).note, "second");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(SessionFile, BackendOverrideAndDslSourceRoundTrip) {
  pim::Backend b = pim::builtinBackends().get("hbm-pim");
  b.setParameter("system.devices", b.system.devices * 2);
  SessionData d;
  d.settings.backendJson = b.toJson();
  d.settings.kernel.clear();
  d.settings.kernelFile = "/nowhere/k.pim";
  d.settings.kernelSource = "kernel with 'quotes' and\nnewlines; and unicode µ";
  TempDir dir;
  SessionFile::save(dir.file("o.pimsession"), d);
  const SessionData back = SessionFile::load(dir.file("o.pimsession"));
  EXPECT_EQ(back.settings.kernelSource, d.settings.kernelSource);
  EXPECT_EQ(back.settings.kernelFile, d.settings.kernelFile);
  EXPECT_TRUE(back.settings.kernel.empty());
  const pim::Backend rebuilt = pim::parseBackend(back.settings.backendJson, "session");
  EXPECT_EQ(rebuilt.hash(), b.hash());
  EXPECT_EQ(rebuilt.system.devices, b.system.devices);
}

TEST(SessionFile, FailedSaveKeepsThePreviousFile) {
  TempDir dir;
  const std::string path = dir.file("keep.pimsession");
  SessionData good;
  good.note = "previous";
  SessionFile::save(path, good);
  const std::string before = readBytes(path);

  SessionData bad;
  bad.progress.best = 3;  // no such record: refused inside the write transaction
  EXPECT_THROW(SessionFile::save(path, bad), InputError);
  EXPECT_EQ(readBytes(path), before);
  EXPECT_EQ(SessionFile::load(path).note, "previous");
  EXPECT_EQ(dir.entries(), 1u);  // the temporary is gone

  try {
    SessionFile::save(dir.file("missing-dir/x.pimsession"), good);
    ADD_FAILURE() << "saved into a missing directory";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing-dir/x.pimsession"), std::string::npos) << e.what();
  }
}

TEST(SessionFile, RefusesForeignCorruptAndNewerFiles) {
  TempDir dir;
  try {
    SessionFile::load(dir.file("absent.pimsession"));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("absent.pimsession: no such session file"), std::string::npos);
  }

  const std::string text = dir.file("text.pimsession");
  writeBytes(text, "this is not a database, just some text that is long enough to have a header\n");
  expectRefused(text, "not a PIMScope session");

  const std::string foreign = dir.file("foreign.pimsession");
  setPragma(foreign, "CREATE TABLE t(x); PRAGMA application_id = 1234;");
  expectRefused(foreign, "not a PIMScope session (application id 0x000004D2)");

  const std::string empty = dir.file("empty.pimsession");
  writeBytes(empty, "");
  expectRefused(empty, "not a PIMScope session");

  const std::string store = dir.file("runs.db");
  { pim::ResultsStore::open(store); }
  expectRefused(store, "a PIMScope results store, not a session file");

  const std::string newer = dir.file("newer.pimsession");
  SessionFile::save(newer, SessionData{});
  setPragma(newer, "PRAGMA user_version = 99;");
  expectRefused(newer, "written by a newer PIMScope (session format 99");

  // Damage the middle of a real session: a table's pages become garbage.
  auto p = pim::test::problem("hbm-pim", "red", "b=1,n=4096");
  const std::string corrupt = dir.file("corrupt.pimsession");
  SessionFile::save(corrupt, explored(*p));
  std::string bytes = readBytes(corrupt);
  ASSERT_GT(bytes.size(), 4096u * 3);
  for (std::size_t i = 4096 + 8; i < bytes.size() - 4096; ++i)
    bytes[i] = static_cast<char>(0xA5 ^ (i & 0xFF));
  writeBytes(corrupt, bytes);
  expectRefused(corrupt, "corrupt");
}

TEST(SessionFile, RefusesRecordsOfAnotherProblem) {
  SessionData d;
  d.records.push_back(pim::DraftRecord{});
  d.records.back().draft.id = ~std::uint64_t{0} >> 1;
  TempDir dir;
  SessionFile::save(dir.file("x.pimsession"), d);
  SessionData back = SessionFile::load(dir.file("x.pimsession"));
  auto p = pim::test::problem("hbm-pim", "red", "b=1,n=4096");
  EXPECT_THROW(pim::resolveDrafts(back, *p), InputError);
}

// The shipped example (datasets/sessions, written by `pimscope --save-session`) must never silently go stale:
// its best draft, re-simulated by today's engine, has the stored cycles.
TEST(SessionFile, ShippedExampleMatchesTheEngine) {
  const std::string path = pim::dataDir() + "/sessions/gemv_hbm-pim.pimsession";
  SessionData d = SessionFile::load(path);
  EXPECT_EQ(d.settings.backend, "hbm-pim");
  EXPECT_EQ(d.settings.kernel, "gemv");
  EXPECT_EQ(d.settings.shape, "b=1,out=4096,in=4096");
  EXPECT_TRUE(d.settings.backendJson.empty());
  const pim::Kernel k = pim::KernelLibrary::builtin().get(d.settings.kernel);
  pim::Problem p(pim::builtinBackends().get(d.settings.backend), k, pim::parseShape(k, d.settings.shape),
                 storedResidency(k, d.settings.resident));
  pim::resolveDrafts(d, p);
  ASSERT_TRUE(d.progress.best);
  const pim::DraftRecord& best = d.records.at(*d.progress.best);
  ASSERT_TRUE(best.simulated);
  pim::EvalOptions o;
  o.optimizer.stagedRearrangement = d.settings.stagedRearrangement;
  o.optimizer.groupCommands = d.settings.groupCommands;
  o.keepUnitStats = false;
  const pim::Evaluation now = pim::evaluateDraft(p, best.draft, o);
  EXPECT_EQ(now.totalCycles, best.simulated->totalCycles) << "regenerate with pimscope --save-session";
  EXPECT_EQ(now.cycles, best.simulated->cycles);
  EXPECT_DOUBLE_EQ(now.timeNs, best.simulated->timeNs);
  EXPECT_DOUBLE_EQ(now.timeNs, d.progress.bestNs);
  // Small enough to ship: records and baselines only, no per-bank tables.
  EXPECT_LT(fs::file_size(path), 512u * 1024);
}

// Rules are stored by name (format 2): a position would silently switch another rule on or off once a rule
// is added to the registry. A rule the file does not name was not in force when it was saved; a rule this
// build does not know is dropped rather than refusing the file.
TEST(SessionFile, RulesAreKeyedByName) {
  SessionData d;
  d.settings.rules = {true, false, true};
  d.progress.pruned = {
      {1, "redundant", true, 11}, {2, "simd-alignment", false, 22}, {3, "performance-equivalence", true, 33}};
  TempDir dir;
  const std::string path = dir.file("rules.pimsession");
  SessionFile::save(path, d);
  setPragma(path,
            "DELETE FROM prune_rules WHERE name = 'redundant';"
            "UPDATE prune_rules SET seq = seq + 10;"
            "INSERT INTO prune_rules VALUES (0, 'retired-rule', 1, 99);");
  const SessionData back = SessionFile::load(path);
  EXPECT_EQ(back.settings.rules, (std::vector<bool>{false, false, true}));
  // The retired rule has no switch, but what it pruned stays part of the saved run's counts.
  std::vector<std::uint64_t> removed;
  for (const pim::RuleCount& r : back.progress.pruned) removed.push_back(r.removed);
  EXPECT_EQ(removed, (std::vector<std::uint64_t>{0, 22, 33, 99}));
  EXPECT_EQ(back.progress.pruned.back().name, "retired-rule");
}

// Format 1 kept rules 1..3 and their counts in fixed columns; such files (the shipped example as saved before
// timing model 3, kept as a fixture) open with the same settings and counts, by rule name.
TEST(SessionFile, Format1FileOpensWithItsRulesAndCounts) {
  const std::string path = std::string(PIMSCOPE_TEST_DATA_DIR) + "/sessions/format1_gemv_hbm-pim.pimsession";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(("file:" + path + "?immutable=1").c_str(), &db,
                            SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr),
            SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT rule1, rule2, rule3, pruned1, pruned2, pruned3, "
                               "(SELECT user_version FROM pragma_user_version) FROM session",
                               -1, &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  std::vector<bool> rules;
  std::vector<std::uint64_t> pruned;
  for (int i = 0; i < 3; ++i) rules.push_back(sqlite3_column_int64(s, i) != 0);
  for (int i = 3; i < 6; ++i) pruned.push_back(static_cast<std::uint64_t>(sqlite3_column_int64(s, i)));
  const auto version = sqlite3_column_int64(s, 6);
  sqlite3_finalize(s);
  sqlite3_close(db);
  ASSERT_EQ(version, 1) << path << " is not a format-1 file";

  const SessionData d = SessionFile::load(path);
  const auto& registry = pim::PruneRuleRegistry::builtin();
  ASSERT_EQ(d.settings.rules.size(), registry.size());
  for (std::size_t i = 0; i < 3; ++i) {
    const auto at = registry.find(pim::format1RuleNames()[i]);
    ASSERT_TRUE(at) << pim::format1RuleNames()[i];
    EXPECT_EQ(d.settings.rules[*at], rules[i]) << i;
    EXPECT_EQ(d.progress.pruned[*at].removed, pruned[i]) << i;
  }
  EXPECT_GT(pruned[0], 0u);
}

// Format 3 stores the residency: the kernel's declared one (nullopt) or an exact list, "" included.
TEST(SessionFile, ResidencyRoundTrips) {
  TempDir dir;
  for (const std::optional<std::string>& resident :
       {std::optional<std::string>(), std::optional<std::string>(""), std::optional<std::string>("W,x")}) {
    SessionData d;
    d.settings.resident = resident;
    const std::string path = dir.file("residency.pimsession");
    SessionFile::save(path, d);
    EXPECT_EQ(SessionFile::load(path).settings.resident, resident) << resident.value_or("(declared)");
  }
}

// The window's Model box was not saved: a session explored with the DCC-artifact mode reopened as PIMScope's.
TEST(SessionFile, TheLabellingModelRoundTripsAndOlderFilesArePimScopes) {
  TempDir dir;
  const std::string path = dir.file("model.pimsession");
  using pim::LabelModel;
  for (const LabelModel m : {LabelModel::PimScope, LabelModel::DccKernel, LabelModel::DccInference}) {
    SessionData d;
    d.settings.model = m;
    SessionFile::save(path, d);
    EXPECT_EQ(SessionFile::load(path).settings.model, m) << pim::labelModelName(m);
  }
  setPragma(path, "DROP TABLE label_model; PRAGMA user_version = 3;");  // format 3: before the Model box
  EXPECT_EQ(SessionFile::load(path).settings.model, LabelModel::PimScope);
  SessionData d;
  SessionFile::save(path, d);
  setPragma(path, "UPDATE label_model SET name = 'ramulator';");
  expectRefused(path, "unknown model 'ramulator'");
}

// The crossbar timing (format 7): a session explored in the intended timing must not reopen as PIMCOMP-NN's.
TEST(SessionFile, TheCrossbarTimingRoundTripsAndOlderFilesArePimcompNns) {
  TempDir dir;
  const std::string path = dir.file("timing.pimsession");
  using pim::xbar::TimingModel;
  for (const TimingModel m : {TimingModel::PimcompNn, TimingModel::Intended}) {
    SessionData d;
    d.settings.crossbarTiming = m;
    SessionFile::save(path, d);
    EXPECT_EQ(SessionFile::load(path).settings.crossbarTiming, m) << pim::xbar::timingModelName(m);
  }
  setPragma(path, "DROP TABLE crossbar_timing; PRAGMA user_version = 6;");  // format 6: before the box
  EXPECT_EQ(SessionFile::load(path).settings.crossbarTiming, TimingModel::PimcompNn);
  SessionData d;
  SessionFile::save(path, d);
  setPragma(path, "UPDATE crossbar_timing SET name = 'fast';");
  expectRefused(path, "unknown timing 'fast'");
}

// The network (format 8): a session that compiled resnet18 whole must reopen as resnet18, not as its kernel.
TEST(SessionFile, TheNetworkRoundTripsAndOlderFilesExploreKernels) {
  TempDir dir;
  const std::string path = dir.file("network.pimsession");
  SessionData d;
  d.settings.backend = "crossbar-pimcomp";
  d.settings.network = "resnet18";
  SessionFile::save(path, d);
  EXPECT_EQ(SessionFile::load(path).settings.network, "resnet18");
  setPragma(path, "DROP TABLE network; PRAGMA user_version = 7;");  // format 7: kernels only
  EXPECT_EQ(SessionFile::load(path).settings.network, "");
}

// The element type (format 6): an upmem session run as int32 must reopen as int32, not as the kernel's f16.
TEST(SessionFile, TheElementTypeRoundTripsAndOlderFilesRunAsDeclared) {
  TempDir dir;
  const std::string path = dir.file("dtype.pimsession");
  SessionData d;
  d.settings.dtype = "i32";
  SessionFile::save(path, d);
  EXPECT_EQ(SessionFile::load(path).settings.dtype, "i32");
  setPragma(path, "UPDATE element_type SET name = 'q7';");
  expectRefused(path, "unknown type 'q7'");
  SessionFile::save(path, d);
  setPragma(path, "DROP TABLE element_type; PRAGMA user_version = 5;");
  EXPECT_EQ(SessionFile::load(path).settings.dtype, "");
}

// Formats 1 and 2 were written when every tensor was streamed: they open as an explicit "" (not gemv's
// declared W resident), so the numbers they hold stay the numbers of their problem.
TEST(SessionFile, Format1And2FilesOpenWithEveryTensorStreamed) {
  TempDir dir;
  const std::string path = dir.file("format2.pimsession");
  SessionData d;
  d.settings.resident = "W";
  SessionFile::save(path, d);
  setPragma(path, "DROP TABLE residency; PRAGMA user_version = 2;");
  const SessionData two = SessionFile::load(path);
  ASSERT_TRUE(two.settings.resident);
  EXPECT_EQ(*two.settings.resident, "");
  EXPECT_EQ(two.settings.kernel, "gemv");

  const SessionData one =
      SessionFile::load(std::string(PIMSCOPE_TEST_DATA_DIR) + "/sessions/format1_gemv_hbm-pim.pimsession");
  ASSERT_TRUE(one.settings.resident);
  EXPECT_EQ(*one.settings.resident, "");
  const pim::Kernel k = pim::KernelLibrary::builtin().get(one.settings.kernel);
  EXPECT_FALSE(storedResidency(k, one.settings.resident).any());
}

namespace {

// The run history (format 5): each run is a session of its own, stored whole and read back with the checks a
// file gets; older files have none; a damaged run is refused naming the file and the run.
TEST(SessionFile, TheRunHistoryRoundTripsRunByRun) {
  TempDir dir;
  const std::string path = dir.file("history.pimsession");
  auto p = pim::test::problem("hbm-pim", "red", "b=1,n=4096");
  SessionData d = explored(*p);
  SessionData first = explored(*p);
  first.view.clear();
  first.settings.shape = "b=1,n=4096";
  SessionData second = first;
  second.settings.strategy = "vendor";
  second.records.resize(1);
  second.progress.best.reset();
  d.history.push_back({1, first, 2.5, false, "", 1764000000000});
  d.history.push_back({2, second, 0.75, true, "opened red.pimsession", 1764000001000});
  SessionFile::save(path, d);

  const SessionData back = SessionFile::load(path);
  ASSERT_EQ(back.history.size(), 2u);
  EXPECT_EQ(back.records.size(), d.records.size());
  for (std::size_t i = 0; i < 2; ++i) {
    const pim::SessionRun& a = d.history[i];
    const pim::SessionRun& b = back.history[i];
    EXPECT_EQ(b.number, a.number);
    EXPECT_EQ(b.wallSeconds, a.wallSeconds);
    EXPECT_EQ(b.cancelled, a.cancelled);
    EXPECT_EQ(b.origin, a.origin);
    EXPECT_EQ(b.endedMs, a.endedMs);
    EXPECT_EQ(b.data.settings.strategy, a.data.settings.strategy);
    ASSERT_EQ(b.data.records.size(), a.data.records.size());
    for (std::size_t r = 0; r < a.data.records.size(); ++r) {
      EXPECT_EQ(b.data.records[r].draft.id, a.data.records[r].draft.id);
      ASSERT_EQ(b.data.records[r].simulated != nullptr, a.data.records[r].simulated != nullptr);
      if (a.data.records[r].simulated)
        expectSameEval(*b.data.records[r].simulated, *a.data.records[r].simulated);
    }
    EXPECT_EQ(b.data.progress.best, a.data.progress.best);
    EXPECT_EQ(b.data.progress.simulated, a.data.progress.simulated);
    EXPECT_EQ(b.data.baselines.size(), a.data.baselines.size());
    EXPECT_TRUE(b.data.view.empty());
    EXPECT_TRUE(b.data.history.empty());
  }

  // Format 4 had no history: it opens without one.
  setPragma(path, "DROP TABLE history; PRAGMA user_version = 4;");
  EXPECT_TRUE(SessionFile::load(path).history.empty());

  // A damaged run is refused, naming the file and the run; the file stays as it was.
  SessionFile::save(path, d);
  setPragma(path, "UPDATE history SET session = zeroblob(4096) WHERE number = 2;");
  expectRefused(path, ": run 2 of its history: ");
}

}  // namespace
