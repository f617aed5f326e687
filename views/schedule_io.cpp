// SPDX-License-Identifier: Apache-2.0
#include "views/schedule_io.h"

#include <QDir>
#include <QFileInfo>
#include <exception>

#include "engine/common/error.h"
#include "engine/kernel/library.h"
#include "engine/search/schedule_file.h"
#include "engine/target/registry.h"
#include "engine/workflow/mapping_schedule.h"
#include "engine/workflow/sub_map_run.h"
#include "views/draft_analysis.h"
#include "views/exploration_session.h"

namespace pimgui {

QString scheduleExportFilters() {
  return QObject::tr(
      "Schedule file (*.json);;IR text (*.ir *.txt);;Command listing (*.cmd);;Chrome trace (*.trace.json)");
}

ScheduleExport scheduleExportFor(const QString& path, const QString& selectedFilter) {
  const QString p = path.toLower();
  if (p.endsWith(QLatin1String(".trace.json"))) return ScheduleExport::Trace;
  if (p.endsWith(QLatin1String(".ir")) || p.endsWith(QLatin1String(".txt"))) return ScheduleExport::IrText;
  if (p.endsWith(QLatin1String(".cmd"))) return ScheduleExport::Commands;
  if (p.endsWith(QLatin1String(".json"))) return ScheduleExport::Schedule;
  if (selectedFilter.startsWith(QLatin1String("IR"))) return ScheduleExport::IrText;
  if (selectedFilter.startsWith(QLatin1String("Command"))) return ScheduleExport::Commands;
  if (selectedFilter.startsWith(QLatin1String("Chrome"))) return ScheduleExport::Trace;
  return ScheduleExport::Schedule;
}

QString exportAnalysedDraft(const DraftAnalysis& a, const pim::EvalOptions& options,
                            std::optional<double> predictedNs, ScheduleExport format, const QString& path) {
  if (!a.problem) return QObject::tr("no draft is selected");
  if (!a.error.empty() && format != ScheduleExport::IrText)
    return QObject::tr("draft %1 cannot be simulated: %2")
        .arg(a.draft.id)
        .arg(QString::fromStdString(a.error));
  const std::string out = path.toStdString();
  try {
    switch (format) {
      case ScheduleExport::Schedule: {
        pim::EvalOptions o = options;
        o.keepUnitStats = false;  // the file records the totals; its re-import re-simulates the banks
        pim::exportSchedule(out, *a.problem, a.draft, o, *a.evaluation, predictedNs);
        break;
      }
      case ScheduleExport::IrText:
        if (a.irText.empty())
          return QObject::tr("draft %1 has no IR: %2").arg(a.draft.id).arg(a.error.c_str());
        pim::writeFileAtomically(out, a.irText);
        break;
      case ScheduleExport::Commands:
        pim::writeFileAtomically(out, a.commands);
        break;
      case ScheduleExport::Trace: {
        // The analysis keeps no timeline (it is large); simulate once more with tracing on.
        pim::EvalOptions o = options;
        o.keepUnitStats = false;
        o.trace.enabled = true;
        o.trace.maxEvents = 200000;
        const pim::Evaluation e = pim::evaluateDraft(*a.problem, a.draft, o);
        if (e.traceJson.empty()) return QObject::tr("%1: this schedule has no command timeline").arg(path);
        pim::writeFileAtomically(out, e.traceJson);
        break;
      }
    }
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

ImportedScheduleView importScheduleForWindow(const QString& path, const QString& kernelDir) {
  const pim::ImportedSchedule s = pim::importSchedule(path.toStdString());
  const pim::Problem& p = *s.problem;
  ImportedScheduleView v;
  v.config.backend = p.backend().name;
  if (!s.registryMatches) v.config.backendOverride = std::make_shared<const pim::Backend>(p.backend());
  const pim::Kernel& k = p.kernel();
  bool library = false;
  for (const auto& e : pim::KernelLibrary::builtin().entries()) {
    if (e.name == k.name && pim::KernelLibrary::builtin().get(e.name).source == k.source) library = true;
  }
  if (library) {
    v.config.kernel = k.name;
  } else {
    // A kernel from a DSL file: the schedule embeds its source; give the session a file to open.
    QDir().mkpath(kernelDir);
    const QString file = QDir(kernelDir).filePath(QString::fromStdString(k.name) + QStringLiteral(".pim"));
    pim::writeFileAtomically(file.toStdString(), k.source);
    v.config.kernelFile = file.toStdString();
  }
  v.config.shape = pim::shapeString(k, p.shape());
  v.config.stagedRearrangement = s.options.optimizer.stagedRearrangement;
  v.config.groupCommands = s.options.optimizer.groupCommands;
  v.draft = s.draft.id;
  v.recordedCycles = s.recorded.totalCycles;
  v.simulatedCycles = s.evaluation.totalCycles;
  v.summary =
      QObject::tr("Imported %1: draft %2 of %3, re-simulated %L4 cycles (recorded %L5)%6")
          .arg(QFileInfo(path).fileName())
          .arg(v.draft)
          .arg(QString::fromStdString(p.title()))
          .arg(v.simulatedCycles)
          .arg(v.recordedCycles)
          .arg(s.registryMatches ? QString()
                                 : QObject::tr("; the file's %1 parameters differ from the shipped ones "
                                               "and are used")
                                       .arg(QString::fromStdString(p.backend().name)));
  return v;
}

std::optional<QString> runSubMapsForWindow(const QString& path, const SessionConfig& current) {
  const pim::MappingSpec m = pim::readMappingFile(path.toStdString());
  if (m.maps.size() <= 1) return std::nullopt;
  const auto problem = makeProblem(current);
  const pim::MappingRun run = pim::runSubMaps(m, *problem, current.evalOptions());
  QString report = QObject::tr(
                       "%1: %2 sub-maps of %3, run one after another in the order of their indices "
                       "(not one draft, so not a row of the table):")
                       .arg(QFileInfo(path).fileName())
                       .arg(run.subMaps.size())
                       .arg(QString::fromStdString(problem->title()));
  for (const std::string& line : pim::subMapLines(run)) report += "\n  " + QString::fromStdString(line);
  const pim::Evaluation& t = run.total;
  report += QObject::tr(
                "\nTotal %L1 cycles (%L2 us): input rearrangement %L3, compute %L4, output "
                "rearrangement %L5 cycles; energy %L6 nJ.")
                .arg(t.totalCycles)
                .arg(t.timeNs / 1e3, 0, 'f', 1)
                .arg(t.cycles[0])
                .arg(t.cycles[1])
                .arg(t.cycles[2])
                .arg(t.energyPj / 1e3, 0, 'f', 1);
  return report;
}

ImportedScheduleView importMappingForWindow(const QString& path, const SessionConfig& current) {
  const pim::MappingSpec m = pim::readMappingFile(path.toStdString());
  ImportedScheduleView v;
  v.config = current;
  const pim::Backend& base =
      current.backendOverride ? *current.backendOverride : pim::builtinBackends().get(current.backend);
  QString settings;
  const auto values = pim::mappingSettings(m, base);
  if (!values.empty()) {
    auto edited = std::make_shared<pim::Backend>(base);
    for (const auto& [key, value] : values) {
      settings += QObject::tr("; %1 = %2 (was %3)")
                      .arg(QString::fromStdString(key))
                      .arg(value)
                      .arg(base.param(key)->value);
      edited->setParameter(key, value);
    }
    v.config.backendOverride = std::move(edited);
  }
  const auto problem = makeProblem(v.config);
  const pim::MappedSchedule s = pim::mappedSchedule(m, *problem);
  v.draft = s.draft.id;
  v.summary =
      QObject::tr("Imported mapping %1: draft %2 %3 of %4%5")
          .arg(QFileInfo(path).fileName())
          .arg(v.draft)
          .arg(QString::fromStdString(pim::targetOf(problem->backend()).candidates(*problem)->label(s.draft)))
          .arg(QString::fromStdString(problem->title()))
          .arg(settings);
  return v;
}

}  // namespace pimgui
