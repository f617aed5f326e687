// SPDX-License-Identifier: Apache-2.0
// Schedule export and import from the window: the selected draft as a canonical schedule file, IR text,
// command listing or Chrome trace, and a schedule file read back into a session that re-explores its problem.
// Everything goes through the engine's schedule_file API, so the window and `pimscope-cli export/import`
// write and accept the same files.
#pragma once
#include <QString>
#include <optional>

#include "engine/search/evaluate.h"
#include "views/session_config.h"

namespace pimgui {

struct DraftAnalysis;

enum class ScheduleExport { Schedule, IrText, Commands, Trace };

/// The file-dialog filter of each format, and the format a chosen path asks for (by suffix: .json schedule,
/// .ir/.txt IR, .cmd commands, .trace.json trace; `fallback` otherwise).
QString scheduleExportFilters();
ScheduleExport scheduleExportFor(const QString& path, const QString& selectedFilter);

/// Writes the analysed draft `a` (its mapping, listing and simulation) to `path` atomically. `options` are
/// the evaluation options the analysis ran with (recorded in a schedule file), `predictedNs` the predictor's
/// estimate when there is one. Returns an empty string on success, else the error naming the file.
QString exportAnalysedDraft(const DraftAnalysis& a, const pim::EvalOptions& options,
                            std::optional<double> predictedNs, ScheduleExport format, const QString& path);

/// A schedule file turned into what the window needs to show it: the session re-exploring its problem (with
/// the file's backend parameters when the shipped backend differs), the draft to select, the re-simulated and
/// recorded totals (equal: importSchedule refuses a file that no longer reproduces) and a one-line summary.
struct ImportedScheduleView {
  SessionConfig config;
  quint64 draft = 0;
  std::int64_t recordedCycles = 0, simulatedCycles = 0;
  QString summary;
};

/// Reads, validates and re-simulates `path`. A kernel that is not the library's is written as a DSL file
/// next to `kernelDir` so the session can open it. Throws pim::InputError naming the file and the problem.
ImportedScheduleView importScheduleForWindow(const QString& path, const QString& kernelDir);

/// A CoMoNM mapping file (text or JSON) applied to the controls' problem `current`: the settings it carries
/// (upmem: tasklets, block) on a copy of the backend, and its draft. Throws pim::InputError naming the place
/// in the file and the rule it breaks.
ImportedScheduleView importMappingForWindow(const QString& path, const SessionConfig& current);

/// A mapping file of several sub-maps (CoMoNM Fig. 8b), which no one draft can say: run on the controls'
/// problem `current` one after another (pim::runSubMaps, as `simulate --schedule mapping:FILE`), its report a
/// line each, with the total. nullopt for a file of one map (importMappingForWindow makes it a draft). Throws
/// pim::InputError naming the place in the file.
std::optional<QString> runSubMapsForWindow(const QString& path, const SessionConfig& current);

}  // namespace pimgui
