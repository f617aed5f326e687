// SPDX-License-Identifier: Apache-2.0
// `explore`, `train` and `evaluate`: pick the best draft with a search strategy, train the coupled predictor
// on a workload suite, and report its accuracy in the form of DCC Table 4. Long commands report progress on a
// terminal and stop cleanly on Ctrl-C, keeping what is already stored.
#include <unistd.h>

#include <chrono>
#include <csignal>
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
#include "engine/workflow/training.h"
#include "sim/simulator.h"

namespace pim::cli {
namespace {

std::atomic<bool> g_interrupted{false};
extern "C" void onInterrupt(int) { g_interrupted.store(true); }

void installInterruptHandler() {
  struct sigaction sa {};
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

bool terminal() { return isatty(STDERR_FILENO); }

void progressLine(const std::string& text) {
  if (terminal()) std::cerr << "\r\033[K" << text << std::flush;
}

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

/// The stored pick of `p`, if it still is one. A row names only a draft id, and the store is a file anyone
/// may edit: a draft that is not in the problem's space, is pruned there, or cannot run is not served as
/// "best" (a warning says why and the search runs and replaces it). The time served is always re-simulated.
std::optional<DraftRecord> verifiedLookup(const Problem& p, ResultsStore& store,
                                          const std::string& backendKey, const std::string& shape,
                                          const ExploreOptions& eo) {
  const auto hit = store.lookup(backendKey, computationHash(p.kernel()), shape);
  if (!hit) return std::nullopt;
  const std::string draft = "draft " + std::to_string(hit->draftId);
  auto ignore = [&](const std::string& why) {
    std::cerr << "pimscope-cli: warning: " << store.path() << ": lookup entry for " << p.title()
              << " ignored: " << why << "\n";
    return std::nullopt;
  };
  const auto space = targetOf(p.backend()).candidates(p, eo.rules);
  if (hit->draftId < 0 || static_cast<std::uint64_t>(hit->draftId) >= space->size())
    return ignore(draft + " is not in its space of " + std::to_string(space->size()) + " drafts");
  const auto id = static_cast<std::uint64_t>(hit->draftId);
  if (const Verdict v = space->why(id); !v.kept)
    return ignore(draft + " is pruned (rule " + std::to_string(v.rule) + ", " + v.ruleName + ")");
  DraftRecord r;
  r.draft = space->candidate(id);
  try {
    r.simulated = std::make_shared<const Evaluation>(evaluateDraft(p, r.draft, eo.eval));
  } catch (const InputError& e) {
    return ignore(draft + " cannot run: " + e.what());
  }
  return r;
}

/// The model is found by backend name: an edited file under a shipped name, or a --set, gets a model it was
/// not trained on.
void warnIfTrainedElsewhere(const Predictor& model, const Backend& b, const WhatIfOptions& whatIf) {
  if (model.metadata().backendHash == b.hash()) return;
  std::cerr << "pimscope-cli: warning: the shipped model of " << b.name
            << " was trained on other parameters than "
            << (!whatIf.empty()  ? b.name + " with --set"
                : b.file.empty() ? b.name
                                 : b.file)
            << "; its predictions are extrapolated, with no measured error\n";
}

struct ExploreCmd {
  ProblemOptions problem;
  std::string strategy = "predictor";
  std::string db;
  std::string model = "pimscope";
  int top = kDefaultTopK, maxConfirm = kDefaultMaxConfirm;
  double band = kDefaultBandErrors;
  std::size_t predictLimit = ExploreOptions{}.predictLimit;
  std::size_t maxSimulations = 0;
  unsigned threads = 0;
  bool json = false;
  bool estimate = false;  // print how long the run would take (the window's estimate) and stop
};

/// What a search found: the best record, the run's progress, where the pick came from and how long it took.
struct SearchOutcome {
  std::optional<DraftRecord> best;
  ExploreProgress last;
  std::string servedFrom = "search";
  double seconds = 0;
  const Predictor* model = nullptr;  // the shipped model, when it loaded
};

/// The schedules the best is compared with: vendor default, the compute-centric two-step choice, GPU only.
struct Comparison {
  Baseline vendor, gpu;
  std::optional<DraftRecord> computeCentric;
  bool ccOk() const { return computeCentric && computeCentric->simulated; }
};

ExploreOptions exploreOptions(const ExploreCmd& o, LabelModel labelModel, ShippedModelLoader& loader) {
  ExploreOptions eo;
  eo.eval.model = labelModel;  // as the window's Model box: drafts, vendor and baselines labelled by it
  eo.strategy = o.strategy;
  eo.topK = o.top;
  eo.bandErrors = o.band;
  eo.maxConfirm = o.maxConfirm;
  eo.predictLimit = o.predictLimit;
  eo.maxSimulations = o.maxSimulations;
  eo.threads = cappedThreads(o.threads);
  eo.predictorSource = [&loader] { return loader.get(); };
  // Every confirmation is simulated to the end (no branch and bound): the error measured on them is the
  // window's, and a bounded confirmation holds only a lower bound, which measures nothing.
  eo.boundConfirmations = false;
  return eo;
}

SearchOutcome search(const ExploreCmd& o, const Problem& problem, const ExploreOptions& eo, bool lookupPick) {
  const Backend& b = problem.backend();
  const auto start = std::chrono::steady_clock::now();
  SearchOutcome r;
  std::optional<ResultsStore> store;
  if (!o.db.empty()) store.emplace(ResultsStore::open(o.db));
  const std::string shape = problem.storeKey();  // the shape and which tensors are resident
  // A pick found under another version of the family's cost model may no longer be the best: lookups are
  // keyed by both.
  const std::string lookupKey = b.hash() + "/t" + std::to_string(targetOf(b).modelVersion());
  if (store && lookupPick) {
    r.best = verifiedLookup(problem, *store, lookupKey, shape, eo);
    if (r.best) r.servedFrom = "lookup table";
  }
  if (!r.best) {
    Explorer ex(problem, eo);
    EtaMeter eta;
    ex.run(g_interrupted, [&](const ExploreProgress& p) {
      progressLine(p.stage + ": " + grouped(p.generated) + " generated, " + grouped(p.remaining) + " kept, " +
                   grouped(p.predicted) + " predicted, " + grouped(p.simulated) + "/" +
                   grouped(p.toSimulate) + " simulated" +
                   eta(p.stage, static_cast<double>(p.simulated), static_cast<double>(p.toSimulate)));
    });
    if (terminal()) std::cerr << "\r\033[K";
    r.best = ex.best();
    r.last = ex.progress();
    const Predictor* ranker = eo.predictorSource();
    if (r.best && r.best->simulated && ranker && r.best->draft.id != kNoDraft)
      r.best->predictedNs = ranker->predictNs(problem, std::vector{r.best->draft})[0];
    if (store && r.best && r.best->draft.id != kNoDraft && lookupPick && r.last.stage == "done") {
      store->putLookup({lookupKey, computationHash(problem.kernel()), problem.kernel().name, shape,
                        static_cast<std::int64_t>(r.best->draft.id), r.best->simulated->timeNs, std::nullopt,
                        ranker ? "model" : "simulated"});
    }
  }
  // A lookup-table hit does not wait for the model: the time is the query's, the model only names the pick.
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.model = eo.predictorSource();
  return r;
}

Comparison compare(const Problem& problem, const ExploreOptions& eo) {
  Comparison c{vendorBaseline(problem, eo.eval), gpuBaseline(problem), std::nullopt};
  ExploreOptions cc = eo;
  cc.strategy = "compute-centric";
  cc.maxSimulations = 0;
  cc.predictor = nullptr;  // the two-step choice does not use predictions
  c.computeCentric = exploreBest(problem, cc);
  return c;
}

nlohmann::json bestJson(const Problem& problem, const DraftRecord& best) {
  nlohmann::json j =
      best.draft.id == kNoDraft ? nlohmann::json::object() : draftJson(problem.space(), best.draft);
  const nlohmann::json ev = evaluationJson(*best.simulated);
  j["draft"] = best.draft.id == kNoDraft ? nlohmann::json(nullptr) : nlohmann::json(best.draft.id);
  j["cycles"] = ev["cycles"];
  j["time_ns"] = best.simulated->timeNs;
  j["time_ns_breakdown"] = ev["time_ns"];
  j["energy_pj"] = ev["energy_pj"];
  j["predicted_time_ns"] = best.predictedNs ? nlohmann::json(*best.predictedNs) : nlohmann::json(nullptr);
  return j;
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
      {"kernel", problem.kernel().name},
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
        {"gpu", baselineJson(c.gpu)}}},
      {"speedup",
       {{"vs_vendor", speedup(c.vendor.available, c.vendor.eval.timeNs)},
        {"vs_compute_centric", speedup(c.ccOk(), c.ccOk() ? c.computeCentric->simulated->timeNs : 0)},
        {"vs_gpu", speedup(true, c.gpu.eval.timeNs)}}},
      {"seconds", r.seconds},
      {"stage_seconds", stagesJson},
      {"interrupted", g_interrupted.load()}};
  if (labelModel != LabelModel::PimScope)
    out["label_model"] = labelModelName(labelModel);  // default output unchanged ("model": the predictor)
  o.problem.whatIf.annotate(out, problem.backend());
  printJson(out);
}

void printExploreText(const ExploreCmd& o, const Problem& problem, LabelModel labelModel,
                      const SearchOutcome& r, const Comparison& c) {
  const Backend& b = problem.backend();
  const DraftRecord& best = *r.best;
  const double t = best.simulated->timeNs;
  std::cout << o.problem.whatIf.line(b) << problem.title() << ": best "
            << (r.servedFrom == "search" ? "of " + grouped(r.last.remaining) + " kept drafts "
                                         : std::string())
            << "by " << o.strategy << " (" << r.servedFrom << ")"
            << (labelModel == LabelModel::PimScope
                    ? ""
                    : ", labelled by " + std::string(labelModelName(labelModel)))
            << "\n";
  if (best.draft.id != kNoDraft)
    std::cout << "draft " << best.draft.id << " " << targetOf(b).candidates(problem)->label(best.draft)
              << "\n";
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
  row("compute-centric", c.ccOk(), c.ccOk() ? c.computeCentric->simulated->timeNs : 0, "n/a");
  row("GPU only", true, c.gpu.eval.timeNs, "");
  std::cout << tb.str() << "explored in " << r.seconds << " s";
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
  // Refuse up front what the artifact does not cover (other families would label with their own model).
  if (labelModel != LabelModel::PimScope) dcc::artifactKernel(*problem);
  // The lookup table holds the predictor strategy's picks under PIMScope's model (its key has neither).
  const bool lookupPick = o.strategy == "predictor" && labelModel == LabelModel::PimScope;
  requireRunnable(*problem);
  // Loading the shipped model overlaps generation and the screen; the explorer waits for it to predict.
  ShippedModelLoader loader(b.name);
  const ExploreOptions eo = exploreOptions(o, labelModel, loader);
  if (o.estimate) return printEstimate(o, *problem, eo);
  const SearchOutcome r = search(o, *problem, eo, lookupPick);
  if (!loader.error().empty()) std::cerr << "pimscope-cli: warning: " << loader.error() << "\n";
  if (r.model) warnIfTrainedElsewhere(*r.model, b, o.problem.whatIf);
  if (!r.best || !r.best->simulated)
    throw InputError("explore: no draft of " + problem->title() + " could be simulated");
  const Comparison c = compare(*problem, eo);
  if (o.json)
    printExploreJson(o, *problem, labelModel, r, c);
  else
    printExploreText(o, *problem, labelModel, r, c);
}

struct TrainCmd {
  std::string backend, db, out;
  std::vector<std::string> suites;
  std::size_t maxSamples = 400, maxFresh = 0, screenLimit = 0;
  std::uint64_t seed = 42;
  unsigned threads = 0;
  bool json = false;
  XgbParams xgb;  // the boosting settings --learning-rate, --max-depth and --max-rounds change
};

// Progress lines of train and evaluate: shapes of the suite, and drafts labelled within the current shape
// (a long exhaustive labelling run), each with an estimate of the time left.
struct SuiteProgress {
  std::string verb;  // "labelled", "evaluated"
  EtaMeter shapes, drafts;
  void shapeDone(const std::string& what, std::size_t done, std::size_t total) {
    progressLine(verb + " " + what + " (" + std::to_string(done) + "/" + std::to_string(total) + " shapes" +
                 shapes("suite", static_cast<double>(done), static_cast<double>(total)) + ")");
  }
  void labelled(const std::string& what, std::size_t done, std::size_t total) {
    progressLine("labelling " + what + ": " + std::to_string(done) + "/" + std::to_string(total) + " drafts" +
                 drafts(what, static_cast<double>(done), static_cast<double>(total)));
  }
};

void runTrain(const TrainCmd& o) {
  installInterruptHandler();
  const Backend& b = builtinBackend(o.backend);
  const Suite suite = loadSuites(o.suites);
  // Checked before labelling and training, which may take hours: a folder that cannot take the model would
  // otherwise lose the work. The shipped datasets/models are replaced only when named.
  const std::string outDir = o.out.empty() ? userModelsDir() : o.out;
  Predictor::prepareOutput(outDir, b.name);
  std::optional<ResultsStore> store;
  if (!o.db.empty()) store.emplace(ResultsStore::open(o.db));
  TrainOptions to;
  to.maxSamplesPerShape = o.maxSamples;
  to.maxFreshPerShape = o.maxFresh;
  to.screenLimit = o.screenLimit;
  to.seed = o.seed;
  to.xgb.learningRate = o.xgb.learningRate;
  to.xgb.maxDepth = o.xgb.maxDepth;
  to.xgb.maxRounds = o.xgb.maxRounds;
  to.threads = cappedThreads(o.threads);
  to.store = store ? &*store : nullptr;
  to.cancel = &g_interrupted;
  SuiteProgress progress{"labelled", {}, {}};
  to.progress = [&](const std::string& what, std::size_t done, std::size_t total) {
    progress.shapeDone(what, done, total);
  };
  to.labelProgress = [&](const std::string& what, std::size_t done, std::size_t total) {
    progress.labelled(what, done, total);
  };
  const Predictor p = trainPredictor(b, suite, to);
  if (terminal()) std::cerr << "\r\033[K";
  if (g_interrupted.load()) throw InputError("train: interrupted; labelled batches are kept in " + o.db);
  p.save(outDir);
  const auto& m = p.metadata();
  if (o.json) {
    printJson({{"backend", b.name},
               {"files", Predictor::files(outDir, b.name)},
               {"samples", m.samples},
               {"validation_samples", m.validationSamples},
               {"rounds", m.rounds},
               {"best_iteration", m.bestIteration},
               {"validation_mape", m.validationMape},
               {"label_seconds", m.labelSeconds},
               {"train_seconds", m.trainSeconds},
               {"kernels", m.kernels}});
    return;
  }
  std::cout << "trained " << b.name << " on " << m.samples << " drafts (" << m.validationSamples
            << " for validation), " << m.rounds << " rounds, validation error " << m.validationMape << "%\n"
            << "wrote " << Predictor::files(outDir, b.name)[0] << " and "
            << Predictor::files(outDir, b.name)[1] << "\n";
}

struct EvaluateCmd {
  std::string backend, kernel, suite, db, models;
  WhatIfOptions whatIf;
  std::size_t top = kDefaultTopK, predictLimit = ExploreOptions{}.predictLimit,
              maxConfirm = kDefaultMaxConfirm;
  double band = kDefaultBandErrors;
  unsigned threads = 0;
  bool json = false, labelAll = false;
};

void runEvaluate(const EvaluateCmd& o) {
  installInterruptHandler();
  const Backend b = o.whatIf.applyTo(builtinBackend(o.backend));
  const Suite suite = loadSuite(o.suite);
  const auto model = Predictor::loadShipped(b.name, o.models);
  if (!model)
    throw InputError("evaluate: no trained model for " + b.name + " in " +
                     (o.models.empty() ? std::string("datasets/models") : o.models) + " (run train first)");
  if (!o.whatIf.empty()) warnIfTrainedElsewhere(*model, b, o.whatIf);
  std::optional<ResultsStore> store;
  if (!o.db.empty()) store.emplace(ResultsStore::open(o.db));
  TrainOptions to;
  to.store = store ? &*store : nullptr;
  to.threads = cappedThreads(o.threads);
  to.cancel = &g_interrupted;
  SuiteProgress progress{"evaluated", {}, {}};
  to.progress = [&](const std::string& what, std::size_t done, std::size_t total) {
    progress.shapeDone(what, done, total);
  };
  to.labelProgress = [&](const std::string& what, std::size_t done, std::size_t total) {
    progress.labelled(what, done, total);
  };
  EvaluateOptions eo;
  eo.topK = std::max<std::size_t>(1, o.top);
  eo.predictLimit = o.predictLimit;
  eo.bandErrors = o.band;
  eo.maxConfirm = o.maxConfirm;
  eo.branchAndBound = !o.labelAll;
  const EvaluationReport r = evaluatePredictor(b, o.kernel, suite, *model, to, eo);
  if (terminal()) std::cerr << "\r\033[K";
  if (o.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : r.rows) {
      rows.push_back({{"shape", row.shape},
                      {"drafts", row.drafts},
                      {"optimum", row.optimum},
                      {"pick", row.pick},
                      {"argmin", row.argmin},
                      {"optimum_ns", row.optimumNs},
                      {"optimum_rank", row.optimumRank},
                      {"pick_ns", row.pickNs},
                      {"argmin_ns", row.argminNs}});
    }
    nlohmann::json out = {
        {"backend", r.backend},
        {"kernel", r.kernel},
        {"configs", r.configs},
        {"top1", r.configs ? static_cast<double>(r.top1) / static_cast<double>(r.configs) : 0.0},
        {"top1_count", r.top1},
        {"mean_pick_vs_optimum", r.meanPickVsOptimum},
        {"top_k", eo.topK},
        {"band_errors", eo.bandErrors},
        {"max_confirm", eo.maxConfirm},
        {"predict_limit", eo.predictLimit},
        {"top1_argmin", r.configs ? static_cast<double>(r.top1Argmin) / static_cast<double>(r.configs) : 0.0},
        {"mean_argmin_vs_optimum", r.meanArgminVsOptimum},
        {"seconds_with", r.secondsWith},
        {"seconds_without", r.secondsWithout},
        {"seconds_without_extrapolated", r.withoutExtrapolated},
        {"seconds_optimum", r.secondsOptimum},
        {"branch_and_bound", eo.branchAndBound},
        {"bounded_drafts", r.bounded},
        {"interrupted", r.interrupted},
        {"threads", to.threads ? to.threads : std::max(1u, std::thread::hardware_concurrency())},
        {"rows", rows}};
    o.whatIf.annotate(out, b);
    printJson(out);
    return;
  }
  const double n = r.configs ? static_cast<double>(r.configs) : 1.0;
  std::cout << o.whatIf.line(b) << std::flush;  // before printf's buffer: the two share stdout
  std::printf(
      "%s+%s: %zu configs; the predictor strategy (top %zu and near-ties, at most %zu, confirmed by "
      "simulation) finds the optimum in %zu "
      "(%.1f%%) and %.2f%% of it otherwise; the single best prediction is the optimum in %zu (%.1f%%), "
      "%.2f%% otherwise; compile %.2f s with the predictor vs %s%.2f s simulating every draft%s; the optimum "
      "took %.2f s%s\n",
      r.backend.c_str(), r.kernel.c_str(), r.configs, eo.topK, eo.maxConfirm, r.top1,
      100.0 * static_cast<double>(r.top1) / n, 100.0 * r.meanPickVsOptimum, r.top1Argmin,
      100.0 * static_cast<double>(r.top1Argmin) / n, 100.0 * r.meanArgminVsOptimum, r.secondsWith,
      r.withoutExtrapolated ? "~" : "", r.secondsWithout,
      r.withoutExtrapolated ? " (extrapolated from drafts timed in this run)" : "", r.secondsOptimum,
      r.bounded ? (" by branch and bound (" + std::to_string(r.bounded) +
                   " drafts stopped once slower than the best found)")
                      .c_str()
                : "");
  if (r.interrupted)
    std::printf(
        "interrupted: the shapes above are complete; labels of the unfinished one are kept in the store\n");
}

}  // namespace

void registerExploreCommands(CLI::App& app) {
  auto e = std::make_shared<ExploreCmd>();
  auto* cmd = app.add_subcommand("explore", "pick the best schedule with a search strategy");
  e->problem.addTo(cmd);
  cmd->add_option("--strategy", e->strategy, StrategyRegistry::builtin().names(" | ", " | "));
  cmd->add_option("--db", e->db, "results store (SQLite); repeated queries are served from its lookup table");
  addModelOption(cmd, e->model, "pimscope");
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
  addThreadsOption(cmd, e->threads);
  cmd->add_flag("--json", e->json, "machine-readable output");
  cmd->add_flag("--estimate", e->estimate,
                "print how long the exploration would take (planned simulations x sampled time per "
                "simulation / workers, as the window estimates before asking) and stop");
  cmd->callback([e] { runExplore(*e); });

  auto t = std::make_shared<TrainCmd>();
  cmd = app.add_subcommand("train", "train the coupled predictor of a backend on a workload suite");
  cmd->add_option("--backend,-b", t->backend, "backend name")->required();
  cmd->add_option("--suite", t->suites, "workload suite JSON (repeat to train on the union of several)")
      ->required();
  cmd->add_option("--db", t->db, "results store for the labels (each shape committed as one batch)");
  cmd->add_option("--out", t->out,
                  "model folder (default: $XDG_DATA_HOME/pimscope/models or ~/.local/share/pimscope/models)");
  cmd->add_option("--max-samples", t->maxSamples, "cap on labelled drafts per shape (15% otherwise)")
      ->check(unsignedInteger());
  cmd->add_option("--max-fresh", t->maxFresh,
                  "with --db: a shape needing more than N new simulations is sampled at N drafts instead")
      ->check(unsignedInteger());
  cmd->add_option(
         "--screen-limit", t->screenLimit,
         "sample from the N drafts of each shape the analytic screen keeps for the model (as explore "
         "--predict-limit); 0: from every pruned draft (DCC)")
      ->check(unsignedInteger());
  cmd->add_option("--seed", t->seed, "sampling and training seed")->check(unsignedInteger());
  // Fewer, shallower trees make smaller model files; the defaults are DCC's.
  cmd->add_option("--learning-rate", t->xgb.learningRate, "boosting learning rate (eta), in (0, 1]")
      ->capture_default_str()
      ->check(CLI::Range(1e-6, 1.0));
  cmd->add_option("--max-depth", t->xgb.maxDepth, "maximum depth of a tree")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  cmd->add_option("--max-rounds", t->xgb.maxRounds, "boosting rounds at most (early stopping may end sooner)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  addThreadsOption(cmd, t->threads);
  cmd->add_flag("--json", t->json, "machine-readable output");
  cmd->callback([t] { runTrain(*t); });

  auto v = std::make_shared<EvaluateCmd>();
  cmd = app.add_subcommand("evaluate", "DCC Table 4: predictor picks against the simulated optimum");
  cmd->add_option("--backend,-b", v->backend, "backend name")->required();
  cmd->add_option("--kernel,-k", v->kernel, "library kernel")->required();
  cmd->add_option("--suite", v->suite, "workload suite JSON")->required();
  cmd->add_option("--db", v->db, "results store for the labels (reused on the next run: resumable)");
  cmd->add_option("--top", v->top, "the predictor strategy simulates the N best predicted drafts")
      ->check(unsignedInteger());
  cmd->add_option("--predict-limit", v->predictLimit,
                  "drafts the model ranks after the analytic screen (as explore; 0: all)")
      ->check(unsignedInteger());
  cmd->add_option("--band", v->band,
                  "also simulate drafts predicted within this many expected errors of the best (0: off)")
      ->check(nonNegative());
  cmd->add_option("--max-confirm", v->maxConfirm, "cap on the drafts simulated to confirm")
      ->check(unsignedInteger());
  cmd->add_option("--models", v->models, "model directory (default: the shipped datasets/models)");
  v->whatIf.addTo(cmd);
  addThreadsOption(cmd, v->threads);
  cmd->add_flag("--label-all", v->labelAll,
                "simulate every draft to the end (labels for training) instead of stopping those already "
                "slower than the best found");
  cmd->add_flag("--json", v->json, "machine-readable output");
  cmd->callback([v] { runEvaluate(*v); });
}

}  // namespace pim::cli
