// SPDX-License-Identifier: Apache-2.0
// `compare`, `export` and `import`: the same kernel on several backends with a verdict, a chosen schedule
// written out (canonical schedule file, IR, command listing, CSV of the drafts, Chrome trace), and a schedule
// file re-simulated to check that it reproduces.
#include <algorithm>
#include <iostream>
#include <sstream>

#include "app/cli/cli_common.h"
#include "app/cli/compare_network.h"
#include "engine/codegen/ir_text.h"
#include "engine/common/error.h"
#include "engine/common/output_file.h"
#include "engine/search/schedule_file.h"
#include "engine/target/registry.h"
#include "engine/workflow/compare.h"

namespace pim::cli {
namespace {

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::string fmt(const char* f, double x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

nlohmann::json cyclesJson(const Evaluation& e) {
  return {{"input_rearrangement", e.cycles[0]},
          {"compute", e.cycles[1]},
          {"output_rearrangement", e.cycles[2]},
          {"total", e.totalCycles}};
}

/// Flags shared by export: how a draft is evaluated.
struct EvalFlags {
  std::string refresh = "on";
  std::string indexing = "exact";
  std::string timing = "pimcomp-nn";
  bool noStaged = false, noGroupCommands = false;
  BoundaryPassFlags boundary;
  void addTo(CLI::App* cmd) {
    cmd->add_option("--refresh", refresh, "on | off");
    cmd->add_option("--indexing", indexing, "exact (DCC ii) | expand (DCC i)");
    addTimingOption(cmd, timing);
    cmd->add_flag("--no-staged", noStaged, "naive rearrangement (switch off DCC's staged copies)");
    cmd->add_flag("--no-group-commands", noGroupCommands, "bank-level commands instead of group broadcasts");
    boundary.addTo(cmd);
  }
  EvalOptions build() const {
    if (refresh != "on" && refresh != "off")
      throw InputError("--refresh: '" + refresh + "' is not on or off");
    if (indexing != "exact" && indexing != "expand")
      throw InputError("--indexing: '" + indexing + "' is not exact or expand");
    EvalOptions eo;
    eo.sim.refresh = refresh == "on";
    eo.optimizer.stagedRearrangement = !noStaged;
    eo.optimizer.groupCommands = !noGroupCommands;
    eo.optimizer.boundary = boundary.passes();
    eo.indexing = indexing == "exact" ? IndexingStrategy::Exact : IndexingStrategy::Expand;
    eo.sim.crossbarTiming = timingOption(timing);
    return eo;
  }
};

// ---- compare ----

struct CompareCmd {
  std::string backends, kernel, kernelFile, dims, dtype, baseline = "gpu", resident, streamed;
  std::string timing = "pimcomp-nn";
  std::size_t maxSimulations = 400;
  WhatIfOptions whatIf;
  bool json = false;
};

/// A row's backend, with the element type it ran in when that is not the requested one.
std::string rowName(const BackendResult& r) { return r.backend + (r.retyped ? " as " + r.elementType : ""); }

void runCompare(const CompareCmd& o) {
  if (o.kernel.empty() && o.kernelFile.empty())
    throw InputError("--kernel: give a library kernel or --kernel-file");
  CompareOptions co;
  co.backends = splitList(o.backends);
  co.baseline = o.baseline;
  co.search.maxSimulations = o.maxSimulations;
  co.search.eval.keepUnitStats = false;
  co.search.eval.sim.crossbarTiming = timingOption(o.timing);
  if (co.search.eval.sim.crossbarTiming != xbar::TimingModel::PimcompNn &&
      std::none_of(co.backends.begin(), co.backends.end(), [](const std::string& name) {
        const auto& all = builtinBackends().all();  // an unknown name is refused by compareBackends
        return std::any_of(all.begin(), all.end(), [&](const Backend& b) {
          return b.name == name && targetOf(b).searchSettings().crossbarTiming;
        });
      }))
    throw InputError("--timing: times crossbar backends; none of " + o.backends + " is one, leave it out");
  if (!o.whatIf.empty()) {
    if (const std::string why = backendCountError(co); !why.empty()) throw InputError(why);
    std::vector<Backend> shipped;
    for (const auto& name : co.backends) shipped.push_back(builtinBackends().get(name));
    co.edited = o.whatIf.applyToEach(shipped);
  }
  const Kernel k = kernelOption(o.kernel, o.kernelFile, o.dtype);
  if (!o.resident.empty() || !o.streamed.empty())
    co.residency = overrideResidency(k, Residency::declared(k), o.resident, o.streamed);
  const Comparison c = compareBackends(k, o.dims, co);
  if (o.json) {
    nlohmann::json results = nlohmann::json::array();
    for (const auto& r : c.results) {
      nlohmann::json parts = nlohmann::json::array();
      if (r.draft) {
        for (std::size_t i = 0; i < r.draft->parts.size() && i < r.partLabels.size(); ++i)
          parts.push_back({r.draft->parts[i].groups, r.draft->parts[i].cores, r.partLabels[i]});
      }
      results.push_back(
          {{"backend", r.backend},
           {"element_type", r.elementType},
           {"available", r.available},
           {"reason", r.reason},
           {"strategy", r.strategy},
           {"draft", r.draft ? nlohmann::json(r.draft->id) : nlohmann::json(nullptr)},
           {"label", r.available ? nlohmann::json(r.draftLabel) : nlohmann::json(nullptr)},
           {"parts", parts},
           {"cycles", r.available ? cyclesJson(r.eval) : nlohmann::json(nullptr)},
           {"time_ns", r.available ? nlohmann::json(r.eval.timeNs) : nlohmann::json(nullptr)},
           {"energy_pj", r.available ? nlohmann::json(r.eval.energyPj) : nlohmann::json(nullptr)},
           {"speedup", r.speedup ? nlohmann::json(*r.speedup) : nlohmann::json(nullptr)}});
    }
    nlohmann::json out = {{"kernel", c.kernel},
                          {"shape", c.shape},
                          {"resident", c.resident},
                          {"baseline", c.baseline},
                          {"baseline_summary", c.baselineSummary},
                          {"baseline_time_ns", c.baselineNs},
                          {"results", results},
                          {"verdict", c.verdict}};
    if (!o.whatIf.empty()) {
      out["what_if"] = nlohmann::json::object();
      for (const Backend& b : co.edited) out["what_if"][b.name] = o.whatIf.json(b);
    }
    printJson(out);
    return;
  }
  for (const Backend& b : co.edited) std::cout << o.whatIf.line(b, "what-if on " + b.name);
  std::cout << c.kernel << "[" << c.shape << "]" << (o.dtype.empty() ? "" : " as " + o.dtype)
            << (c.resident.empty() ? "" : " (" + c.resident + " resident)") << " on " << c.results.size()
            << (c.results.size() == 1 ? " backend" : " backends") << ", against "
            << (c.baseline == "gpu" ? "the GPU" : c.baseline) << " (" << fmt("%.1f", c.baselineNs) << " ns, "
            << c.baselineSummary << ")\n";
  TextTable t({"backend", "schedule", "input", "compute", "output", "total cycles", "time (ns)",
               "energy (nJ)", "speed-up"});
  for (const auto& r : c.results) {
    if (!r.available) {
      t.add({rowName(r), "-", "-", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    t.add({rowName(r), "draft " + std::to_string(r.draft->id) + " " + r.draftLabel, grouped(r.eval.cycles[0]),
           grouped(r.eval.cycles[1]), grouped(r.eval.cycles[2]), grouped(r.eval.totalCycles),
           fmt("%.1f", r.eval.timeNs), fmt("%.1f", r.eval.energyPj / 1e3), fmt("%.2fx", *r.speedup)});
  }
  std::cout << t.str();
  for (const auto& r : c.results) {
    if (!r.available) std::cout << r.backend << ": unavailable: " << r.reason << "\n";
  }
  std::cout << "verdict: " << c.verdict << "\n";
}

// ---- export ----

struct ExportCmd {
  ProblemOptions problem;
  EvalFlags eval;
  std::string draft = "best";
  std::string format = "schedule";
  std::string out;
  std::size_t limit = 200;
  std::size_t maxSimulations = 400;
  bool json = false;
};

void writeCsv(const Problem& p, const EvalOptions& eval, const ExportCmd& o, std::size_t& rows) {
  std::vector<DraftRecord> records;
  if (o.limit == 0) {
    targetOf(p.backend()).candidates(p)->forEachKept([&](const Draft& d) {
      records.push_back(DraftRecord{d, {}, {}, {}, {}});
      return true;
    });
    std::sort(records.begin(), records.end(),
              [](const auto& a, const auto& b) { return a.draft.id < b.draft.id; });
  } else {
    ExploreOptions eo;
    eo.strategy = "exhaustive";
    eo.maxSimulations = o.limit;
    eo.eval = eval;
    Explorer ex(p, eo);
    const std::atomic<bool> never{false};
    ex.run(never);
    records = ex.records();
  }
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  std::string csv = "id,label";
  // A family's own candidates (a crossbar compile, a conv mapping) carry no DCC parts: no part columns then.
  const int partCount =
      std::any_of(records.begin(), records.end(), [](const DraftRecord& r) { return !r.draft.parts.empty(); })
          ? p.space().partCount()
          : 0;
  for (int i = 0; i < partCount; ++i) {
    const std::string n = std::to_string(i + 1);
    csv += ",part" + n + "_groups,part" + n + "_cores,part" + n + "_representative";
  }
  csv +=
      ",simulated,input_rearrangement_cycles,compute_cycles,output_rearrangement_cycles,total_cycles,time_ns,"
      "energy_pj";
  // The figures the family declares as the drafts table's columns (a crossbar's period and throughput, ...).
  const std::vector<StatDecl>& facts = targetOf(p.backend()).factColumns();
  for (const StatDecl& f : facts) csv += "," + f.key;
  csv += ",error\n";
  const auto space = targetOf(p.backend()).candidates(p);  // the family's labels (its own space's, if any)
  for (const auto& r : records) {
    csv += std::to_string(r.draft.id) + "," + quoted(space->label(r.draft));
    for (int i = 0; i < partCount; ++i) {
      if (static_cast<std::size_t>(i) >= r.draft.parts.size()) {  // a family's own candidate: no parts
        csv += ",,,";
        continue;
      }
      const PartChoice& c = r.draft.parts[static_cast<std::size_t>(i)];
      csv += "," + std::to_string(c.groups) + "," + std::to_string(c.cores) + "," +
             quoted(mappingLabel(p.kernel(), p.space().representative(i, c)));
    }
    if (r.simulated) {
      const Evaluation& e = *r.simulated;
      csv += ",1," + std::to_string(e.cycles[0]) + "," + std::to_string(e.cycles[1]) + "," +
             std::to_string(e.cycles[2]) + "," + std::to_string(e.totalCycles) + "," + fmt("%.3f", e.timeNs) +
             "," + fmt("%.3f", e.energyPj);
      for (const StatDecl& f : facts) {
        const auto it =
            std::find_if(e.facts.begin(), e.facts.end(), [&](const auto& kv) { return kv.first == f.key; });
        csv += "," + (it == e.facts.end() ? std::string() : fmt(f.integral ? "%.0f" : "%.3f", it->second));
      }
      csv += ",";
    } else {
      csv += ",0,,,,,," + std::string(facts.size(), ',') + ",";
    }
    csv += r.error.empty() ? "" : quoted(r.error);
    csv += "\n";
  }
  rows = records.size();
  writeFileAtomically(o.out, csv);
}

void runExport(const ExportCmd& o) {
  static const char* kFormats[] = {"schedule", "ir", "commands", "csv", "trace"};
  if (std::find(std::begin(kFormats), std::end(kFormats), o.format) == std::end(kFormats))
    throw InputError("--format: '" + o.format + "' is not schedule, ir, commands, csv or trace");
  if (o.out.empty()) throw InputError("--out: give the file to write");
  requireWritableOutput(o.out, "--out");  // before exploring or simulating, not after
  EvalOptions eo = o.eval.build();
  const auto problem = o.problem.build();
  const Problem& p = *problem;
  requireReadSettings(p.backend(), eo);
  requireRunnable(p);

  nlohmann::json summary = {{"path", o.out},
                            {"format", o.format},
                            {"backend", p.backend().name},
                            {"kernel", p.kernel().name},
                            {"shape", shapeString(p.kernel(), p.shape())}};
  if (o.format == "csv") {
    std::size_t rows = 0;
    writeCsv(p, eo, o, rows);
    summary["rows"] = rows;
  } else {
    // The draft: by id, or the best one the explorer finds.
    Draft d;
    std::optional<double> predicted;
    if (o.draft == "best") {
      BestDraftOptions bo;
      bo.eval = eo;
      bo.maxSimulations = o.maxSimulations;
      const BestDraft best = findBestDraft(p, bo);
      if (!best.warning.empty()) std::cerr << "pimscope-cli: warning: " << best.warning << "\n";
      if (!best.record) throw InputError("--draft best: " + p.title() + ": " + best.reason);
      d = best.record->draft;
      predicted = best.record->predictedNs;
      summary["strategy"] = best.strategy;
    } else {
      d = candidateOf(p, parseDraftId(o.draft, "--draft (an id or best)"));
    }
    summary["draft"] = draftJson(p, d);
    if (o.format == "ir") {
      writeFileAtomically(o.out, draftIr(p, d, eo));
    } else if (o.format == "commands") {
      writeFileAtomically(o.out, draftListing(p, d, eo));
    } else if (o.format == "trace") {
      eo.trace.enabled = true;
      eo.trace.maxEvents = 200000;
      const Evaluation e = evaluateDraft(p, d, eo);
      if (e.traceJson.empty()) throw InputError("--format trace: this schedule has no command timeline");
      writeFileAtomically(o.out, e.traceJson);
      summary["cycles"] = cyclesJson(e);
    } else {
      eo.keepUnitStats = false;
      const Evaluation e = evaluateDraft(p, d, eo);
      exportSchedule(o.out, p, d, eo, e, predicted);
      summary["cycles"] = cyclesJson(e);
      summary["time_ns"] = e.timeNs;
    }
  }
  if (o.json) {
    o.problem.whatIf.annotate(summary, p.backend());
    printJson(summary);
    return;
  }
  std::cout << o.problem.whatIf.line(p.backend()) << "wrote " << o.out << " (" << o.format << ", "
            << p.title();
  if (summary.contains("draft")) std::cout << ", draft " << summary["draft"]["id"].get<std::uint64_t>();
  if (summary.contains("rows")) std::cout << ", " << summary["rows"].get<std::size_t>() << " drafts";
  std::cout << ")\n";
}

// ---- import ----

struct ImportCmd {
  std::string file;
  bool json = false;
};

void runImport(const ImportCmd& o) {
  const ImportedSchedule s = importSchedule(o.file);
  const Problem& p = *s.problem;
  const Evaluation& e = s.evaluation;
  const std::string note =
      s.registryMatches
          ? ""
          : "the shipped " + p.backend().name +
                " differs from (or lacks) the file's parameters; the file's parameters were used";
  if (o.json) {
    nlohmann::json out = evaluationJson(e, &p.backend());
    out["backend"] = p.backend().name;
    out["kernel"] = p.kernel().name;
    out["shape"] = shapeString(p.kernel(), p.shape());
    out["schedule"] = {{"kind", "draft"}, {"draft", draftJson(p, s.draft)}};
    out["refresh"] = s.options.sim.refresh;
    out["optimizer"] = {{"staged_rearrangement", s.options.optimizer.stagedRearrangement},
                        {"group_commands", s.options.optimizer.groupCommands}};
    out["indexing"] = indexingName(s.options.indexing);
    out["file"] = {
        {"path", s.path},
        {"version", s.version},
        {"created", s.created},
        {"backend_hash", p.backend().hash()},
        {"registry_matches", s.registryMatches},
        {"predicted_time_ns", s.predictedNs ? nlohmann::json(*s.predictedNs) : nlohmann::json(nullptr)},
        {"recorded_cycles",
         {{"input_rearrangement", s.recorded.cycles[0]},
          {"compute", s.recorded.cycles[1]},
          {"output_rearrangement", s.recorded.cycles[2]},
          {"total", s.recorded.totalCycles}}}};
    out["cycles_match"] = true;  // importSchedule refuses a file that does not reproduce
    if (!note.empty()) out["note"] = note;
    printJson(out);
    return;
  }
  std::cout << p.title() << ", draft " << s.draft.id << " "
            << targetOf(p.backend()).candidates(p)->label(s.draft) << "\n"
            << evaluationText(e, p.backend())
            << "cycles match the file: " << grouped(static_cast<std::uint64_t>(e.totalCycles))
            << " total, every phase identical (" << s.path << ")\n";
  if (!note.empty()) std::cout << "note: " << note << "\n";
}

}  // namespace

void registerWorkflowCommands(CLI::App& app) {
  auto c = std::make_shared<CompareCmd>();
  auto* cmd = app.add_subcommand(
      "compare", "run one kernel on 2 to 4 backends (or 1 against the GPU) and say where it should run");
  cmd->add_option("--backends", c->backends,
                  "2 to 4 backend names, comma-separated; 1 with --baseline gpu; 1 to 6 with --network")
      ->required();
  auto n = std::make_shared<CompareNetworkCmd>();
  cmd->add_option(
      "--network,-n", n->network,
      "compare a shipped network instead of a kernel: crossbar backends compile it, the others run its "
      "CONV/FC layers one by one (batch 1)");
  cmd->add_option("--model", n->model,
                  "compare a network file (node-list .json or .onnx) instead of a kernel");
  cmd->add_option("--kernel,-k", c->kernel, "library kernel name (see `pimscope-cli kernels`)");
  cmd->add_option("--kernel-file", c->kernelFile, "kernel DSL file instead of a library kernel");
  cmd->add_option("--dims,-d", c->dims, "dimension sizes, e.g. b=1,n=4096 (defaults fill the rest)");
  addDTypeOption(cmd, c->dtype);
  cmd->add_option("--baseline", c->baseline, "gpu | one of the compared backends (speed-ups are against it)");
  cmd->add_option(
      "--resident", c->resident,
      "tensors kept in the banks between calls on every backend, e.g. W or K,V (default: what the "
      "kernel declares)");
  cmd->add_option("--streamed", c->streamed,
                  "tensors moved from and to the host layout on every call, overriding the kernel's default");
  cmd->add_option("--max-simulations", c->maxSimulations,
                  "cap on simulations per backend without a shipped model (an even sample)")
      ->check(unsignedInteger());
  addTimingOption(cmd, c->timing);
  c->whatIf.addTo(cmd, "of every compared backend that declares it (a name none declares is refused),");
  cmd->add_flag("--json", c->json, "machine-readable output");
  cmd->callback([c, n, cmd] {
    if (n->network.empty() && n->model.empty()) return runCompare(*c);
    for (const char* kernelOnly :
         {"--kernel", "--kernel-file", "--dims", "--dtype", "--baseline", "--resident", "--streamed"})
      if (cmd->count(kernelOnly) > 0)
        throw InputError(std::string(kernelOnly) +
                         ": compares a kernel; leave it out with --network/--model");
    n->backends = c->backends;
    n->timing = c->timing;
    n->maxSimulations = c->maxSimulations;
    n->whatIf = c->whatIf;
    n->json = c->json;
    runCompareNetwork(*n);
  });

  auto e = std::make_shared<ExportCmd>();
  cmd = app.add_subcommand("export", "write a schedule as a schedule file, IR, commands, CSV or trace");
  e->problem.addTo(cmd);
  e->problem.addChannelsTo(cmd);
  e->eval.addTo(cmd);
  cmd->add_option("--draft", e->draft, "draft id, or best (run the explorer)");
  cmd->add_option("--format", e->format, "schedule | ir | commands | csv | trace");
  cmd->add_option("--out,-o", e->out, "file to write (replaced atomically)")->required();
  cmd->add_option("--limit", e->limit, "csv: simulate this many kept drafts (an even sample; 0 = none)")
      ->check(unsignedInteger());
  cmd->add_option("--max-simulations", e->maxSimulations, "best: cap on simulations without a shipped model")
      ->check(unsignedInteger());
  cmd->add_flag("--json", e->json, "machine-readable summary");
  cmd->callback([e] { runExport(*e); });

  auto i = std::make_shared<ImportCmd>();
  cmd = app.add_subcommand("import", "re-simulate a schedule file and check it reproduces its cycles");
  cmd->add_option("file", i->file, "schedule file written by `export --format schedule`")->required();
  cmd->add_flag("--json", i->json, "machine-readable output (as simulate --json)");
  cmd->callback([i] { runImport(*i); });
}

}  // namespace pim::cli
