// SPDX-License-Identifier: Apache-2.0
// `hierarchies` and `map`: conv layers on a DRAM-PIM memory hierarchy (docs/convmap.md).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <optional>

#include "app/cli/cli_common.h"
#include "app/cli/map_fronts.h"
#include "app/cli/map_store.h"
#include "engine/common/json_input.h"
#include "engine/common/number_text.h"
#include "engine/common/output_file.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapping_io.h"
#include "engine/convmap/mapspace.h"
#include "engine/convmap/network_layers.h"
#include "engine/convmap/result_text.h"
#include "engine/convmap/store_keys.h"
#include "engine/convmap/trace_bridge.h"

namespace pim::cli {

namespace {

using namespace pim::convmap;

/// A hierarchy by shipped name, or a path to a hierarchy file (anything with a '/' or ending in .json).
Hierarchy hierarchyOption(const std::string& text) {
  if (text.find('/') != std::string::npos || text.ends_with(".json")) return loadHierarchyFile(text);
  return builtinHierarchy(text);
}

ConvLayer layerOption(const std::string& kernel, const std::string& dims) {
  if (kernel != "conv2d" && kernel != "fc")
    throw InputError("--kernel: '" + kernel + "' is not a conv-mapping kernel (conv2d, fc)");
  if (dims.empty())
    throw InputError("--dims: required with --kernel " + kernel + " (e.g. R=3,S=3,P=56,Q=56,C=64,K=64)");
  auto layer = parseLayerDims(dims, kernel);
  if (kernel == "fc")
    for (int d : {R, S, P, Q})
      if (layer.bound[d] != 1)
        throw InputError("--dims: an FC layer has R = S = P = Q = 1 (got " + std::string(kDimNames[d]) + "=" +
                         std::to_string(layer.bound[d]) + "); give C (inputs), K (outputs) and N (batch)");
  return layer;
}

ObjectiveSpec objectiveOption(const std::string& text, double alpha) {
  if (text == "latency") return {Objective::Latency};
  if (text == "energy") return {Objective::Energy};
  if (text == "blended") return {Objective::Blended, alpha};
  throw InputError("--objective: '" + text + "' (latency, energy or blended)");
}

void printResult(const ConvLayer& layer, const Hierarchy& h, const MapResult& r) {
  const auto& c = r.cost;
  std::cout << resultSummary(layer, h, r);
  TextTable t(
      {"level", "cycles", "energy nJ", "read B (i/w/o)", "written B (i/w/o)", "MAC operands B (i/w/o)"});
  for (std::size_t lv = 0; lv < c.levels.size(); ++lv) {
    const auto& l = c.levels[lv];
    auto triple = [](const std::array<std::int64_t, 3>& a) {
      return std::to_string(a[0]) + "/" + std::to_string(a[1]) + "/" + std::to_string(a[2]);
    };
    auto operands = l.operandRead;
    operands[Output] += l.operandWritten[Output];
    t.add({h.levels[lv].name, std::to_string(l.cycles), num(l.energyPj / 1000), triple(l.bytesRead),
           triple(l.bytesWritten), triple(operands)});
  }
  std::cout << t.str() << "loop nest:\n" << loopNestText(h, r.mapping);
}

nlohmann::json traceJson(const TraceCheck& t) {
  return {{"row_activations",
           {{"input", t.trace[Input]},
            {"weight", t.trace[Weight]},
            {"output", t.trace[Output]},
            {"total", t.traceTotal()}}},
          {"row_hits",
           {{"input", t.result.tensors[Input].rowHits},
            {"weight", t.result.tensors[Weight].rowHits},
            {"output", t.result.tensors[Output].rowHits}}},
          {"fills", t.result.fills},
          {"iterations", t.result.iterations},
          {"error_pct", t.errorPercent()}};
}

/// The model against the trace on the first `n` valid mappings of a seeded random walk (the validation's
/// sample), whatever their trace costs: each is traced up to the steps `--trace` allows (kMaxTraceSteps), and
/// one past them is counted, not replaced by a cheaper one (that biased the sample towards small nests).
nlohmann::json randomCheck(const ConvLayer& layer, const Hierarchy& h, int n, std::uint64_t seed) {
  const auto sample = randomValidMappings(layer, h, n, seed);
  double worst = 0, sum = 0;
  std::int64_t mostSteps = 0;
  std::size_t traced = 0;
  std::size_t seen = 0;
  for (const auto& m : sample) {
    if (interrupted()) break;  // Ctrl-C: what was traced so far, said so below
    progressLine("random check " + layer.name + ": " + std::to_string(seen++) + " of " +
                 std::to_string(sample.size()) + " mappings traced");
    const double steps = traceSteps(layer, h, m);
    if (steps > static_cast<double>(kMaxTraceSteps)) continue;
    const double e = std::abs(checkAgainstTrace(layer, h, m).errorPercent());
    worst = std::max(worst, e);
    sum += e;
    mostSteps = std::max(mostSteps, static_cast<std::int64_t>(steps));
    ++traced;
  }
  progressLine("");
  return {{"drawn", sample.size()},
          {"mappings", traced},
          {"over_step_limit", seen - traced},
          {"stopped", seen < sample.size()},
          {"most_steps", mostSteps},
          {"max_abs_error_pct", worst},
          {"mean_abs_error_pct", traced == 0 ? 0.0 : sum / static_cast<double>(traced)}};
}

void printTrace(const TraceCheck& t) {
  std::cout << "trace    row activations input " << t.trace[Input] << ", weight " << t.trace[Weight]
            << ", output " << t.trace[Output] << ", total " << t.traceTotal() << "; model " << t.modelTotal()
            << " (" << (t.errorPercent() >= 0 ? "+" : "") << num(t.errorPercent()) << " %)\n";
}

void printRandomCheck(const nlohmann::json& r) {
  const auto drawn = r["drawn"].get<std::size_t>(), over = r["over_step_limit"].get<std::size_t>();
  std::cout << "random   " << r["mappings"].get<std::size_t>() << " of " << drawn
            << " random valid mappings traced (the most steps "
            << withThousands(r["most_steps"].get<std::int64_t>())
            << (over ? ", " + std::to_string(over) + " over the trace's " + withThousands(kMaxTraceSteps) +
                           " steps"
                     : "")
            << (r["stopped"].get<bool>() ? ", stopped by Ctrl-C" : "") << "): largest model error "
            << num(r["max_abs_error_pct"].get<double>()) << " %, mean "
            << num(r["mean_abs_error_pct"].get<double>()) << " %\n";
}

void printStoreLine(const nlohmann::json& s) {
  if (s.value("served", false))
    std::cout << "store    served from " << s["file"].get<std::string>()
              << " (proven optimal before; re-evaluated under today's model)\n";
  else if (s.contains("error"))
    std::cout << "store    not written: " << s["error"].get<std::string>() << "\n";
  else
    std::cout << "store    " << (s.value("stored", false) ? "written to " : "kept the better row of ")
              << s["file"].get<std::string>() << "\n";
}

struct MapArgs {
  std::string backend, kernel, dims, network, layer = "all", objective = "latency", mapper = "auto", out, db;
  double alpha = 0.5, timeLimit = 10, gap = 0;
  std::uint64_t seed = 1, maxEvaluations = 200000;
  bool json = false, trace = false, pareto = false, fresh = false;
  int paretoPoints = 0;  // --pareto N: an epsilon-constraint sweep of N points; 0: the front the search saw
  int randomChecks = 0;
  std::string solver = "cbc";
  int threads = 1;
  std::int64_t maxNodes = 0;
  bool solverLog = false;
};

MapOptions mapOptionsOf(const MapArgs& a) {
  if (a.timeLimit <= 0) throw InputError("--time-limit: must be above 0 seconds");
  MapOptions o;
  o.objective = objectiveOption(a.objective, a.alpha);
  o.timeLimitSeconds = a.timeLimit;
  o.seed = a.seed;
  o.maxEvaluations = static_cast<std::int64_t>(a.maxEvaluations);
  o.cancel = &interrupted();
  o.collectFront = a.pareto && a.paretoPoints == 0;
  o.gap = a.gap;
  o.solver = a.solver;
  o.threads = a.threads;
  o.maxNodes = a.maxNodes;
  if (a.solverLog) o.solverLog = [](const std::string& line) { std::cerr << line << "\n"; };
  return o;
}

/// The layers `map` maps: the one of --kernel/--dims, or --network's (one by --layer, or all).
std::vector<NetworkLayer> layersOf(const MapArgs& a, const Hierarchy& h, std::string& networkName) {
  if (a.kernel.empty() == a.network.empty()) throw InputError("map: give --kernel with --dims, or --network");
  std::vector<NetworkLayer> layers;
  if (!a.kernel.empty()) {
    auto layer = layerOption(a.kernel, a.dims);
    // Elements are the hierarchy's (FP16 on the DRAM-PIM ones) unless --dims says bytes=.
    if (a.dims.find("bytes=") == std::string::npos) layer.elementBytes.fill(h.elementBytes);
    layers.push_back({a.kernel, layer});
    return layers;
  }
  const auto net = networkOption(a.network);
  networkName = net.origin;
  for (auto& l : networkLayers(net, h.elementBytes))
    if (a.layer == "all" || l.name == a.layer) layers.push_back(std::move(l));
  if (layers.empty())
    throw InputError("--layer: '" + a.layer + "' is not a conv or FC layer of " + net.origin);
  return layers;
}

/// The layer's result: a proven optimum from the store (`--db`, unless --fresh or a front is asked for,
/// which the store does not keep), else the mapper's, stored when it is better than the store's row.
MapResult solveLayer(const MapArgs& a, const Hierarchy& h, const IConvMapper& mapper, const MapOptions& o,
                     const ConvLayer& layer, ResultsStore* store, nlohmann::json& storeJson) {
  StoredCheck stored;
  if (store && !a.fresh && !a.pareto) {
    stored = checkStored(*store, layer, h, o.objective, mapper.name());
    if (stored.served) {
      storeJson = {{"served", true}, {"file", store->path()}};
      return *stored.served;
    }
  }
  if (!stored.note.empty() && !a.json)
    std::cerr << "note: layer " << layer.name << ": " << stored.note << "\n";
  auto r = mapper.solve(layer, h, o, [&](const MapProgress& p) {
    progressLine("mapping " + layer.name + " (" + progressText(o.objective, p) + ")");
  });
  progressLine("");
  if (store) {
    storeJson = {{"served", false}, {"file", store->path()}};
    try {
      storeJson["stored"] = storeMapping(*store, layer, h, o.objective, mapper.name(), r, stored.invalid);
    } catch (const InputError& e) {  // a full disk or a locked store loses the row, not the solve
      storeJson["stored"] = false;
      storeJson["error"] = e.what();
      std::cerr << "warning: layer " << layer.name << ": not stored: " << e.what() << "\n";
    }
  }
  if (!stored.note.empty()) storeJson["note"] = stored.note;
  return r;
}

/// Maps one layer and adds what was asked (the trace check, the front, the random check); prints the
/// details when `details`.
std::pair<nlohmann::json, MapResult> mapLayer(const MapArgs& a, const Hierarchy& h, const IConvMapper& mapper,
                                              const MapOptions& o, const ConvLayer& layer,
                                              ResultsStore* store, bool details) {
  MapOptions layerOptions = o;
  layerOptions.objective = normalised(o.objective, layer, h);
  nlohmann::json storeJson;
  auto r = solveLayer(a, h, mapper, layerOptions, layer, store, storeJson);
  auto j = resultJson(layer, h, r);
  if (store) j["store"] = storeJson;
  std::optional<TraceCheck> trace;
  std::string traceRefused;  // the mapping stands; only its check could not run
  if (a.trace) {
    try {
      trace = checkAgainstTrace(layer, h, r.mapping);
      j["trace"] = traceJson(*trace);
    } catch (const InputError& e) {
      traceRefused = e.what();
      j["trace"] = {{"error", traceRefused}};
    }
  }
  std::vector<SweepPoint> sweep;
  if (a.pareto && a.paretoPoints > 0) {
    sweep = epsilonSweep(layer, h, mapper, o, a.paretoPoints, [&](int done, int total) {
      progressLine("pareto " + layer.name + ": " + std::to_string(done) + " of " + std::to_string(total) +
                   " points solved");
    });
    progressLine("");
    j["pareto"] = sweepJson(h, sweep);
  } else if (a.pareto) {
    j["pareto"] = frontJson(h, r);
  }
  if (a.randomChecks > 0) j["random_check"] = randomCheck(layer, h, a.randomChecks, a.seed);
  if (details) {
    printResult(layer, h, r);
    if (store) printStoreLine(storeJson);
    if (trace) printTrace(*trace);
    if (!traceRefused.empty()) std::cout << "trace    not run: " << traceRefused << "\n";
    if (!sweep.empty())
      printSweep(h, sweep);
    else if (a.pareto)
      printFront(h, r);
    if (j.contains("random_check")) printRandomCheck(j["random_check"]);
  }
  return {std::move(j), std::move(r)};
}

/// What `map` gives for its layers: per layer its JSON and a summary row, and the totals.
struct LayersRun {
  nlohmann::json results = nlohmann::json::array();
  TextTable summary{
      {"layer", "shape", "latency cycles", "energy nJ", "row acts", "bound by", "mapper", "gap"}};
  std::int64_t latency = 0, acts = 0;
  double energyPj = 0;
  int repeats = 0;  // layers that took an earlier layer's mapping
};

/// Maps each layer in turn until all are mapped or Ctrl-C. Layers are mapped one by one with no inter-layer
/// reuse, so a layer of a shape mapped before is the same problem: it takes that layer's answer (ResNet-18's
/// 21 mappable layers are 12 shapes).
LayersRun mapLayers(const MapArgs& a, const Hierarchy& h, const IConvMapper& mapper, const MapOptions& o,
                    const std::vector<NetworkLayer>& layers, ResultsStore* store) {
  LayersRun run;
  struct Solved {
    std::string layer;
    std::size_t json, answer;  // indices into run.results and answers
  };
  std::map<std::string, Solved> solved;  // by layerKey
  std::vector<MapResult> answers;
  for (const auto& nl : layers) {
    if (const auto* why = std::get_if<std::string>(&nl.layer)) {
      run.results.push_back({{"layer", nl.name}, {"refused", *why}});
      run.summary.add({nl.name, "-", "-", "-", "-", "refused: " + *why, "-", "-"});
      continue;
    }
    const auto& layer = std::get<ConvLayer>(nl.layer);
    const auto key = layerKey(layer);
    std::string solvedBy;
    if (const auto it = solved.find(key); it != solved.end()) {
      auto j = run.results[it->second.json];
      j["layer"] = layer.name;
      j["same_shape_as"] = it->second.layer;
      run.results.push_back(std::move(j));
      answers.push_back(answers[it->second.answer]);
      solvedBy = "as " + it->second.layer;
      ++run.repeats;
    } else {
      auto [j, r] = mapLayer(a, h, mapper, o, layer, store, layers.size() == 1 && !a.json);
      solved.emplace(key, Solved{layer.name, run.results.size(), answers.size()});
      run.results.push_back(std::move(j));
      answers.push_back(std::move(r));
    }
    const auto& r = answers.back();
    run.latency += r.cost.latencyCycles;
    run.energyPj += r.cost.energyPj;
    run.acts += r.cost.rowActs.total();
    run.summary.add({layer.name, shapeText(layer), std::to_string(r.cost.latencyCycles),
                     num(r.cost.energyPj / 1000), std::to_string(r.cost.rowActs.total()), r.cost.boundBy,
                     solvedBy.empty() ? r.mapper + " " + r.status : solvedBy, gapText(r.gap)});
    if (interrupted()) break;
  }
  return run;
}

}  // namespace

void registerMapCommands(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* list = app.add_subcommand("hierarchies", "list the shipped DRAM-PIM hierarchies for conv mapping");
  list->add_flag("--json", *json, "machine-readable output");
  list->callback([json] {
    nlohmann::json out = nlohmann::json::array();
    TextTable t({"hierarchy", "PEs", "levels", "description"});
    for (const auto& name : builtinHierarchyNames()) {
      const auto h = builtinHierarchy(name);
      std::string levels;
      for (const auto& l : h.levels) levels += (levels.empty() ? "" : " < ") + l.name;
      t.add({h.name,
             std::to_string(h.pe.height) + "x" + std::to_string(h.pe.width) + "x" +
                 std::to_string(h.pe.internal),
             levels, h.description});
      out.push_back({{"name", h.name}, {"file", h.file}, {"description", h.description}, {"levels", levels}});
    }
    if (*json)
      printJson(out);
    else
      std::cout << t.str();
  });

  auto a = std::make_shared<MapArgs>();
  auto* map = app.add_subcommand("map", "map a conv or FC layer onto a DRAM-PIM hierarchy (docs/convmap.md)");
  map->add_option("--backend,-b", a->backend, "hierarchy name (see `pimscope-cli hierarchies`) or file")
      ->required();
  auto* kernelOpt = map->add_option("--kernel,-k", a->kernel, "conv2d or fc (with --dims)");
  map->add_option("--dims", a->dims,
                  "R=3,S=3,P=56,Q=56,C=64,K=64,N=1,stride=1 (fc: C=inputs,K=outputs,N=batch)");
  auto* networkOpt = map->add_option("--network", a->network,
                                     "a shipped network (see `pimscope-cli networks`) or a node-list file");
  map->add_option("--layer", a->layer, "with --network: one layer by name, or all")->capture_default_str();
  kernelOpt->excludes(networkOpt);
  map->add_option("--objective", a->objective, "latency, energy or blended")->capture_default_str();
  map->add_option("--alpha", a->alpha, "blended: weight of latency (energy gets 1 - alpha)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  map->add_option(
         "--mapper", a->mapper,
         "auto (exhaustive when small, else heuristic; under energy and the blend then the MILP from its "
         "mapping, under the blend after up to 3 more seeds, under latency the heuristic again with the next "
         "seed, in the time left), "
         "exhaustive, heuristic, ilp (a MILP: exact under energy, a relaxation with a proven bound under "
         "latency and the blend) or ilp-spatial (the MILP once per spatial assignment, best first: "
         "proves optima on 3 x 3 layers given minutes)")
      ->capture_default_str();
  map->add_option("--solver", a->solver,
                  "ilp: the MILP solver by name (cbc; glpk in builds with PIMSCOPE_GLPK)")
      ->capture_default_str();
  map->add_flag("--solver-log", a->solverLog, "ilp: print the MILP solver's own log on stderr");
  map->add_option("--threads", a->threads, "ilp: the solver's threads")
      ->check(wholeNumberIn(1, 256))
      ->capture_default_str();
  map->add_option("--max-nodes", a->maxNodes,
                  "ilp: stop the MILP after this many branch-and-bound nodes, a limit that is the same on "
                  "every machine (with --threads 1, so is its answer); 0: none")
      ->check(wholeNumberIn(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  map->add_option("--time-limit", a->timeLimit, "seconds the mapper may search")
      ->check(nonNegative())
      ->capture_default_str();
  map->add_option("--gap", a->gap,
                  "stop once the mapping is proven within this relative gap of the lower bound (0.01 = 1 %; "
                  "0: only when it meets the bound)")
      ->check(CLI::Range(0.0, 0.999))
      ->capture_default_str();
  map->add_option("--seed", a->seed, "the heuristic's seed")->check(unsignedInteger())->capture_default_str();
  map->add_option("--max-evaluations", a->maxEvaluations,
                  "the heuristic's proposals at most, per run (auto under latency runs it again with the "
                  "next seed while time is left)")
      ->check(wholeNumberIn(1, 100000000))
      ->capture_default_str();
  map->add_option("--out", a->out, "write the mapping and its cost as JSON to this file");
  auto* paretoOpt =
      map->add_option(
             "--pareto", a->paretoPoints,
             "also give the latency-energy front: alone, the non-dominated mappings (latency, energy, "
             "row activations) the mapper saw (exact when the exhaustive walk completes); with N, an "
             "epsilon-constraint sweep of N points, each solved with its own status and gap")
          ->expected(0, 1)
          ->default_str("0")
          ->check(CLI::Range(0, 1000));
  map->add_flag("--trace", a->trace, "also walk the mapping address by address (sim/row_trace) and compare");
  map->add_option(
         "--random-check", a->randomChecks,
         "also trace N random valid mappings of each layer (a seeded walk; those the trace takes at most "
         "10^6 steps for) and report the model's largest error")
      ->check(CLI::Range(0, 100000));
  map->add_option(
      "--db", a->db,
      "results store (SQLite): each solved mapping is kept there (the better one per hierarchy, "
      "layer, objective and mapper), and a proven optimum stored before is served without solving");
  map->add_flag("--fresh", a->fresh, "with --db: solve even when the store holds a proven optimum");
  map->add_flag("--json", a->json, "machine-readable output");
  map->callback([a, paretoOpt] {
    a->pareto = paretoOpt->count() > 0;
    const auto o = mapOptionsOf(*a);
    const auto h = hierarchyOption(a->backend);
    const auto mapper = makeMapper(a->mapper);
    if (!a->out.empty()) requireWritableOutput(a->out, "--out");
    std::optional<ResultsStore> store;
    if (!a->db.empty()) store.emplace(ResultsStore::open(a->db));
    std::string networkName;
    const auto layers = layersOf(*a, h, networkName);
    installInterruptHandler();  // Ctrl-C stops the search and keeps its incumbent
    const auto run = mapLayers(*a, h, *mapper, o, layers, store ? &*store : nullptr);
    const auto& results = run.results;
    const bool single = results.size() == 1 && a->network.empty();
    const nlohmann::json out = single ? results[0]
                                      : nlohmann::json{{"network", networkName},
                                                       {"hierarchy", h.name},
                                                       {"layers", results},
                                                       {"totals",
                                                        {{"latency_cycles", run.latency},
                                                         {"energy_pj", run.energyPj},
                                                         {"row_activations", run.acts}}}};
    if (!a->out.empty()) writeFileAtomically(a->out, out.dump(1) + "\n");
    if (a->json)
      printJson(out);
    else if (!single)
      std::cout << "network " << networkName << " on " << h.name << " (" << a->objective
                << ", layers mapped one by one, batch as given, no inter-layer reuse)\n"
                << run.summary.str() << "total: " << run.latency << " cycles, " << num(run.energyPj / 1000)
                << " nJ, " << run.acts << " row activations\n"
                << (run.repeats > 0
                        ? std::to_string(run.repeats) +
                              " layers repeat an earlier layer's shape and take its mapping (\"as ...\")\n"
                        : std::string());
  });

  struct TraceArgs {
    std::string backend, mapping;
    bool json = false;
    int slices = 1;
  };
  auto ta = std::make_shared<TraceArgs>();
  auto* rowtrace = app.add_subcommand(
      "rowtrace",
      "walk a saved mapping (map --out) address by address and count DRAM row activations per bank");
  rowtrace->add_option("--backend,-b", ta->backend, "hierarchy name or file (as the mapping was made on)")
      ->required();
  rowtrace->add_option("--mapping", ta->mapping, "a file written by `map --out`")->required();
  rowtrace->add_option("--slices", ta->slices, "time slices of the walk per bank")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  rowtrace->add_flag("--json", ta->json, "machine-readable output");
  rowtrace->callback([ta] {
    const auto h = hierarchyOption(ta->backend);
    const auto j = readJsonFile(ta->mapping, "mapping file");
    if (!j.is_object() || !j.contains("shape") || !j.contains("mapping"))
      throw InputError(ta->mapping + ": needs \"shape\" and \"mapping\" (a file written by `map --out`)");
    const auto layer = parseLayerJson(j["shape"], ta->mapping);
    const auto m = parseMappingJson(j["mapping"], h, ta->mapping);
    if (const auto v = violations(layer, h, m); !v.empty())
      throw InputError(ta->mapping + ": the mapping is not valid on " + h.name + ": " + LimitError(v).what());
    const auto t = checkAgainstTrace(layer, h, m, ta->slices);
    if (ta->json) {
      auto out = traceJson(t);
      out["model"] = {{"input", t.model[Input]},
                      {"weight", t.model[Weight]},
                      {"output", t.model[Output]},
                      {"total", t.modelTotal()}};
      nlohmann::json banks = nlohmann::json::array();
      for (const auto& b : t.result.banks)
        banks.push_back({{"activations", b.activations},
                         {"row_hits", b.rowHits},
                         {"bytes_read", b.bytesRead},
                         {"bytes_written", b.bytesWritten}});
      out["banks"] = banks;
      nlohmann::json slices = nlohmann::json::array();
      for (const auto& s : t.result.slices) {
        nlohmann::json acts = nlohmann::json::array();
        for (const auto& b : s.banks) acts.push_back(b.activations);
        slices.push_back({{"first_iteration", s.firstIteration},
                          {"last_iteration", s.lastIteration},
                          {"activations_per_bank", acts}});
      }
      out["slices"] = slices;
      printJson(out);
      return;
    }
    std::cout << "layer " << layer.name << " (" << shapeText(layer) << ") on " << h.name << "\n"
              << "mapping  " << mappingLabel(h, m) << "\n";
    printTrace(t);
    TextTable tab({"bank", "activations", "row hits", "bytes read", "bytes written"});
    for (std::size_t b = 0; b < t.result.banks.size(); ++b) {
      const auto& s = t.result.banks[b];
      tab.add({std::to_string(b), std::to_string(s.activations), std::to_string(s.rowHits),
               std::to_string(s.bytesRead), std::to_string(s.bytesWritten)});
    }
    std::cout << tab.str();
  });
}

}  // namespace pim::cli
