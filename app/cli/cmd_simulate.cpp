// SPDX-License-Identifier: Apache-2.0
// `simulate`: the bank-level simulation of one schedule — a draft, the vendor default, or GPU-only execution.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "app/cli/cli_common.h"
#include "engine/common/error.h"
#include "engine/schedule/parts_text.h"
#include "engine/search/baselines.h"
#include "engine/target/dram_pim/dcc_artifact/artifact_model.h"
#include "engine/target/registry.h"
#include "engine/workflow/mapping_schedule.h"
#include "engine/workflow/sub_map_run.h"

namespace pim::cli {
namespace {

struct SimulateOptions {
  ProblemOptions problem;
  std::string schedule = "vendor";
  std::string refresh = "on";
  std::string trace;
  std::string indexing = "exact";
  std::string model = "pimscope";
  std::string timing = "pimcomp-nn";
  bool noStaged = false, noGroupCommands = false;
  BoundaryPassFlags boundary;
  int dpus = -1,
      tasklets = -1;  // upmem: PrIM's NR_DPUS for the vendor schedule; tasklets per DPU (-1: not given)
  bool noExtrapolation = false;
  bool json = false;
};

constexpr std::string_view kMappingPrefix = "mapping:";

// The upmem-only options, refused elsewhere (they would be ignored), and the settings they and a mapping
// file make before the problem is built.
ProblemOptions problemOptions(const SimulateOptions& o, const MappingSpec* mapping) {
  ProblemOptions po = o.problem;
  const Backend& shipped = builtinBackend(po.backend);
  const bool dpuModel = targetOf(shipped).family() == "upmem";
  auto upmemOnly = [&](bool given, const std::string& option) {
    if (given && !dpuModel)
      throw InputError(option + ": only upmem's DPU model takes it; backend " + shipped.name +
                       " is of family " + std::string(targetOf(shipped).family()));
  };
  upmemOnly(o.dpus >= 0, "--dpus");
  upmemOnly(o.tasklets >= 0, "--tasklets");
  upmemOnly(o.noExtrapolation, "--no-extrapolation");
  if (o.dpus == 0 || o.tasklets == 0)
    throw InputError(std::string(o.dpus == 0 ? "--dpus" : "--tasklets") + ": 0; give at least 1");
  if (o.dpus > 0 && o.schedule != "vendor" && o.schedule != "prim-hst-l" && o.schedule != "prim-scan-rss")
    throw InputError("--dpus: gives PrIM's DPU count (--schedule vendor, prim-hst-l or prim-scan-rss); " +
                     o.schedule + " names its own DPUs");
  if (mapping) {
    if (o.tasklets >= 0) throw InputError("--tasklets: the mapping file gives the tasklets (its level 3)");
    if (mapping->maps.size() == 1) {
      for (const auto& [name, value] : mappingSettings(*mapping, shipped))
        po.whatIf.addShorthand("mapping file " + mapping->file, name, value);
    } else {  // each sub-map sets its own when it runs (runSubMaps), over what --set gives
      for (const MappingMap& map : mapping->maps) {
        MappingSpec one = *mapping;
        one.maps = {map};
        WhatIfOptions probe = po.whatIf;  // sub-maps may differ from each other, not from --set
        for (const auto& [name, value] : mappingSettings(one, shipped))
          probe.addShorthand(map.at.str() + ": " + map.name, name, value);
      }
    }
  }
  if (o.tasklets > 0) po.whatIf.addShorthand("--tasklets", "pim.tasklets", o.tasklets);
  return po;
}

EvalOptions evalOptions(const SimulateOptions& o) {
  if (o.refresh != "on" && o.refresh != "off")
    throw InputError("--refresh: '" + o.refresh + "' is not on or off");
  if (o.indexing != "exact" && o.indexing != "expand") {
    throw InputError("--indexing: '" + o.indexing + "' is not exact or expand");
  }
  EvalOptions eo;
  eo.sim.refresh = o.refresh == "on";
  eo.optimizer.stagedRearrangement = !o.noStaged;
  eo.optimizer.groupCommands = !o.noGroupCommands;
  eo.optimizer.boundary = o.boundary.passes();
  eo.indexing = o.indexing == "exact" ? IndexingStrategy::Exact : IndexingStrategy::Expand;
  eo.preload = true;
  eo.vendorUnits = std::max(0, o.dpus);
  eo.sim.extrapolate = !o.noExtrapolation;
  eo.model = modelOption(o.model);
  eo.sim.crossbarTiming = timingOption(o.timing);
  if (!o.trace.empty()) {
    eo.trace.enabled = true;
    eo.trace.maxEvents = 200000;
  }
  return eo;
}

/// The schedule --schedule names, evaluated: its evaluation, its JSON and a one-line summary.
struct Scheduled {
  Evaluation e;
  nlohmann::json json;
  std::string summary;
};

Scheduled ofDraft(const Problem& p, const Draft& d, const EvalOptions& eo, const std::string& lead) {
  return {evaluateDraft(p, d, eo),
          {{"kind", "draft"}, {"draft", draftJson(p, d)}},
          lead + std::to_string(d.id) + " " + targetOf(p.backend()).candidates(p)->label(d)};
}

// The vendor's and the GPU's schedules, and the family's further baselines by name (upmem: prim-search).
std::optional<Scheduled> ofBaseline(const std::string& name, const Problem& p, const EvalOptions& eo) {
  std::optional<Baseline> baseline;
  if (name == "vendor" || name == "gpu") {
    baseline = name == "vendor" ? vendorBaseline(p, eo) : gpuBaseline(p);
  } else if (!name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) &&
             name.find(':') == std::string::npos) {
    for (Baseline& b : familyBaselines(p, eo))
      if (b.name == name) baseline = std::move(b);
  }
  if (!baseline) return std::nullopt;
  const Baseline& b = *baseline;
  if (!b.available) throw InputError("--schedule " + name + ": " + b.reason);
  Scheduled s{b.eval, {{"kind", name}, {"summary", b.summary}}, b.summary};
  if (b.draft) s.json["draft"] = draftJson(p, *b.draft);
  return s;
}

// A mapping of several sub-maps: each sub-map's line and JSON, then their sum with the host's merge.
Scheduled ofSubMaps(const MappingSpec& m, const Problem& p, const EvalOptions& eo) {
  MappingRun run = runSubMaps(m, p, eo);
  Scheduled s{run.total,
              {{"kind", "mapping"}, {"file", m.file}},
              "mapping " + m.file + ", " + std::to_string(run.subMaps.size()) +
                  " sub-maps run in the order of their indices"};
  nlohmann::json subs = nlohmann::json::array();
  for (const SubMapRun& r : run.subMaps) {
    const Evaluation& e = r.evaluation;
    subs.push_back(
        {{"name", r.name},
         {"shape", shapeString(r.problem->kernel(), r.problem->shape())},
         {"box_lo", r.box.lo},
         {"box_extent", r.box.extent},
         {"draft", draftJson(*r.problem, r.draft)},
         {"notes", r.notes},
         {"settings", nlohmann::json(std::map<std::string, double>(r.settings.begin(), r.settings.end()))},
         {"evaluation", evaluationJson(e, &r.problem->backend())}});
  }
  for (const std::string& line : subMapLines(run)) s.summary += "\n  " + line;
  s.json["sub_maps"] = subs;
  s.json["merge"] = {{"partials", run.mergedPartials}, {"cycles", run.mergeCycles}};
  return s;
}

Scheduled scheduled(const SimulateOptions& o, const Problem& problem, const EvalOptions& eo,
                    const MappingSpec* mapping) {
  if (auto b = ofBaseline(o.schedule, problem, eo)) return std::move(*b);
  if (o.schedule.rfind("draft:", 0) == 0) {
    const std::uint64_t id = parseDraftId(o.schedule.substr(6), "--schedule draft:<id>");
    return ofDraft(problem, candidateOf(problem, id), eo, "draft ");
  }
  if (o.schedule.rfind("parts:", 0) == 0) {
    const std::vector<PartTriple> parts = parsePartsText(o.schedule);
    if (eo.model == LabelModel::PimScope)
      return ofDraft(problem, draftFromParts(problem.space(), parts), eo, "draft ");
    dcc::Tiling t;  // DCC's (groups, cores, tile) form, in the artifact's dimension order
    for (const PartTriple& p : parts) t.push_back({p[0], p[1], p[2]});
    return {dcc::evaluateTiling(problem, t, eo),
            {{"kind", "dcc-parts"}, {"parts", parts}},
            "DCC artifact draft " + dcc::tilingLabel(t)};
  }
  if (mapping) {
    if (eo.model != LabelModel::PimScope)
      throw InputError("--schedule mapping: labels with PIMScope's model; --model " + o.model +
                       " takes parts:[[g,c,tile],...]");
    if (mapping->maps.size() > 1) return ofSubMaps(*mapping, problem, eo);
    const MappedSchedule m = mappedSchedule(*mapping, problem);
    Scheduled s = ofDraft(problem, m.draft, eo, "mapping " + mapping->file + " as draft ");
    for (const std::string& n : m.notes) s.summary += "\n  " + n;
    s.json = {{"kind", "mapping"}, {"file", mapping->file}, {"draft", s.json["draft"]}, {"notes", m.notes}};
    return s;
  }
  std::string more;
  for (const Baseline& b : familyBaselines(problem, eo)) more += ", " + b.name;
  throw InputError("--schedule: '" + o.schedule + "' is not vendor, gpu" + more +
                   ", draft:<id>, parts:[[g,c,n],...] or mapping:FILE");
}

void run(const SimulateOptions& o) {
  std::optional<MappingSpec> mapping;
  if (o.schedule.starts_with(kMappingPrefix))
    mapping = readMappingFile(o.schedule.substr(kMappingPrefix.size()));
  const ProblemOptions po = problemOptions(o, mapping ? &*mapping : nullptr);
  const auto problem = po.build();
  const EvalOptions eo = evalOptions(o);
  requireReadSettings(problem->backend(), eo);
  // Refuse up front what the artifact does not cover (other families would label with their own model).
  if (eo.model != LabelModel::PimScope) dcc::artifactKernel(*problem);
  if (!o.trace.empty() && mapping && mapping->maps.size() > 1)
    throw InputError("--trace: " + mapping->file + " has " + std::to_string(mapping->maps.size()) +
                     " sub-maps, each a program of its own; trace one at a time (a file of that map alone)");
  const Scheduled s = scheduled(o, *problem, eo, mapping ? &*mapping : nullptr);
  if (!o.trace.empty()) {
    if (s.e.traceJson.empty())
      throw InputError("--trace: this schedule has no command timeline (" + o.schedule + ")");
    std::ofstream f(o.trace);
    if (!(f << s.e.traceJson)) throw InputError("--trace: cannot write '" + o.trace + "'");
  }
  if (o.json) {
    nlohmann::json out = evaluationJson(s.e, &problem->backend());
    out["backend"] = problem->backend().name;
    out.update(subjectJson(*problem));
    out["shape"] = shapeString(problem->kernel(), problem->shape());
    out["resident"] = residentNames(problem->kernel(), problem->residency());
    out["schedule"] = s.json;
    out["refresh"] = eo.sim.refresh;
    if (eo.model != LabelModel::PimScope)
      out["model"] = labelModelName(eo.model);  // default output unchanged
    if (targetOf(problem->backend()).searchSettings().crossbarTiming)
      out["timing"] = xbar::timingModelName(eo.sim.crossbarTiming);
    out["optimizer"] = {{"staged_rearrangement", eo.optimizer.stagedRearrangement},
                        {"group_commands", eo.optimizer.groupCommands}};
    if (const auto passes = o.boundary.json(); !passes.is_null())
      out["optimizer"]["boundary_passes"] = passes;
    po.whatIf.annotate(out, problem->backend());
    printJson(out);
    return;
  }
  std::cout << po.whatIf.line(problem->backend()) << problem->title() << ", " << s.summary << "\n"
            << evaluationText(s.e, problem->backend());
}

}  // namespace

void registerSimulateCommands(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  auto* cmd = app.add_subcommand("simulate", "simulate one schedule bank by bank");
  o->problem.addTo(cmd);
  o->problem.addChannelsTo(cmd);
  cmd->add_option(
      "--schedule,-s", o->schedule,
      "vendor | gpu | draft:<id> | parts:[[groups,cores,n],...] (n: PIMScope's representative "
      "index; with a --model dcc-*: DCC's per-core tile, in the artifact's dimension order) | "
      "mapping:FILE (CoMoNM's mapping specification, text or JSON) | upmem: prim-search (PrIM with "
      "its DPUs, tasklets and block grid-searched)");
  cmd->add_option(
         "--dpus", o->dpus,
         "upmem: run PrIM's schedule (vendor, prim-hst-l, prim-scan-rss) on exactly this many DPUs (PrIM's "
         "NR_DPUS; default: the fastest power of two)")
      ->check(unsignedInteger());
  cmd->add_option("--tasklets", o->tasklets, "upmem: tasklets per DPU (a shorthand for --set pim.tasklets=T)")
      ->check(unsignedInteger());
  cmd->add_flag("--no-extrapolation", o->noExtrapolation,
                "upmem: simulate every instruction of each DPU launch instead of slices of its loops");
  addModelOption(cmd, o->model, "pimscope");
  addTimingOption(cmd, o->timing);
  cmd->add_option("--refresh", o->refresh, "on | off");
  cmd->add_option("--trace", o->trace, "write the command timeline as Chrome-trace JSON");
  cmd->add_option("--indexing", o->indexing, "exact (DCC ii) | expand (DCC i)");
  cmd->add_flag("--no-staged", o->noStaged, "naive rearrangement (switch off DCC's staged copies)");
  o->boundary.addTo(cmd);
  cmd->add_flag("--no-group-commands", o->noGroupCommands, "bank-level commands instead of group broadcasts");
  cmd->add_flag("--json", o->json, "machine-readable output");
  cmd->callback([o] { run(*o); });
}

}  // namespace pim::cli
