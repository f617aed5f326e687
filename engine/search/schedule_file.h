// SPDX-License-Identifier: Apache-2.0
// The canonical schedule file (docs/schedule-format.md): one chosen draft of a kernel at a shape on a
// backend, self-contained (the backend's full parameters and the kernel's DSL source are embedded) so that it
// can be re-imported on another machine and re-simulated to exactly the recorded cycles.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/common/output_file.h"  // writeFileAtomically, for callers that export
#include "engine/search/evaluate.h"

namespace pim {

inline constexpr std::string_view kScheduleFormat = "pimscope-schedule";
/// The newest format version this build reads and the one it writes. Older versions are read; newer ones are
/// refused (docs/schedule-format.md, "Versioning").
inline constexpr int kScheduleVersion = 2;  // 2: "resident" (version 1 streamed every tensor)

/// Per-core tiles written into the file for information (the re-import recomputes them).
inline constexpr int kScheduleListedCores = 4;

/// The schedule file of draft `d` of `p`, evaluated under `o` with result `e` (simulated). `predictedNs` is
/// the predictor's estimate when there is one. `created` is an ISO-8601 UTC timestamp; empty = now. Ordered:
/// the embedded backend keeps its file order, which its parameter hash depends on.
nlohmann::ordered_json scheduleJson(const Problem& p, const Draft& d, const EvalOptions& o,
                                    const Evaluation& e, std::optional<double> predictedNs = std::nullopt,
                                    std::string created = "");

/// scheduleJson(...) written atomically to `path` (2-space indented). Throws InputError naming the path.
void exportSchedule(const std::string& path, const Problem& p, const Draft& d, const EvalOptions& o,
                    const Evaluation& e, std::optional<double> predictedNs = std::nullopt);

/// What the file recorded about the simulation.
struct RecordedResult {
  std::array<std::int64_t, 3> cycles{};  // input rearrangement, compute, output rearrangement
  std::int64_t totalCycles = 0;
  double timeNs = 0;
  double energyPj = 0;
};

/// A schedule file read back: the problem rebuilt from the embedded backend and kernel, the draft, the
/// evaluation options, what the file recorded, and the fresh evaluation of the draft.
struct ImportedSchedule {
  std::string path;
  int version = 0;
  std::string created;
  std::unique_ptr<Problem> problem;
  Draft draft;
  EvalOptions options;
  std::optional<double> predictedNs;
  RecordedResult recorded;
  Evaluation evaluation;         // re-simulated by this build (with per-bank statistics)
  bool registryMatches = false;  // the shipped backend of that name has the same parameter hash
};

/// Reads and validates a schedule file and rebuilds its problem and draft, without simulating. Throws
/// InputError naming the file and the field for a file that is not a PIMScope schedule, is malformed, has a
/// newer version, whose embedded backend does not hash to the recorded hash, or whose draft parts do not
/// match the recorded ones.
ImportedSchedule readSchedule(const std::string& path);

/// readSchedule, then re-evaluates the draft. Throws InputError (naming the file and the phase) when the
/// simulated cycles differ from the recorded ones in any phase: the file no longer reproduces.
ImportedSchedule importSchedule(const std::string& path);

}  // namespace pim
