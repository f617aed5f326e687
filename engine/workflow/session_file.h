// SPDX-License-Identifier: Apache-2.0
// Session files (*.pimsession): one SQLite file holding what the explorer window showed — the problem and
// search settings, the exploration's records and baselines, and the view state as opaque key/value bytes —
// so reopening restores the window without running the exploration again. Qt-free: the GUI stores its
// layout blobs and options as bytes. Format and guarantees: docs/gui.md, "Sessions".
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/search/explorer.h"

namespace pim {

/// The problem and how it was explored (what the control panel and the what-if panel held).
struct SessionSettings {
  std::string backend = "hbm-pim";  // registry name (the what-if copy's origin when backendJson is set)
  std::string backendJson;          // Backend::toJson() of a modified backend, empty for the shipped one
  std::string kernel = "gemv";      // library name; empty when the kernel came from a DSL file
  std::string kernelFile;           // the DSL file's path when it was opened from one
  std::string kernelSource;         // that file's text, so the session opens without the file
  std::string shape;
  std::string dtype;  // every tensor retyped to this element type ("f16", ...); empty: as the kernel declares
  /// Which tensors stay in the banks between calls (engine/kernel/residency.h): nullopt for what the kernel
  /// declares, else the exact comma list of resident tensors ("" = every tensor streamed). Files of formats 1
  /// and 2 load as "": they were saved when every tensor was streamed, and their numbers are of that.
  std::optional<std::string> resident;
  std::string strategy = "predictor";  // a StrategyRegistry name
  /// Per rule of PruneRuleRegistry::builtin(), in its order: on/off. The file keys rules by name.
  std::vector<bool> rules = std::vector<bool>(PruneRuleRegistry::builtin().size(), true);
  bool stagedRearrangement = true;
  bool groupCommands = true;
  std::uint64_t maxSimulations = 0;
  /// Who labelled the drafts (PIMScope's model or the DCC-artifact mode). Files before format 4: PIMScope's.
  LabelModel model = LabelModel::PimScope;
  /// How crossbar backends were timed (SimSettings::crossbarTiming). Files before format 7: PIMCOMP-NN's.
  xbar::TimingModel crossbarTiming = xbar::TimingModel::PimcompNn;
  /// A shipped network (builtinNetworkNames) explored whole instead of the kernel; empty for a kernel.
  /// Files before format 8: a kernel.
  std::string network;
};

struct SessionRun;

/// Everything a session file holds.
struct SessionData {
  SessionSettings settings;
  /// The exploration's records in explorer order. Per-bank tables, command-bus utilisation and energy source
  /// citations are not stored (the window re-simulates the one draft it shows in detail). After load()
  /// each draft has only its id: resolveDrafts() decodes the parts through the problem.
  std::vector<DraftRecord> records;
  std::vector<Baseline> baselines;  // drafts of draft baselines likewise hold only their id after load()
  ExploreProgress progress;  // after load(), `pruned` has one entry per rule of PruneRuleRegistry::builtin()
  std::optional<double> predictorErrorPct;
  std::string note;  // the status-bar note of the run ("no shipped model for ...")
  /// View state: dock layout, geometry, plot axes, filters, selection... opaque bytes per key.
  std::map<std::string, std::string> view;
  /// The window's run history (format 5; empty in older files), oldest first. Each run is a session of its
  /// own without view state or history; its drafts hold only ids after load(), like `records`.
  std::vector<SessionRun> history;
};

/// One exploration of the run history: what it found and how it ran.
struct SessionRun {
  int number = 0;          // the window's run number
  SessionData data;        // settings, records, baselines, progress (no view, no history)
  double wallSeconds = 0;  // from Explore to the last row shown
  bool cancelled = false;
  std::string origin;        // "" for an exploration, "opened x.pimsession" for a session file's run
  std::int64_t endedMs = 0;  // milliseconds since the Unix epoch
};

class SessionFile {
 public:
  /// PRAGMA application_id of every session file ("PSES"); results stores use "PIMS".
  static constexpr std::uint32_t kApplicationId = 0x50534553;
  /// PRAGMA user_version this build writes; newer files are refused. Format 1 kept rules 1..3 and their
  /// counts in fixed columns of the session row; format 2 keys them by rule name in `prune_rules`, so a rule
  /// added to the registry is saved without a new format. Format 3 adds the one-row `residency` table. Format
  /// 1 and 2 files still open (as every tensor streamed). Format 4 adds `label_model`; format 5 the run
  /// history, each run a serialized session of its own in a `history` row; format 6 the `element_type` the
  /// kernel was retyped to (earlier files: as declared); format 7 the `crossbar_timing` (earlier files:
  /// PIMCOMP-NN's); format 8 the shipped `network` compiled whole, "" for a kernel (earlier files: kernels).
  static constexpr int kSchemaVersion = 8;

  /// Writes `data` to `path` atomically: a temporary file next to it is filled in one transaction, closed and
  /// renamed over `path`, so a failed save leaves any previous file intact. Throws InputError naming the
  /// path.
  static void save(const std::string& path, const SessionData& data);
  /// Reads a session file (read-only: the file is never modified). A missing file, a file that is not
  /// SQLite, a corrupt one, another application's database or a newer session format is refused with an
  /// InputError naming the file.
  static SessionData load(const std::string& path);
};

/// The rules of session format 1 by position (its rule1..rule3 columns, and the view state saved with it):
/// the built-in rules of that time.
std::span<const std::string_view> format1RuleNames();

/// Decodes every record's and baseline's candidate from its id through `problem`'s target (a draft, a draft
/// at other kernel-level choices, a compile of a crossbar layer): what a record keeps is its id. Throws
/// InputError when an id is outside the space (the records do not belong to this problem).
void resolveCandidates(const Problem& problem, std::vector<DraftRecord>& records,
                       std::vector<Baseline>& baselines);
/// resolveCandidates for the records and baselines of `data` (loaded by SessionFile::load).
void resolveDrafts(SessionData& data, const Problem& problem);

}  // namespace pim
