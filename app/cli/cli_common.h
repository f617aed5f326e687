// SPDX-License-Identifier: Apache-2.0
// Options and output helpers shared by the pimscope-cli commands.
#pragma once
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/what_if_options.h"
#include "engine/common/time_left.h"
#include "engine/core/problem.h"
#include "engine/predict/predictor.h"
#include "engine/search/evaluate.h"

namespace pim::cli {

/// --backend, --kernel / --kernel-file, --dims and --resident / --streamed, resolved into a Problem.
struct ProblemOptions {
  std::string backend;
  std::string kernel;
  std::string kernelFile;
  std::string network, networkFile;  // a whole network instead of a kernel (crossbar backends)
  std::string dims;
  std::string dtype;               // --dtype: every tensor retyped (empty: as the kernel declares)
  std::string resident, streamed;  // tensor names overriding the kernel's declared residency
  int channels = 0;                // 0: the backend as shipped; else restrict it to this many pseudo-channels
  WhatIfOptions whatIf;  // applied before --channels, which may not be combined with a --set of what it sets
  void addTo(CLI::App* cmd);
  void addChannelsTo(CLI::App* cmd);
  std::unique_ptr<Problem> build() const;  // throws InputError

 private:
  std::unique_ptr<Problem> problemOf(const Backend& b) const;
};

/// What a problem runs, for JSON output: {"kernel": name, "network": null}, or the reverse for a network.
nlohmann::json subjectJson(const Problem& p);

/// --kernel / --kernel-file, retyped by --dtype when it is given. Throws InputError naming an unknown type.
Kernel kernelOption(const std::string& kernel, const std::string& kernelFile, const std::string& dtype);
/// Adds --dtype to a command.
void addDTypeOption(CLI::App* cmd, std::string& dtype);

/// A number as the CLI prints it: %.12g ("1", "0.066011", "1e+20").
std::string num(double v);

/// A check of a numeric option's text, run before CLI11 converts it: a finite number >= 0. CLI11's own
/// NonNegativeNumber lets "nan" through, and an unsigned option would take "-1" as 2^64-1. The error echoes
/// the text: "--top: '-1' is not a finite number >= 0".
CLI::Validator nonNegative();
/// The same for ids and counts that must be whole: "--draft: '-1' is not a whole number >= 0", and
/// "'99999999999999999999' is above 2^64-1" (an option of a narrower type says "Could not convert").
CLI::Validator unsignedInteger();
/// A whole number in [lo, hi]: "--trials: '0' is not a whole number from 1 to 10000000".
CLI::Validator wholeNumberIn(std::uint64_t lo, std::uint64_t hi);
/// A draft id given as text (`--schedule draft:<id>`, `export --draft <id>`): decimal digits only, at most
/// 2^64-1. Throws InputError "<option>: '<text>' is not a draft id (a whole number >= 0)".
std::uint64_t parseDraftId(const std::string& text, const std::string& option);
/// --model pimscope | dcc-kernel | dcc-inference (dcc-artifact = dcc-kernel): who labels a draft.
void addModelOption(CLI::App* cmd, std::string& model, const char* defaultName);
/// The model --model names; InputError listing the names otherwise.
LabelModel modelOption(const std::string& text);
/// --timing pimcomp-nn | intended: the crossbar profiler's timing mode (default pimcomp-nn).
void addTimingOption(CLI::App* cmd, std::string& timing);
/// The timing --timing names; InputError listing the names otherwise.
xbar::TimingModel timingOption(const std::string& text);
/// Refuses an option the backend's family does not read (ITarget::searchSettings): "--no-staged: backend X
/// (family F) does not read it; leave it out".
void requireReadSettings(const Backend& b, const EvalOptions& o);
/// --threads, checked as nonNegative (0: one per hardware thread).
void addThreadsOption(CLI::App* cmd, unsigned& threads);
/// The thread count to run: `requested` (0: one per hardware thread), at most the hardware threads; a larger
/// request prints a warning on stderr and is capped (each worker thread holds its own caches, and the
/// system refuses threads past its limit).
unsigned cappedThreads(unsigned requested);

/// A plain text table with right-aligned numeric columns.
/// --no-dma-guard-elimination, --no-loop-tightening, --no-branch-hoisting: IMTP's boundary-check passes on
/// UPMEM's generated kernels (BoundaryPasses), on the commands that evaluate (simulate, explore, export).
struct BoundaryPassFlags {
  bool noDmaGuards = false, noTightening = false, noHoisting = false;
  void addTo(CLI::App* cmd);
  BoundaryPasses passes() const { return {!noDmaGuards, !noTightening, !noHoisting}; }
  /// The passes as JSON when one is off (null when all are on: default outputs stay as they were).
  nlohmann::json json() const;
};

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : m_rows{std::move(header)} {}
  void add(std::vector<std::string> row) { m_rows.push_back(std::move(row)); }
  std::string str() const;

 private:
  std::vector<std::vector<std::string>> m_rows;
};

/// "1,234,567"
std::string grouped(std::uint64_t n);
/// The estimate on a progress line, from the rate since `key` was first seen (a new shape or stage restarts
/// it): "" until a second has passed with work done, else ", about 3 min 5 s left".
class EtaMeter {
 public:
  std::string operator()(const std::string& key, double done, double total);

 private:
  TimeLeftMeter m_meter;
};
nlohmann::json draftJson(const Problem& problem, const Draft& d);
/// cycles / time_ns / energy_pj of an evaluation, as `simulate --json` prints them; with `unitsOf`, also its
/// per-unit statistics as that backend's target declares them (key: the inner unit's plural, e.g. "banks").
nlohmann::json evaluationJson(const Evaluation& e, const Backend* unitsOf = nullptr);
/// A human-readable breakdown table of an evaluation.
std::string evaluationText(const Evaluation& e, const Backend& b);
void printJson(const nlohmann::json& j);

// Long commands (explore, train, evaluate): Ctrl-C sets the flag and they stop cleanly, keeping what is
// already stored; on a terminal they keep one progress line on standard error.
std::atomic<bool>& interrupted();
void installInterruptHandler();
bool stderrIsTerminal();
/// Replaces the progress line with `text` (nothing when standard error is not a terminal); "" clears it.
void progressLine(const std::string& text);
/// The model is found by backend name: an edited file under a shipped name, or a --set, gets a model it was
/// not trained on. Warns on standard error when `model` was trained on other parameters than `b`.
void warnIfTrainedElsewhere(const Predictor& model, const Backend& b, const WhatIfOptions& whatIf);

// One registration function per command family; main() calls each once.
void registerCatalogCommands(CLI::App& app);
void registerDraftCommands(CLI::App& app);
void registerSimulateCommands(CLI::App& app);
void registerExploreCommands(CLI::App& app);
void registerTrainCommands(CLI::App& app);
void registerWorkflowCommands(CLI::App& app);
void registerDccCommands(CLI::App& app);
void registerMapCommands(CLI::App& app);
void registerMappingStoreCommands(CLI::App& app);
void registerCompileCommands(CLI::App& app);
void registerLlmCommands(CLI::App& app);
void registerSweepCommands(CLI::App& app);

}  // namespace pim::cli
