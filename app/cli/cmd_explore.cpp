// SPDX-License-Identifier: Apache-2.0
// `explore`: pick the best draft with a search strategy (or estimate how long that takes), compare it with
// the baselines, and report it as text or JSON. It reports progress on a terminal and stops cleanly on
// Ctrl-C.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <thread>

#include "app/cli/cli_common.h"
#include "engine/common/error.h"
#include "engine/search/explorer.h"
#include "engine/search/run_estimate.h"
#include "engine/search/strategy.h"
#include "engine/store/store.h"
#include "engine/target/dram_pim/dcc_artifact/artifact_model.h"
#include "engine/target/registry.h"
#include "engine/workflow/lookup_table.h"
#include "engine/workflow/mapping_schedule.h"
#include "engine/workflow/training.h"
#include "sim/simulator.h"

namespace pim::cli {
namespace {

/// What each rule removed, in the space's rule order (the JSON's "pruned" counts).
std::vector<std::uint64_t> removedPerRule(const std::vector<RuleCount>& rules) {
  std::vector<std::uint64_t> removed;
  for (const RuleCount& r : rules) removed.push_back(r.removed);
  return removed;
}

/// The model's error measured on this run's confirmations and whether the problem is out of its training
/// distribution (engine/predict/model_fit.h); null when no model ranked the drafts.
nlohmann::json predictionJson(const ExploreProgress& p, const Predictor* model) {
  if (!p.modelUsed || !model) return nullptr;
  const MeasuredError& e = p.predictionError;
  const auto measured = [&](double v) {
    return e.confirmations ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  return {{"confirmations", e.confirmations},
          {"measured_error_pct", measured(e.mapePct())},
          {"mean_error_pct", measured(e.biasPct())},
          {"worst_error_pct", measured(e.worstPct)},
          {"validation_error_pct", model->expectedErrorPct()},
          {"out_of_distribution", !p.outOfDistribution.empty()},
          {"out_of_distribution_reasons", p.outOfDistribution}};
}

nlohmann::json baselineJson(const Baseline& b) {
  if (!b.available) return {{"available", false}, {"reason", b.reason}};
  nlohmann::json j = evaluationJson(b.eval);
  j["available"] = true;
  j["summary"] = b.summary;
  return j;
}

/// Wall time of stage `stage` of a run, 0 when it did not finish.
double stageSeconds(const ExploreProgress& p, const std::string& stage) {
  for (const auto& [name, sec] : p.stageSeconds)
    if (name == stage) return sec;
  return 0;
}

struct ExploreCmd {
  ProblemOptions problem;
  std::string strategy = "predictor";
  std::string db;
  std::string model = "pimscope";
  std::string timing = "pimcomp-nn";
  int top = kDefaultTopK, maxConfirm = kDefaultMaxConfirm;
  double band = kDefaultBandErrors;
  std::size_t predictLimit = ExploreOptions{}.predictLimit;
  std::size_t maxSimulations = 0;
  SamplingOptions sampling;  // imtp
  BoundaryPassFlags boundary;
  unsigned threads = 0;
  bool json = false;
  bool estimate = false;  // print how long the run would take (the window's estimate) and stop
};

/// What a search found: the best record, the run's progress, where the pick came from and how long it took.
struct SearchOutcome {
  std::optional<DraftRecord> best;
  /// A sampling search (imtp): the best time after each trial, in trial order (its best-so-far curve).
  std::vector<double> bestSoFarNs;
  ExploreProgress last;
  std::string servedFrom = "search";
  double seconds = 0;
  const Predictor* model = nullptr;  // the shipped model, when it loaded
};

/// Why explore has no result: with the verifier's reason for the first draft when it refused candidates.
std::string nothingSimulated(const Problem& p, const ExploreProgress& last) {
  std::string why = "explore: no draft of " + p.title() + " could be simulated";
  if (last.refused.empty() || p.space().size() == 0) return why;
  const auto broken = targetOf(p.backend()).violations(p, p.space().draft(0));
  if (!broken.empty()) why += "; the verifier refused the candidates, draft 0 for " + broken.front().message;
  return why;
}

/// The schedules the best is compared with: vendor default, the compute-centric two-step choice, GPU only.
struct Comparison {
  Baseline vendor, gpu;
  std::optional<DraftRecord> computeCentric;
  std::vector<Baseline> family;  // the family's further baselines (upmem: prim-search)
  bool ccOk() const { return computeCentric && computeCentric->simulated; }
};

ExploreOptions exploreOptions(const ExploreCmd& o, LabelModel labelModel, ShippedModelLoader& loader) {
  ExploreOptions eo;
  eo.eval.model = labelModel;  // as the window's Model box: drafts, vendor and baselines labelled by it
  eo.eval.sim.crossbarTiming = timingOption(o.timing);  // as its Timing box
  eo.strategy = o.strategy;
  eo.topK = o.top;
  eo.bandErrors = o.band;
  eo.maxConfirm = o.maxConfirm;
  eo.predictLimit = o.predictLimit;
  eo.maxSimulations = o.maxSimulations;
  eo.sampling = o.sampling;
  eo.eval.optimizer.boundary = o.boundary.passes();
  eo.threads = cappedThreads(o.threads);
  eo.predictorSource = [&loader] { return loader.get(); };
  // Every confirmation is simulated to the end (no branch and bound): the error measured on them is the
  // window's, and a bounded confirmation holds only a lower bound, which measures nothing.
  eo.boundConfirmations = false;
  return eo;
}

SearchOutcome search(const ExploreCmd& o, const Problem& problem, const ExploreOptions& eo, bool lookupPick) {
  const auto start = std::chrono::steady_clock::now();
  SearchOutcome r;
  std::optional<ResultsStore> store;
  if (!o.db.empty()) store.emplace(ResultsStore::open(o.db));
  if (store && lookupPick) {
    std::string ignored;
    r.best = verifiedLookup(problem, *store, eo, &ignored);
    if (!ignored.empty()) std::cerr << "pimscope-cli: warning: " << ignored << "\n";
    if (r.best) r.servedFrom = "lookup table";
  }
  if (!r.best) {
    Explorer ex(problem, eo);
    EtaMeter eta;
    ex.run(interrupted(), [&](const ExploreProgress& p) {
      // The target's own work first (pim-hierarchy: its searches, with best, bound and gap), then the counts.
      if (!p.detail.empty()) return progressLine(p.stage + ": " + p.detail);
      progressLine(p.stage + ": " + grouped(p.generated) + " generated, " + grouped(p.remaining) + " kept, " +
                   grouped(p.predicted) + " predicted, " + grouped(p.simulated) + "/" +
                   grouped(p.toSimulate) + " simulated" +
                   eta(p.stage, static_cast<double>(p.simulated), static_cast<double>(p.toSimulate)));
    });
    if (stderrIsTerminal()) std::cerr << "\r\033[K";
    r.best = ex.best();
    r.last = ex.progress();
    if (!StrategyRegistry::builtin().get(o.strategy).listsKept) r.bestSoFarNs = bestSoFarNs(ex.records());
    const Predictor* ranker = eo.predictorSource();
    if (r.best && r.best->simulated && ranker && r.best->draft.id != kNoDraft)
      r.best->predictedNs = ranker->predictNs(problem, std::vector{r.best->draft})[0];
    if (store && r.best && r.best->draft.id != kNoDraft && lookupPick && r.last.stage == "done") {
      recordLookup(*store, problem, *r.best, ranker ? "model" : "simulated");
    }
  }
  // A lookup-table hit does not wait for the model: the time is the query's, the model only names the pick.
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.model = eo.predictorSource();
  return r;
}

Comparison compare(const Problem& problem, const ExploreOptions& eo) {
  Comparison c{vendorBaseline(problem, eo.eval), gpuBaseline(problem), std::nullopt,
               familyBaselines(problem, eo.eval)};
  ExploreOptions cc = eo;
  cc.strategy = "compute-centric";
  cc.maxSimulations = 0;
  cc.predictor = nullptr;  // the two-step choice does not use predictions
  // A family without an analytic compute estimate has no compute-centric choice: its row says n/a.
  if (targetOf(problem.backend()).estimator(problem, eo.eval.optimizer))
    c.computeCentric = exploreBest(problem, cc);
  return c;
}

// Level 3 of a mapping: the tasklets the evaluation ran (UPMEM), 1 for a family without them.
int threadsOf(const Evaluation& e) {
  for (const auto& [key, value] : e.facts)
    if (key == "tasklets") return static_cast<int>(value);
  return 1;
}

nlohmann::json bestJson(const Problem& problem, const DraftRecord& best) {
  nlohmann::json j = best.draft.id == kNoDraft ? nlohmann::json::object() : draftJson(problem, best.draft);
  const nlohmann::json ev = evaluationJson(*best.simulated);
  j["draft"] = best.draft.id == kNoDraft ? nlohmann::json(nullptr) : nlohmann::json(best.draft.id);
  j["cycles"] = ev["cycles"];
  j["time_ns"] = best.simulated->timeNs;
  j["time_ns_breakdown"] = ev["time_ns"];
  j["energy_pj"] = ev["energy_pj"];
  j["predicted_time_ns"] = best.predictedNs ? nlohmann::json(*best.predictedNs) : nlohmann::json(nullptr);
  if (best.draft.id != kNoDraft) {  // CoMoNM's notation, for `simulate --schedule mapping:FILE`
    const MappingText m = mappingTextOf(problem, best.draft, threadsOf(*best.simulated));
    j["mapping"] = m.text.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.text);
    if (m.text.empty()) j["mapping_reason"] = m.reason;
    if (!m.json.empty()) j["mapping_json"] = nlohmann::json::parse(m.json);
  }
  return j;
}

/// What a sampling search did: trials, their rate, its knobs, and its best-so-far curve.
nlohmann::json trialsJson(const SamplingOptions& s, const SearchOutcome& r) {
  nlohmann::json curve = nlohmann::json::array();
  for (double ns : r.bestSoFarNs) curve.push_back(std::isfinite(ns) ? nlohmann::json(ns) : nlohmann::json());
  const double simulating = stageSeconds(r.last, "simulating");
  return {
      {"trials", r.bestSoFarNs.size()},
      {"seed", s.seed},
      {"batch", s.batch},
      {"population", s.population},
      {"per_second", simulating > 0 ? nlohmann::json(r.bestSoFarNs.size() / simulating) : nlohmann::json()},
      {"best_so_far_ns", curve}};
}

void printExploreJson(const ExploreCmd& o, const Problem& problem, LabelModel labelModel,
                      const SearchOutcome& r, const Comparison& c) {
  const double t = r.best->simulated->timeNs;
  auto speedup = [&](bool ok, double base) {
    return ok && t > 0 ? nlohmann::json(base / t) : nlohmann::json(nullptr);
  };
  nlohmann::json ccJson = {{"available", false}, {"reason", "no draft could be simulated"}};
  if (c.ccOk()) {
    ccJson = evaluationJson(*c.computeCentric->simulated);
    ccJson["available"] = true;
    ccJson["draft"] = c.computeCentric->draft.id;
  }
  // Where the time went: what a user needs to judge a slow exploration (and what `bench` does not show).
  nlohmann::json stagesJson = nlohmann::json::object();
  for (const auto& [stage, sec] : r.last.stageSeconds) stagesJson[stage] = sec;
  const ExploreProgress& last = r.last;
  nlohmann::json out = {
      {"backend", problem.backend().name},
      {"shape", problem.storeKey()},
      {"strategy", o.strategy},
      {"model", r.model ? nlohmann::json(r.model->id()) : nlohmann::json(nullptr)},
      {"served_from", r.servedFrom},
      {"prediction", predictionJson(last, r.model)},
      {"best", bestJson(problem, *r.best)},
      {"counts",
       {{"generated", last.generated},
        {"pruned", removedPerRule(last.pruned)},
        {"remaining", last.remaining},
        {"predicted", last.predicted},
        {"simulated", last.simulated}}},
      {"baselines",
       {{"vendor", c.vendor.available ? baselineJson(c.vendor) : nlohmann::json(nullptr)},
        {"vendor_reason", c.vendor.available ? "" : c.vendor.reason},
        {"compute_centric", c.ccOk() ? ccJson : nlohmann::json(nullptr)},
        {"gpu", c.gpu.available ? baselineJson(c.gpu) : nlohmann::json(nullptr)}}},
      {"speedup",
       {{"vs_vendor", speedup(c.vendor.available, c.vendor.eval.timeNs)},
        {"vs_compute_centric", speedup(c.ccOk(), c.ccOk() ? c.computeCentric->simulated->timeNs : 0)},
        {"vs_gpu", speedup(c.gpu.available, c.gpu.eval.timeNs)}}},
      {"seconds", r.seconds},
      {"stage_seconds", stagesJson},
      {"refused", last.refused},
      {"interrupted", interrupted().load()}};
  out.update(subjectJson(problem));
  for (const Baseline& b : c.family) {  // "prim-search" -> baselines.prim_search, speedup.vs_prim_search
    std::string key = b.name;
    std::replace(key.begin(), key.end(), '-', '_');
    out["baselines"][key] = b.available ? baselineJson(b) : nlohmann::json(nullptr);
    if (!b.available) out["baselines"][key + "_reason"] = b.reason;
    out["speedup"]["vs_" + key] = speedup(b.available, b.eval.timeNs);
  }
  if (labelModel != LabelModel::PimScope)
    out["label_model"] = labelModelName(labelModel);  // default output unchanged ("model": the predictor)
  if (targetOf(problem.backend()).searchSettings().crossbarTiming) out["timing"] = o.timing;
  if (!r.bestSoFarNs.empty()) {
    out["search"] = trialsJson(o.sampling, r);
    out["trials_per_second"] = out["search"]["per_second"];
  }
  o.problem.whatIf.annotate(out, problem.backend());
  printJson(out);
}

/// "trials: 1,000 at 131.2 per second; best after 10%: ..., 40%: ..., 100%: ... ns".
std::string trialsText(const SearchOutcome& r) {
  const std::size_t n = r.bestSoFarNs.size();
  const double simulating = stageSeconds(r.last, "simulating");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", simulating > 0 ? static_cast<double>(n) / simulating : 0.0);
  std::string s = "trials: " + grouped(n) + " at " + buf + " per second; best after";
  const char* sep = " ";
  for (const double share : {0.1, 0.4, 1.0}) {
    const auto at =
        std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(share * static_cast<double>(n))));
    std::snprintf(buf, sizeof buf, "%s%.0f%%: %.1f", sep, share * 100, r.bestSoFarNs[at - 1]);
    s += buf;
    sep = ", ";
  }
  return s + " ns\n";
}

void printExploreText(const ExploreCmd& o, const Problem& problem, LabelModel labelModel,
                      const SearchOutcome& r, const Comparison& c) {
  const Backend& b = problem.backend();
  const DraftRecord& best = *r.best;
  const double t = best.simulated->timeNs;
  const std::string of = r.servedFrom != "search" ? std::string()
                         : r.bestSoFarNs.empty()  ? "of " + grouped(r.last.remaining) + " kept drafts "
                                                  : "of " + grouped(r.bestSoFarNs.size()) + " trials (seed " +
                                                       std::to_string(o.sampling.seed) + ") ";
  std::cout << o.problem.whatIf.line(b) << problem.title() << ": best " << of << "by " << o.strategy << " ("
            << r.servedFrom << ")"
            << (labelModel == LabelModel::PimScope
                    ? ""
                    : ", labelled by " + std::string(labelModelName(labelModel)))
            << (targetOf(b).searchSettings().crossbarTiming ? ", " + o.timing + " timing" : "") << "\n";
  if (best.draft.id != kNoDraft) {
    std::cout << "draft " << best.draft.id << " " << targetOf(b).candidates(problem)->label(best.draft)
              << "\n";
    const MappingText m = mappingTextOf(problem, best.draft, threadsOf(*best.simulated));
    std::cout << "mapping: " << (m.text.empty() ? "none in CoMoNM's notation: " + m.reason : m.text) << "\n";
    if (!m.json.empty())  // the notation drops the kernel-level choices; the JSON form keeps them
      std::cout << "mapping with its choices (JSON form): " << m.json << "\n";
  }
  std::cout << evaluationText(*best.simulated, b);
  if (r.last.modelUsed && r.model) {
    std::cout << "predictions: " << predictionAccuracyText(r.last.predictionError, r.last.outOfDistribution)
              << " (validation error of the model " << r.model->expectedErrorPct() << "%)\n";
  }
  TextTable tb({"schedule", "time (ns)", "speed-up of best"});
  auto row = [&](const std::string& name, bool ok, double ns, const std::string& why) {
    char a[32], s[32];
    std::snprintf(a, sizeof a, "%.1f", ns);
    std::snprintf(s, sizeof s, "%.2fx", ns / t);
    tb.add({name, ok ? a : "-", ok ? s : why});
  };
  row("vendor default", c.vendor.available, c.vendor.eval.timeNs, c.vendor.reason);
  row("compute-centric", c.ccOk(), c.ccOk() ? c.computeCentric->simulated->timeNs : 0,
      c.computeCentric ? "n/a" : "n/a: " + b.family + " has no analytic compute estimate to choose by");
  for (const Baseline& fb : c.family) row(fb.name, fb.available, fb.eval.timeNs, fb.reason);
  row("GPU only", c.gpu.available, c.gpu.eval.timeNs, c.gpu.reason);
  std::cout << tb.str();
  if (!r.bestSoFarNs.empty()) std::cout << trialsText(r);
  if (!r.last.refused.empty()) {
    std::string refused;
    for (const auto& [limit, n] : r.last.refused)
      refused += (refused.empty() ? "" : ", ") + limit + " " + grouped(n);
    std::cout << "refused by the verifier: " << refused << "\n";
  }
  std::cout << "explored in " << r.seconds << " s";
  const char* sep = " (";
  for (const auto& [stage, sec] : r.last.stageSeconds) {
    std::cout << sep << stage << " " << sec << " s";
    sep = ", ";
  }
  std::cout << (r.last.stageSeconds.empty() ? "\n" : ")\n");
}

/// `explore --estimate`: the estimate the window asks with before a long run (engine/search/run_estimate.h).
void printEstimate(const ExploreCmd& o, const Problem& p, const ExploreOptions& eo) {
  const StrategyInfo& s = StrategyRegistry::builtin().get(eo.strategy);
  const bool model =
      s.predictions == PredictionUse::Required && sharedShippedModel(p.backend()).model != nullptr;
  const RunEstimate e = estimateRun(p, eo, model);
  if (!o.json) {
    std::cout << p.title() << " by " << e.strategy << ": " << estimateText(e) << "\n";
    return;
  }
  nlohmann::json j = {{"problem", p.title()},
                      {"strategy", e.strategy},
                      {"kept", e.kept},
                      {"simulations", e.simulations},
                      {"seconds_per_simulation", e.secondsPerSimulation},
                      {"workers", e.workers},
                      {"seconds", e.seconds}};
  std::cout << j.dump(2) << "\n";
}

void runExplore(const ExploreCmd& o) {
  installInterruptHandler();
  const auto problem = o.problem.build();
  const Backend& b = problem->backend();
  const StrategyRegistry& strategies = StrategyRegistry::builtin();
  if (!strategies.find(o.strategy))
    throw InputError("--strategy: '" + o.strategy + "' is not " + strategies.names(", ", " or "));
  const LabelModel labelModel = modelOption(o.model);
  EvalOptions asked;
  asked.model = labelModel;
  asked.sim.crossbarTiming = timingOption(o.timing);
  requireReadSettings(b, asked);
  // Refuse up front what the artifact does not cover (other families would label with their own model).
  if (labelModel != LabelModel::PimScope) dcc::artifactKernel(*problem);
  // The lookup table holds the predictor strategy's picks under PIMScope's model and the default timing
  // (its key has neither), with every optimizer pass on.
  const bool lookupPick = o.strategy == "predictor" && labelModel == LabelModel::PimScope &&
                          asked.sim.crossbarTiming == xbar::TimingModel::PimcompNn &&
                          o.boundary.json().is_null();
  requireRunnable(*problem);
  // Loading the shipped model overlaps generation and the screen; the explorer waits for it to predict.
  ShippedModelLoader loader(b.name);
  const ExploreOptions eo = exploreOptions(o, labelModel, loader);
  if (o.estimate) return printEstimate(o, *problem, eo);
  const SearchOutcome r = search(o, *problem, eo, lookupPick);
  if (!loader.error().empty()) std::cerr << "pimscope-cli: warning: " << loader.error() << "\n";
  if (r.model) warnIfTrainedElsewhere(*r.model, b, o.problem.whatIf);
  if (!r.best || !r.best->simulated) throw InputError(nothingSimulated(*problem, r.last));
  const Comparison c = compare(*problem, eo);
  if (o.json)
    printExploreJson(o, *problem, labelModel, r, c);
  else
    printExploreText(o, *problem, labelModel, r, c);
}

}  // namespace

void registerExploreCommands(CLI::App& app) {
  auto e = std::make_shared<ExploreCmd>();
  auto* cmd = app.add_subcommand("explore", "pick the best schedule with a search strategy");
  e->problem.addTo(cmd);
  cmd->add_option("--strategy", e->strategy, StrategyRegistry::builtin().names(" | ", " | "));
  cmd->add_option("--db", e->db, "results store (SQLite); repeated queries are served from its lookup table");
  addModelOption(cmd, e->model, "pimscope");
  addTimingOption(cmd, e->timing);
  cmd->add_option("--top", e->top, "predictor: simulate the N best predicted drafts")
      ->check(unsignedInteger());
  cmd->add_option("--band", e->band,
                  "predictor: also simulate drafts predicted within this many expected errors of the best")
      ->check(nonNegative());
  cmd->add_option("--max-confirm", e->maxConfirm, "predictor: cap on the drafts simulated to confirm")
      ->check(unsignedInteger());
  cmd->add_option("--predict-limit", e->predictLimit,
                  "drafts the model ranks after the analytic screen (0: all kept drafts)")
      ->check(unsignedInteger());
  cmd->add_option("--max-simulations", e->maxSimulations, "cap on simulations (exhaustive samples evenly)")
      ->check(unsignedInteger());
  cmd->add_option("--trials", e->sampling.trials, "imtp: candidates evaluated in all (default 1000)")
      ->check(wholeNumberIn(1, 10'000'000));
  cmd->add_option("--seed", e->sampling.seed, "imtp: random seed; the same seed gives the same trials")
      ->check(unsignedInteger());
  cmd->add_option("--batch", e->sampling.batch,
                  "imtp: candidates evaluated between two updates of its cost model (default 64)")
      ->check(wholeNumberIn(1, 100'000));
  e->boundary.addTo(cmd);
  addThreadsOption(cmd, e->threads);
  cmd->add_flag("--json", e->json, "machine-readable output");
  cmd->add_flag("--estimate", e->estimate,
                "print how long the exploration would take (planned simulations x sampled time per "
                "simulation / workers, as the window estimates before asking) and stop");
  cmd->callback([e] { runExplore(*e); });
}

}  // namespace pim::cli
