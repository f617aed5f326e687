// SPDX-License-Identifier: Apache-2.0
#include "engine/search/schedule_file.h"

#include <chrono>
#include <cstdio>
#include <ctime>

#include "engine/common/error.h"
#include "engine/common/json_input.h"
#include "engine/common/json_output.h"
#include "engine/kernel/dsl.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kPhases[] = {"input_rearrangement", "compute", "output_rearrangement"};

std::string nowIso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json partsJson(const DraftSpace& space, const Draft& d) {
  json parts = json::array();
  for (int i = 0; i < space.partCount() && i < static_cast<int>(d.parts.size()); ++i) {
    const PartChoice& c = d.parts[static_cast<std::size_t>(i)];
    parts.push_back(
        json::array({c.groups, c.cores, mappingLabel(space.kernel(), space.representative(i, c))}));
  }
  return parts;
}

json coreTilesJson(const Kernel& k, const TileMapping& m) {
  json cores = json::array();
  const int n = std::min<int>(kScheduleListedCores, static_cast<int>(m.cores.size()));
  const auto vars = k.loopVarNames();
  for (int i = 0; i < n; ++i) {
    const CoreTile& c = m.cores[static_cast<std::size_t>(i)];
    json data = json::array(), compute = json::object(), tensors = json::object();
    for (const IndexSet& s : c.dataTiles) data.push_back(s.str());
    for (std::size_t l = 0; l < c.computeTile.size() && l < vars.size(); ++l)
      compute[vars[l]] = c.computeTile[l].str();
    for (std::size_t t = 0; t < c.tensors.size() && t < k.tensors.size(); ++t) {
      json axes = json::array();
      for (const IndexUnion& u : c.tensors[t].axes) axes.push_back(u.str());
      tensors[k.tensors[t].name] = {{"indices", axes}, {"elements", c.tensors[t].elements}};
    }
    cores.push_back({{"group", c.group},
                     {"core", c.core},
                     {"idle", c.idle},
                     {"data_tiles", data},
                     {"compute_tile", compute},
                     {"tensors", tensors}});
  }
  return cores;
}

// Field access that names the file and the field path in every message.
class Reader {
 public:
  explicit Reader(std::string path) : m_path(std::move(path)) {}
  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw InputError(m_path + ": " + field + ": " + problem);
  }
  const json& at(const json& obj, const std::string& parent, const char* key) const {
    const std::string field = parent.empty() ? key : parent + "." + key;
    if (!obj.is_object()) fail(parent.empty() ? "(top level)" : parent, "must be an object");
    const auto it = obj.find(key);
    if (it == obj.end()) fail(field, "missing");
    return *it;
  }
  std::string str(const json& obj, const std::string& parent, const char* key) const {
    const json& v = at(obj, parent, key);
    if (!v.is_string()) fail(name(parent, key), "must be a string");
    return v.get<std::string>();
  }
  std::int64_t integer(const json& obj, const std::string& parent, const char* key) const {
    const json& v = at(obj, parent, key);
    if (!v.is_number_integer()) fail(name(parent, key), "must be an integer");
    return v.get<std::int64_t>();
  }
  double number(const json& obj, const std::string& parent, const char* key) const {
    const json& v = at(obj, parent, key);
    if (!v.is_number()) fail(name(parent, key), "must be a number");
    return v.get<double>();
  }
  bool boolean(const json& obj, const std::string& parent, const char* key) const {
    const json& v = at(obj, parent, key);
    if (!v.is_boolean()) fail(name(parent, key), "must be true or false");
    return v.get<bool>();
  }
  const std::string& path() const { return m_path; }

 private:
  static std::string name(const std::string& parent, const char* key) {
    return parent.empty() ? key : parent + "." + key;
  }
  std::string m_path;
};

}  // namespace

json scheduleJson(const Problem& p, const Draft& d, const EvalOptions& o, const Evaluation& e,
                  std::optional<double> predictedNs, std::string created) {
  if (p.network())  // a schedule file describes a kernel at a shape, which a network problem has not
    throw InputError("a schedule file holds a kernel at a shape and " + p.subject() +
                     " is a whole network: its compiled program exports with `pimscope-cli compile "
                     "--dump-instructions FILE`, from the same choices");
  const Backend& b = p.backend();
  const DraftSpace& space = p.space();
  json cycles = json::object();
  for (int i = 0; i < 3; ++i) cycles[kPhases[i]] = e.cycles[static_cast<std::size_t>(i)];
  cycles["total"] = e.totalCycles;
  // A candidate of a family's own space carries no DCC parts, so it has no tile mapping to record.
  json mapping = nullptr;
  if (d.parts.size() == static_cast<std::size_t>(space.partCount())) {
    const TileMapping m = mapDraft(space, d, o.indexing);
    mapping = {{"groups_used", m.groupsUsed},
               {"cores_per_group", m.coresPerGroup},
               {"cores", coreTilesJson(p.kernel(), m)}};
  }
  json options = {{"indexing", indexingName(o.indexing)},
                  {"staged_rearrangement", o.optimizer.stagedRearrangement},
                  {"group_commands", o.optimizer.groupCommands},
                  {"refresh", o.sim.refresh}};
  // Only where the family reads it, so other families' files stay as they were.
  if (targetOf(b).searchSettings().crossbarTiming)
    options["timing"] = xbar::timingModelName(o.sim.crossbarTiming);
  return {{"format", kScheduleFormat},
          {"version", kScheduleVersion},
          {"created", created.empty() ? nowIso8601() : std::move(created)},
          {"backend", {{"name", b.name}, {"hash", b.hash()}, {"parameters", json::parse(b.toJson())}}},
          {"kernel", {{"name", p.kernel().name}, {"source", p.kernel().source}}},
          {"shape", shapeString(p.kernel(), p.shape())},
          {"resident", residentNames(p.kernel(), p.residency())},
          {"draft",
           {{"id", d.id}, {"label", targetOf(b).candidates(p)->label(d)}, {"parts", partsJson(space, d)}}},
          {"options", options},
          {"mapping", mapping},
          {"predicted_time_ns", predictedNs ? json(*predictedNs) : json(nullptr)},
          {"simulated",
           {{"provenance", provenanceName(e.provenance)},
            {"cycles", cycles},
            {"tck_ns", e.tCKns},
            {"time_ns", e.timeNs},
            {"energy_pj", e.energyPj}}}};
}

void exportSchedule(const std::string& path, const Problem& p, const Draft& d, const EvalOptions& o,
                    const Evaluation& e, std::optional<double> predictedNs) {
  writeFileAtomically(path, dumpJson(scheduleJson(p, d, o, e, predictedNs), 2) + "\n");
}

ImportedSchedule readSchedule(const std::string& path) {
  const json j = readJsonFile<json>(path, "schedule file");
  const Reader r(path);
  if (!j.is_object() || !j.contains("format"))
    r.fail("format", "missing: not a PIMScope schedule file (expected \"format\": \"pimscope-schedule\")");
  if (const json& f = j["format"]; !f.is_string() || f.get<std::string>() != kScheduleFormat)
    r.fail("format", f.dump() + " is not \"pimscope-schedule\": not a PIMScope schedule file");
  ImportedSchedule s;
  s.path = path;
  const std::int64_t version = r.integer(j, "", "version");
  if (version > kScheduleVersion)
    r.fail("version", std::to_string(version) + " is newer than this build reads (" +
                          std::to_string(kScheduleVersion) + "); upgrade PIMScope");
  if (version < 1) r.fail("version", std::to_string(version) + " is not a valid version (>= 1)");
  s.version = static_cast<int>(version);
  if (j.contains("created") && j["created"].is_string()) s.created = j["created"].get<std::string>();

  // Backend: rebuilt from the embedded parameters, which must hash to what the exporter recorded.
  const json& bj = r.at(j, "", "backend");
  const std::string backendName = r.str(bj, "backend", "name");
  const std::string hash = r.str(bj, "backend", "hash");
  const json& params = r.at(bj, "backend", "parameters");
  if (!params.is_object()) r.fail("backend.parameters", "must be an object");
  Backend backend = parseBackend(params.dump(), path + ": backend.parameters");
  if (backend.name != backendName)
    r.fail("backend.name", "'" + backendName + "' but the embedded parameters are of '" + backend.name + "'");
  if (backend.hash() != hash)
    r.fail("backend.hash", "'" + hash + "' does not match the embedded parameters (" + backend.hash() +
                               "): the file was edited or is corrupt");
  try {
    s.registryMatches = builtinBackends().get(backendName).hash() == hash;
  } catch (const InputError&) {
    s.registryMatches = false;
  }

  // Kernel and shape.
  const json& kj = r.at(j, "", "kernel");
  const std::string kernelName = r.str(kj, "kernel", "name");
  Kernel kernel = parseKernel(r.str(kj, "kernel", "source"), path + ": kernel.source");
  if (kernel.name != kernelName)
    r.fail("kernel.name", "'" + kernelName + "' but the embedded source defines '" + kernel.name + "'");
  const std::string shapeText = r.str(j, "", "shape");
  Shape shape;
  try {
    shape = parseShape(kernel, shapeText);
  } catch (const InputError& e) {
    r.fail("shape", e.what());
  }

  // Residency: which tensors stay in the banks; a version-1 file predates it and streamed every tensor.
  Residency residency;
  residency.resident.assign(kernel.tensors.size(), false);
  if (s.version >= 2) {
    try {
      residency = overrideResidency(kernel, residency, r.str(j, "", "resident"), "");
    } catch (const InputError& e) {
      r.fail("resident", e.what());
    }
  }

  // Options.
  const json& oj = r.at(j, "", "options");
  const std::string indexing = r.str(oj, "options", "indexing");
  if (indexing == indexingName(IndexingStrategy::Exact)) {
    s.options.indexing = IndexingStrategy::Exact;
  } else if (indexing == indexingName(IndexingStrategy::Expand)) {
    s.options.indexing = IndexingStrategy::Expand;
  } else {
    r.fail("options.indexing", "'" + indexing + "' is not exact or expand");
  }
  s.options.optimizer.stagedRearrangement = r.boolean(oj, "options", "staged_rearrangement");
  s.options.optimizer.groupCommands = r.boolean(oj, "options", "group_commands");
  s.options.sim.refresh = r.boolean(oj, "options", "refresh");
  if (oj.contains("timing")) {  // crossbar files; absent: PIMCOMP-NN's, the only timing before it was written
    const std::string timing = r.str(oj, "options", "timing");
    const auto m = xbar::parseTimingModel(timing);
    if (!m) r.fail("options.timing", "'" + timing + "' is not pimcomp-nn or intended");
    s.options.sim.crossbarTiming = *m;
  }

  try {
    s.problem = std::make_unique<Problem>(std::move(backend), std::move(kernel), std::move(shape),
                                          std::move(residency));
  } catch (const InputError& e) {
    r.fail("shape", e.what());
  }
  const Problem& p = *s.problem;

  // Draft: the id decodes to parts, which must be the recorded ones (the space is the same only if the
  // generator is).
  const json& dj = r.at(j, "", "draft");
  const json& idj = r.at(dj, "draft", "id");
  if (!idj.is_number_unsigned() && !(idj.is_number_integer() && idj.get<std::int64_t>() >= 0))
    r.fail("draft.id", "must be a non-negative integer");
  try {
    s.draft = candidateOf(p, idj.get<std::uint64_t>());
  } catch (const InputError& e) {
    r.fail("draft.id", e.what());
  }
  const json& parts = r.at(dj, "draft", "parts");
  const json expected = partsJson(p.space(), s.draft);
  if (parts != expected)
    r.fail("draft.parts", parts.dump() + " but draft " + std::to_string(s.draft.id) + " of " + p.title() +
                              " is " + expected.dump() + " (the draft space changed)");

  if (j.contains("predicted_time_ns") && !j["predicted_time_ns"].is_null()) {
    s.predictedNs = r.number(j, "", "predicted_time_ns");
  }
  const json& sj = r.at(j, "", "simulated");
  const json& cj = r.at(sj, "simulated", "cycles");
  for (int i = 0; i < 3; ++i)
    s.recorded.cycles[static_cast<std::size_t>(i)] = r.integer(cj, "simulated.cycles", kPhases[i]);
  s.recorded.totalCycles = r.integer(cj, "simulated.cycles", "total");
  s.recorded.timeNs = r.number(sj, "simulated", "time_ns");
  s.recorded.energyPj = r.number(sj, "simulated", "energy_pj");
  return s;
}

ImportedSchedule importSchedule(const std::string& path) {
  ImportedSchedule s = readSchedule(path);
  s.evaluation = evaluateDraft(*s.problem, s.draft, s.options);
  const Evaluation& e = s.evaluation;
  std::string mismatch;
  for (int i = 0; i < 3; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (e.cycles[k] != s.recorded.cycles[k]) {
      mismatch += std::string(mismatch.empty() ? "" : ", ") + kPhases[i] + " " +
                  std::to_string(s.recorded.cycles[k]) + " recorded, " + std::to_string(e.cycles[k]) +
                  " simulated";
    }
  }
  if (e.totalCycles != s.recorded.totalCycles && mismatch.empty()) {
    mismatch = "total " + std::to_string(s.recorded.totalCycles) + " recorded, " +
               std::to_string(e.totalCycles) + " simulated";
  }
  if (!mismatch.empty())
    throw InputError(path + ": simulated.cycles: the schedule does not reproduce on this build (" + mismatch +
                     ")");
  return s;
}

}  // namespace pim
