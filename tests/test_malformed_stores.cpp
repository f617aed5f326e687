// SPDX-License-Identifier: Apache-2.0
// The malformed-input catalogue (issue 22), part 6: results stores and session files, the SQLite formats
// (tests/test_malformed_input.cpp has the introduction). Both are opened by path, so a directory, a device
// or a FIFO is refused before SQLite sees it (a FIFO or /dev/zero would hang it); a file of the right kind
// whose rows disagree with each other is refused with what disagrees.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/store/store.h"
#include "engine/workflow/session_file.h"
#include "tests/cli_run.h"
#include "tests/malformed_input.h"

namespace pim {
namespace {

using namespace pim::test;

// ---------------------------------------------------------------------------------------------------------
// Results stores (--db)

TEST(MalformedStore, DirectoryIsRefused) {
  const TempDir dir;
  expectError([&] { ResultsStore::open(dir.path()); },
              {dir.path() + ": is a directory, not a results store"});
}

TEST(MalformedStore, DevZeroIsRefusedWithoutReading) {
  expectError([] { ResultsStore::open("/dev/zero"); }, {"/dev/zero: is a device, not a results store"});
}

TEST(MalformedStore, FifoIsRefusedWithoutBlocking) {
  const TempDir dir;
  const std::string fifo = makeFifo(dir, "runs.db");
  expectError([&] { ResultsStore::open(fifo); }, {fifo + ": is a FIFO (named pipe), not a results store"});
}

TEST(MalformedStore, SessionFileIsRefusedAndLeftAlone) {
  const TempDir dir;
  const std::string path = dir.file("s.pimsession");
  SessionFile::save(path, SessionData{});
  const std::string before = readBytes(path);
  expectError([&] { ResultsStore::open(path); }, {path + ": ", "0x50534553"});
  EXPECT_EQ(readBytes(path), before);
}

TEST(MalformedStore, DanglingReferenceInAnOldStoreStopsTheMigration) {
  const TempDir dir;
  const std::string path = dir.file("old.db");
  { ResultsStore::open(path); }
  // A schema-3 store (the tables of later steps dropped) whose problem names a backend that is not there:
  // the check after migrating (or opening) must not let it in silently.
  rawExec(path, "PRAGMA foreign_keys = OFF; INSERT INTO problems VALUES (1, 7, 'k', 'ir1:k', 'src', 'n=8');");
  rawExec(path, "DROP TABLE mappings; DROP TABLE sweep_units");
  rawExec(path, "UPDATE meta SET value = 3 WHERE key = 'schema_version'");
  expectError([&] { ResultsStore::open(path); }, {path + ": ", "foreign key violation in table problems"});
}

/// chattr +i (or -i) on `path`: an immutable file or folder cannot be written even by root, who ignores
/// permission bits. False where the capability is missing.
bool setImmutable(const std::string& path, bool on) {
  return std::system(("chattr " + std::string(on ? "+i " : "-i ") + path + " 2>/dev/null").c_str()) == 0;
}

// Was "integrity check: unable to open database file": SQLite cannot create the -shm file beside it.
TEST(MalformedStore, StoreInAReadOnlyFolderSaysSo) {
  const TempDir dir;
  const std::string folder = dir.file("ro");
  std::filesystem::create_directory(folder);
  { ResultsStore::open(folder + "/runs.db"); }
  if (!setImmutable(folder, true)) GTEST_SKIP() << "chattr +i is not permitted here";
  const std::string msg = errorOf([&] { ResultsStore::open(folder + "/runs.db"); });
  setImmutable(folder, false);
  EXPECT_NE(msg.find(folder + "/runs.db: its folder " + folder + " is read-only (Operation not permitted)"),
            std::string::npos)
      << msg;
}

TEST(MalformedStore, ReadOnlyStoreSaysSo) {
  const TempDir dir;
  const std::string path = dir.file("runs.db");
  { ResultsStore::open(path); }
  if (!setImmutable(path, true)) GTEST_SKIP() << "chattr +i is not permitted here";
  const std::string msg = errorOf([&] { ResultsStore::open(path); });
  setImmutable(path, false);
  EXPECT_NE(msg.find(path + ": is read-only (Operation not permitted): a results store is written to"),
            std::string::npos)
      << msg;
}

#ifdef PIMSCOPE_CLI
TEST(MalformedStore, DevZeroAsDbExitsTwoWithOneLine) {
  const CliRun r = cli("explore -b hbm-pim -k red -d b=1,n=4096 --db /dev/zero");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/dev/zero: is a device, not a results store"), std::string::npos) << r.err;
}
#endif

// ---------------------------------------------------------------------------------------------------------
// Session files (*.pimsession)

/// A saved session of three records (draft ids 0, 1, 2) to damage.
std::string savedSession(const TempDir& dir) {
  SessionData d;
  d.records.resize(3);
  for (std::uint64_t i = 0; i < 3; ++i) d.records[i].draft.id = i;
  d.records[1].predictedNs = 12.5;
  const std::string path = dir.file("s.pimsession");
  SessionFile::save(path, d);
  return path;
}

// Saved beside itself under a temporary name that was the name plus a suffix: a 255-byte name failed.
TEST(MalformedSession, LongestValidNameIsSavedAndLoaded) {
  const TempDir dir;
  const std::string path = dir.file(std::string(244, 's') + ".pimsession");
  SessionData d;
  d.note = "long";
  SessionFile::save(path, d);
  EXPECT_EQ(SessionFile::load(path).note, "long");
  EXPECT_EQ(dir.entries(), 1u);
}

TEST(MalformedSession, DirectoryIsRefused) {
  const TempDir dir;
  expectError([&] { SessionFile::load(dir.path()); }, {dir.path() + ": is a directory, not a session file"});
}

TEST(MalformedSession, DevZeroIsRefusedWithoutReading) {
  expectError([] { SessionFile::load("/dev/zero"); }, {"/dev/zero: is a device, not a session file"});
}

TEST(MalformedSession, FifoIsRefusedWithoutBlocking) {
  const TempDir dir;
  const std::string fifo = makeFifo(dir, "s.pimsession");
  expectError([&] { SessionFile::load(fifo); }, {fifo + ": is a FIFO (named pipe), not a session file"});
}

/// A saved session damaged by `sql` is refused as corrupt, saying what is wrong: `problem`.
void expectDamagedSessionRefused(const std::string& sql, const std::string& problem) {
  const TempDir dir;
  const std::string path = savedSession(dir);
  rawExec(path, sql);
  expectError([&] { SessionFile::load(path); }, {path + ": session file is corrupt (" + problem + ")"});
}

TEST(MalformedSession, RecordCountBeyondItsIdsIsRefused) {
  expectDamagedSessionRefused("UPDATE session SET record_count = 1000000000000",
                              "record count 1000000000000 exceeds the ids");
}

TEST(MalformedSession, PredictionOfAMissingRecordIsRefused) {
  expectDamagedSessionRefused("UPDATE session SET predictions = x'0900000000000000F03F'",  // gap 9: of 3
                              "predictions: record 9 does not exist");
}

TEST(MalformedSession, TruncatedDraftIdIsRefused) {
  expectDamagedSessionRefused("UPDATE session SET draft_ids = x'0202FF'",  // the third varint never ends
                              "draft ids: truncated");
}

TEST(MalformedSession, RecordRowOutOfRangeIsRefused) {
  expectDamagedSessionRefused("INSERT INTO records(seq, error) VALUES (77, '')", "record 77 out of range");
}

TEST(MalformedSession, NegativeRecordRowIsNotWrapped) {
  expectDamagedSessionRefused("INSERT INTO records(seq, error) VALUES (-1, '')", "column seq is -1, below 0");
}

TEST(MalformedSession, BestRecordBeyondTheRecordsIsRefused) {
  expectDamagedSessionRefused("UPDATE session SET best = 7", "best record 7 of 3");
}

TEST(MalformedSession, NegativeBestRecordIsNotWrapped) {
  expectDamagedSessionRefused("UPDATE session SET best = -1", "column best is -1, below 0");
}

TEST(MalformedSession, NegativeRecordCountIsNotWrapped) {
  expectDamagedSessionRefused("UPDATE session SET record_count = -1", "column record_count is -1, below 0");
}

}  // namespace
}  // namespace pim
