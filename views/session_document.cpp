// SPDX-License-Identifier: Apache-2.0
#include "views/session_document.h"

#include <QByteArray>
#include <QCheckBox>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QLineEdit>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/json_input.h"
#include "engine/hw/backend.h"
#include "engine/search/strategy.h"
#include "engine/target/registry.h"
#include "views/control_panel.h"
#include "views/draft_details.h"
#include "views/draft_selection.h"
#include "views/draft_table_panel.h"
#include "views/main_window.h"
#include "views/pareto_plot.h"
#include "views/unit_heatmap.h"
#include "views/what_if_panel.h"

namespace pimgui {

namespace {

std::string bytes(const QByteArray& b) {
  return std::string(b.constData(), static_cast<std::size_t>(b.size()));
}
QByteArray qbytes(const std::string& s) { return QByteArray(s.data(), static_cast<qsizetype>(s.size())); }

std::optional<int> intOf(const ViewState& v, const char* key) {
  auto it = v.find(key);
  if (it == v.end()) return std::nullopt;
  bool ok = false;
  const int i = QString::fromStdString(it->second).toInt(&ok);
  return ok ? std::optional<int>(i) : std::nullopt;
}

// The control panel may hold settings other than the explored ones (edited after the run); they are view
// state too, kept as the same fields the file stores for the run.
nlohmann::json toJson(const pim::SessionSettings& s) {
  // Rules by name, as the session file keeps them: a position would change meaning when a rule is added.
  nlohmann::json rules = nlohmann::json::object();
  const pim::PruneRuleRegistry& registry = pim::PruneRuleRegistry::builtin();
  for (std::size_t i = 0; i < registry.size(); ++i)
    rules[std::string(registry.at(i).name())] = i < s.rules.size() && s.rules[i];
  return {{"backend", s.backend},
          {"kernel", s.kernel},
          {"kernelFile", s.kernelFile},
          {"network", s.network},
          {"kernelSource", s.kernelSource},
          {"shape", s.shape},
          {"dtype", s.dtype},
          {"resident", s.resident ? nlohmann::json(*s.resident) : nlohmann::json(nullptr)},
          {"strategy", s.strategy},
          {"rules", rules},
          {"stagedRearrangement", s.stagedRearrangement},
          {"groupCommands", s.groupCommands},
          {"model", std::string(pim::labelModelName(s.model))},
          {"crossbarTiming", std::string(pim::xbar::timingModelName(s.crossbarTiming))}};
}

pim::SessionSettings fromJson(const nlohmann::json& j) {
  pim::SessionSettings s;
  s.backend = j.at("backend").get<std::string>();
  s.kernel = j.at("kernel").get<std::string>();
  s.kernelFile = j.at("kernelFile").get<std::string>();
  s.kernelSource = j.at("kernelSource").get<std::string>();
  if (const auto n = j.find("network"); n != j.end()) s.network = n->get<std::string>();  // absent: a kernel
  s.shape = j.at("shape").get<std::string>();
  if (const auto t = j.find("dtype"); t != j.end()) s.dtype = t->get<std::string>();  // absent: as declared
  // Null: the kernel's declared residency. Absent: saved before residency, when every tensor was streamed.
  if (const auto r = j.find("resident"); r == j.end())
    s.resident = "";
  else if (!r->is_null())
    s.resident = r->get<std::string>();
  s.strategy = j.at("strategy").get<std::string>();
  if (const auto m = j.find("model"); m != j.end())  // absent: saved before the Model box
    s.model = pim::parseLabelModel(m->get<std::string>()).value_or(pim::LabelModel::PimScope);
  if (const auto t = j.find("crossbarTiming"); t != j.end())  // absent: saved before the Timing box
    s.crossbarTiming = pim::xbar::parseTimingModel(t->get<std::string>()).value_or(s.crossbarTiming);
  const pim::PruneRuleRegistry& registry = pim::PruneRuleRegistry::builtin();
  s.rules.assign(registry.size(), false);  // a rule the state does not name did not exist when it was saved
  auto set = [&](std::string_view name, bool on) {
    if (const auto i = registry.find(name)) s.rules[*i] = on;
  };
  const nlohmann::json& rules = j.at("rules");
  if (rules.is_array()) {  // saved with session format 1: by position
    const auto names = pim::format1RuleNames();
    for (std::size_t i = 0; i < names.size() && i < rules.size(); ++i) set(names[i], rules[i].get<bool>());
  } else {
    for (const auto& [name, on] : rules.items()) set(name, on.get<bool>());
  }
  s.stagedRearrangement = j.at("stagedRearrangement").get<bool>();
  s.groupCommands = j.at("groupCommands").get<bool>();
  return s;
}

}  // namespace

pim::SessionSettings settingsOf(const SessionConfig& c) {
  pim::SessionSettings s;
  s.backend = c.backend;
  if (c.backendOverride) s.backendJson = c.backendOverride->toJson();
  s.kernel = c.kernel;
  s.kernelFile = c.kernelFile;
  s.network = c.network;
  if (!c.kernelFile.empty()) {
    QFile f(QString::fromStdString(c.kernelFile));
    if (f.open(QIODevice::ReadOnly)) s.kernelSource = bytes(f.readAll());
  }
  s.shape = c.shape;
  s.dtype = c.dtype;
  s.resident = c.resident;
  s.strategy = c.strategy;
  s.rules = c.rules;
  s.stagedRearrangement = c.stagedRearrangement;
  s.groupCommands = c.groupCommands;
  s.maxSimulations = c.maxSimulations;
  s.model = c.model;
  s.crossbarTiming = c.crossbarTiming;
  return s;
}

SessionConfig configOf(const pim::SessionSettings& s, const QString& sessionPath, QString* note) {
  const std::string where = sessionPath.toStdString();
  SessionConfig c;
  c.backend = s.backend;
  if (!s.backendJson.empty())
    c.backendOverride =
        std::make_shared<const pim::Backend>(pim::parseBackend(s.backendJson, where + ": what-if backend"));
  c.kernel = s.kernel;
  c.kernelFile = s.kernelFile;
  c.network = s.network;
  if (!s.kernelFile.empty() && !s.kernelSource.empty()) {
    const QString file = QString::fromStdString(s.kernelFile);
    QFile f(file);
    const bool same = f.open(QIODevice::ReadOnly) && bytes(f.readAll()) == s.kernelSource;
    if (!same) {
      // The session explored the stored text; a missing or edited file must not change what reopens.
      const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) +
                          QStringLiteral("/session-kernels");
      const QByteArray hash =
          QCryptographicHash::hash(qbytes(s.kernelSource), QCryptographicHash::Sha256).toHex().left(12);
      const QString copy =
          QDir(dir).filePath(QString::fromLatin1(hash) + QLatin1Char('-') + QFileInfo(file).fileName());
      QDir().mkpath(dir);
      QSaveFile out(copy);
      if (!out.open(QIODevice::WriteOnly) || out.write(qbytes(s.kernelSource)) < 0 || !out.commit())
        throw pim::InputError(where + ": cannot restore kernel " + s.kernelFile + " to " +
                              copy.toStdString());
      c.kernelFile = copy.toStdString();
      if (note)
        *note = QObject::tr("%1 is missing or changed: using the kernel stored in the session").arg(file);
    }
  }
  c.shape = s.shape;
  c.dtype = s.dtype;
  c.resident = s.resident;
  if (!pim::StrategyRegistry::builtin().find(s.strategy))
    throw pim::InputError(where + ": unknown strategy '" + s.strategy + "'");
  c.strategy = s.strategy;
  c.rules = s.rules;
  c.stagedRearrangement = s.stagedRearrangement;
  c.groupCommands = s.groupCommands;
  c.maxSimulations = static_cast<std::size_t>(s.maxSimulations);
  c.model = s.model;
  c.crossbarTiming = s.crossbarTiming;
  return c;
}

ViewState captureView(const MainWindow& w) {
  ViewState v;
  v["window.state"] = bytes(w.saveState());
  v["window.geometry"] = bytes(w.saveGeometry());
  v["pareto.x"] = std::to_string(static_cast<int>(w.pareto()->xObjective()));
  v["pareto.y"] = std::to_string(static_cast<int>(w.pareto()->yObjective()));
  v["pareto.log"] = w.pareto()->logAxes() ? "1" : "0";
  if (w.pareto()->userZoomed()) {
    const auto r = w.pareto()->viewRange();
    v["pareto.view"] = nlohmann::json(r).dump();
  }
  v["heatmap.metric"] = w.heatmap()->metric();
  const QHeaderView* header = w.table()->view()->horizontalHeader();
  v["table.filter"] = w.table()->filterBox()->text().toStdString();
  v["table.sortColumn"] = std::to_string(header->sortIndicatorSection());
  v["table.sortOrder"] = std::to_string(static_cast<int>(header->sortIndicatorOrder()));
  v["table.showPruned"] = w.table()->showPrunedBox()->isChecked() ? "1" : "0";
  QStringList ids;
  for (quint64 id : w.selection()->ids()) ids << QString::number(id);
  v["selection"] = ids.join(QLatin1Char(',')).toStdString();
  v["details.tab"] = std::to_string(w.details()->tabs()->currentIndex());
  v["controls"] = toJson(settingsOf(w.controls()->config())).dump();
  if (w.whatIf()->modified()) v["whatif.current"] = w.whatIf()->current().toJson();
  return v;
}

/// The heat map's metric as saved: a key, or in files before the targets declared their statistics, the
/// index of the bank metric menu of that time.
static std::string heatmapMetricKey(const std::string& saved) {
  static const char* kFormerMenu[] = {
      UnitHeatmap::kPlacedBytes, UnitHeatmap::kTile, "busy_cycles", "activations", "energy_pj",
      UnitHeatmap::kPadding};
  if (saved.size() == 1 && saved[0] >= '0' && saved[0] <= '5') return kFormerMenu[saved[0] - '0'];
  return saved;
}

void applyView(MainWindow& w, const ViewState& v) {
  if (auto it = v.find("window.geometry"); it != v.end()) w.restoreGeometry(qbytes(it->second));
  if (auto it = v.find("window.state"); it != v.end()) w.restoreState(qbytes(it->second));
  const auto x = intOf(v, "pareto.x"), y = intOf(v, "pareto.y");
  const int axes = w.pareto()->axisCount();
  if (x && y && *x >= 0 && *x < axes && *y >= 0 && *y < axes)
    w.pareto()->setObjectives(static_cast<Objective>(*x), static_cast<Objective>(*y));
  if (auto log = intOf(v, "pareto.log")) w.pareto()->setLogAxes(*log != 0);
  if (auto it = v.find("heatmap.metric"); it != v.end()) w.heatmap()->setMetric(heatmapMetricKey(it->second));
  if (auto it = v.find("table.filter"); it != v.end())
    w.table()->filterBox()->setText(QString::fromStdString(it->second));
  const auto column = intOf(v, "table.sortColumn"), order = intOf(v, "table.sortOrder");
  if (column && order) w.table()->view()->sortByColumn(*column, static_cast<Qt::SortOrder>(*order));
  if (auto tab = intOf(v, "details.tab")) w.details()->tabs()->setCurrentIndex(*tab);
  if (auto it = v.find("controls"); it != v.end()) {
    // Only what the panel held on screen; a damaged entry falls back to the explored settings.
    try {
      w.controls()->setConfig(
          configOf(fromJson(pim::parseJsonInput(it->second, "session controls")), QString()));
    } catch (const std::exception&) {
    }
  }
  if (auto it = v.find("whatif.current"); it != v.end()) {
    try {
      const pim::Backend current = pim::parseBackend(it->second, "session what-if state");
      if (current.name == w.whatIf()->original().name) w.whatIf()->setState(w.whatIf()->original(), current);
    } catch (const std::exception&) {
    }
  }
  if (auto pruned = intOf(v, "table.showPruned")) w.table()->showPrunedBox()->setChecked(*pruned != 0);
}

QList<quint64> storedSelection(const ViewState& v) {
  QList<quint64> ids;
  auto it = v.find("selection");
  if (it == v.end()) return ids;
  for (const QString& s : QString::fromStdString(it->second).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    bool ok = false;
    const quint64 id = s.toULongLong(&ok);
    if (ok) ids << id;
  }
  return ids;
}

std::optional<std::array<double, 4>> storedParetoView(const ViewState& v) {
  auto it = v.find("pareto.view");
  if (it == v.end()) return std::nullopt;
  try {
    return pim::parseJsonInput(it->second, "session Pareto view").get<std::array<double, 4>>();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace pimgui
