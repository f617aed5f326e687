// SPDX-License-Identifier: Apache-2.0
// Options and output helpers shared by the pimscope-cli commands.
#pragma once
#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/core/problem.h"
#include "engine/search/evaluate.h"

namespace pim::cli {

/// --backend, --kernel / --kernel-file and --dims, resolved into a Problem.
struct ProblemOptions {
  std::string backend;
  std::string kernel;
  std::string kernelFile;
  std::string dims;
  int channels = 0;  // 0: the backend as shipped; else restrict it to this many pseudo-channels
  void addTo(CLI::App* cmd);
  void addChannelsTo(CLI::App* cmd);
  std::unique_ptr<Problem> build() const;  // throws InputError
};

/// A plain text table with right-aligned numeric columns.
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
/// "45 s", "3 min 5 s", "2 h 10 min"
std::string durationText(double seconds);

/// The estimate on a progress line, from the rate since `key` was first seen (a new shape or stage restarts
/// it): "" until a second has passed with work done, else ", about 3 min 5 s left".
class EtaMeter {
 public:
  std::string operator()(const std::string& key, double done, double total);

 private:
  std::string m_key;
  double m_startDone = 0;
  std::chrono::steady_clock::time_point m_start;
};
nlohmann::json draftJson(const DraftSpace& space, const Draft& d);
/// cycles / time_ns / energy_pj of an evaluation, as `simulate --json` prints them; with `unitsOf`, also its
/// per-unit statistics as that backend's target declares them (key: the inner unit's plural, e.g. "banks").
nlohmann::json evaluationJson(const Evaluation& e, const Backend* unitsOf = nullptr);
/// A human-readable breakdown table of an evaluation.
std::string evaluationText(const Evaluation& e, const Backend& b);
void printJson(const nlohmann::json& j);

// One registration function per command family; main() calls each once.
void registerCatalogCommands(CLI::App& app);
void registerDraftCommands(CLI::App& app);
void registerSimulateCommands(CLI::App& app);
void registerExploreCommands(CLI::App& app);
void registerWorkflowCommands(CLI::App& app);

}  // namespace pim::cli
