// SPDX-License-Identifier: Apache-2.0
// `train` and `evaluate`: train the coupled predictor of a backend on a workload suite, and report its
// accuracy in the form of DCC Table 4. Both report progress on a terminal and stop cleanly on Ctrl-C, keeping
// every labelled batch already in the store.
#include <cstdio>
#include <iostream>

#include "app/cli/cli_common.h"
#include "engine/common/error.h"
#include "engine/predict/predictor.h"
#include "engine/search/explorer.h"
#include "engine/store/store.h"
#include "engine/target/registry.h"
#include "engine/workflow/active_learning.h"
#include "engine/workflow/training.h"

namespace pim::cli {
namespace {

struct TrainCmd {
  std::string backend, db, out;
  std::vector<std::string> suites;
  std::size_t maxSamples = 400, maxFresh = 0, screenLimit = 0;
  std::uint64_t seed = 42;
  unsigned threads = 0;
  bool json = false, active = false;
  ActiveOptions activeOptions;  // --active-seed, --active-batch, --active-rounds
  XgbParams xgb;                // the boosting settings --learning-rate, --max-depth and --max-rounds change
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

nlohmann::json activeJson(const ActiveResult& a) {
  nlohmann::json rounds = nlohmann::json::array();
  for (const ActiveRound& r : a.rounds)
    rounds.push_back({{"labels", r.labels}, {"picks_changed", r.picksChanged}});
  return {{"drafts", a.drafts}, {"rounds", rounds}};
}

std::string activeText(const ActiveResult& a) {
  std::string out = "active learning over " + grouped(a.drafts) + " pruned drafts:\n";
  for (std::size_t i = 0; i < a.rounds.size(); ++i) {
    const ActiveRound& r = a.rounds[i];
    char pct[32];
    std::snprintf(
        pct, sizeof pct, "%.2f",
        100.0 * static_cast<double>(r.labels) / static_cast<double>(std::max<std::size_t>(1, a.drafts)));
    out += "  round " + std::to_string(i + 1) + ": " + grouped(r.labels) + " labels (" + pct + "%), " +
           std::to_string(r.picksChanged) + " picks improved\n";
  }
  return out;
}

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
  to.cancel = &interrupted();
  SuiteProgress progress{"labelled", {}, {}};
  to.progress = [&](const std::string& what, std::size_t done, std::size_t total) {
    progress.shapeDone(what, done, total);
  };
  to.labelProgress = [&](const std::string& what, std::size_t done, std::size_t total) {
    progress.labelled(what, done, total);
  };
  std::optional<ActiveResult> active;
  if (o.active) {
    ActiveOptions ao = o.activeOptions;
    ao.train = to;
    active.emplace(trainActive(b, suite, ao));
  }
  const Predictor p = active ? std::move(active->predictor) : trainPredictor(b, suite, to);
  if (stderrIsTerminal()) std::cerr << "\r\033[K";
  if (interrupted().load()) throw InputError("train: interrupted; labelled batches are kept in " + o.db);
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
               {"kernels", m.kernels},
               {"active", active ? activeJson(*active) : nlohmann::json()}});
    return;
  }
  if (active) std::cout << activeText(*active);
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
  to.cancel = &interrupted();
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
  if (stderrIsTerminal()) std::cerr << "\r\033[K";
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

void registerTrainCommands(CLI::App& app) {
  auto t = std::make_shared<TrainCmd>();
  auto* cmd = app.add_subcommand("train", "train the coupled predictor of a backend on a workload suite");
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
  cmd->add_flag(
      "--active", t->active,
      "active learning: a random seed set, then rounds labelling the drafts an ensemble is least sure "
      "of near the predicted best, until no shape's best labelled draft improves (docs/sweep.md)");
  cmd->add_option("--active-seed", t->activeOptions.seedFraction, "seed set: fraction of each shape's drafts")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--active-batch", t->activeOptions.perRound, "drafts labelled per shape per round")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  cmd->add_option("--active-rounds", t->activeOptions.maxRounds, "rounds at most")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
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
