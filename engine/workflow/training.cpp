// SPDX-License-Identifier: Apache-2.0
#include "engine/workflow/training.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <thread>
#include <unordered_map>

#include "engine/common/error.h"
#include "engine/common/threads.h"
#include "engine/kernel/library.h"
#include "engine/store/store.h"
#include "engine/target/registry.h"
#include "sim/simulator.h"

namespace pim {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string energyJson(const Evaluation& e) {
  return nlohmann::json{{"act_pre", e.energy.actPre_pJ},         {"rd_wr", e.energy.rdWr_pJ},
                        {"pim_compute", e.energy.pimCompute_pJ}, {"refresh", e.energy.refresh_pJ},
                        {"host_io", e.energy.hostIo_pJ},         {"buffer_moves", e.energy.bufferMoves_pJ}}
      .dump();
}

/// A family with kernel-level choices (UPMEM's tasklets, tiles, ...): each sampled draft is taken, with
/// probability 1/2, at a random other combination of choices its verifier accepts (else as the backend runs
/// it), so that the model learns what the choices change: the predictor strategy ranks drafts at other
/// choices with it (predictor_strategy.cpp).
void spreadOverChoices(const Problem& p, std::vector<Draft>& drafts, std::mt19937_64& rng) {
  const ITarget& target = targetOf(p.backend());
  const CandidateIds ids = target.candidateIds(p);
  if (ids.choices() <= 1) return;
  const auto space = target.candidates(p);
  for (Draft& d : drafts) {
    const std::uint64_t draw = rng();
    if (draw % 2 == 0) continue;
    const std::uint64_t choice = 1 + (draw / 2) % (ids.choices() - 1);
    Draft variant = space->candidate(d.id + ids.drafts() * choice);
    if (target.violations(p, variant).empty()) d = std::move(variant);
  }
}

}  // namespace

bool runsOn(const Backend& b, const Kernel& k) { return targetOf(b).check(b, k).empty(); }

std::vector<Draft> prunedDrafts(const Problem& p) {
  std::vector<Draft> out;
  targetOf(p.backend()).candidates(p)->forEachKept([&](const Draft& d) {
    out.push_back(d);
    return true;
  });
  std::sort(out.begin(), out.end(), [](const Draft& a, const Draft& b) { return a.id < b.id; });
  return out;
}

std::vector<Draft> sampleDrafts(const Problem& p, const TrainOptions& o, std::mt19937_64& rng) {
  std::vector<Draft> drafts = prunedDrafts(p);
  if (o.screenLimit > 0 && drafts.size() > o.screenLimit) {
    // Only the drafts the analytic screen passes to the model are ever ranked by it: sample those.
    std::vector<const Draft*> all;
    for (const Draft& d : drafts) all.push_back(&d);
    std::vector<Draft> screened;
    for (std::size_t i : screenForPrediction(p, all, o.screenLimit, o.eval.optimizer))
      screened.push_back(drafts[i]);
    drafts = std::move(screened);
  }
  std::shuffle(drafts.begin(), drafts.end(), rng);
  const auto want = std::min<std::size_t>(
      o.maxSamplesPerShape,
      static_cast<std::size_t>(std::ceil(o.sampleFraction * static_cast<double>(drafts.size()))));
  drafts.resize(std::min(drafts.size(), want));
  spreadOverChoices(p, drafts, rng);
  return drafts;
}

// The store's options key of a labelling run: results are only reused under the same optimiser passes and
// the same version of the family's cost model, under the same labelling model.
std::string optionsKey(const EvalOptions& e, const ITarget& t) {
  std::string key = std::string(e.optimizer.stagedRearrangement ? "staged" : "naive") + "," +
                    (e.optimizer.groupCommands ? "group" : "bank") + ",t" + std::to_string(t.modelVersion());
  // DCC-artifact labels never mix with PIMScope's (the default mode keeps its historical key).
  if (e.model != LabelModel::PimScope)
    key += "," + std::string(labelModelName(e.model)) + ",v" + std::to_string(kDccModeVersion);
  // Crossbar labels of the intended timing likewise (PIMCOMP-NN's, the default, keeps its key).
  if (t.searchSettings().crossbarTiming && e.sim.crossbarTiming != xbar::TimingModel::PimcompNn)
    key += "," + std::string(xbar::timingModelName(e.sim.crossbarTiming));
  return key;
}

namespace {

Evaluation fromStored(const StoredResult& r, const Draft& d) {
  Evaluation e;
  e.draft = d.id;
  e.cycles = {r.inputCycles, r.computeCycles, r.outputCycles};
  e.totalCycles = r.totalCycles;
  e.timeNs = r.timeNs;
  e.tCKns = r.totalCycles > 0 ? r.timeNs / static_cast<double>(r.totalCycles) : 1.0;
  e.energyPj = r.energyPj;
  return e;
}

StoredResult toStored(std::int64_t problemId, const std::string& options, const Draft& d,
                      const Evaluation& e) {
  return {problemId,
          static_cast<std::int64_t>(d.id),
          "draft",
          options,
          e.cycles[0],
          e.cycles[1],
          e.cycles[2],
          e.totalCycles,
          e.timeNs,
          e.energyPj,
          energyJson(e),
          "",
          0};
}

// Simulates `drafts` on `threads` workers; slot i gets draft i's evaluation, or stays empty when its tiles do
// not fit the banks (such drafts cannot run and carry no label). With an incumbent (branch and bound), each
// draft is stopped once it passes the best total cycles found so far, and every complete run lowers it.
// One channel-run cache per worker (`caches.size()` workers), kept across calls by the caller.
std::vector<std::optional<Evaluation>> simulateAll(const Problem& p, std::span<const Draft> drafts,
                                                   const EvalOptions& eo,
                                                   std::vector<sim::ChannelRunCache>& caches,
                                                   const std::atomic<bool>* cancel,
                                                   std::atomic<std::int64_t>* incumbent) {
  std::vector<std::optional<Evaluation>> out(drafts.size());
  std::atomic<std::size_t> next{0};
  auto work = [&](sim::ChannelRunCache* cache) {
    EvalOptions mine = eo;
    mine.cache = cache;
    for (std::size_t i; (i = next.fetch_add(1)) < drafts.size();) {
      if (cancel && cancel->load()) return;
      if (incumbent) mine.stopAfterCycles = incumbent->load();
      try {
        out[i] = evaluateDraft(p, drafts[i], mine);
      } catch (const InputError&) {
        continue;
      }
      if (incumbent) lowerIncumbent(*incumbent, *out[i]);
    }
  };
  std::vector<std::thread> pool;
  // Workers take drafts from `next`, so those the system would not start leave no work behind.
  startThreads(pool, caches.size() - 1, [&](std::size_t t) { work(&caches[t + 1]); });
  work(&caches[0]);
  for (auto& t : pool) t.join();
  return out;
}

}  // namespace

// With an incumbent, stored labels and every complete simulation lower it.

std::vector<std::pair<Draft, Evaluation>> labelDrafts(const Problem& p, const std::vector<Draft>& drafts,
                                                      const TrainOptions& o, const std::string& what,
                                                      LabelCounts* counts, std::size_t maxFresh,
                                                      std::atomic<std::int64_t>* incumbent) {
  EvalOptions eo = o.eval;
  eo.keepUnitStats = false;
  const std::string options = optionsKey(eo, targetOf(p.backend()));
  std::int64_t problemId = 0;
  std::unordered_map<std::int64_t, StoredResult> stored;
  if (o.store) {
    const auto backendId = o.store->upsertBackend(p.backend().name, p.backend().hash(), p.backend().toJson());
    // Labels belong to what the kernel computes, not to its name (a DSL file may reuse a library name).
    problemId = o.store->upsertProblem(backendId, p.kernel().name, computationHash(p.kernel()),
                                       p.kernel().source, p.storeKey());
    for (auto& r : o.store->results(problemId)) {
      if (r.schedule == "draft" && r.options == options) stored.emplace(r.draftId, std::move(r));
    }
  }
  std::vector<std::pair<Draft, Evaluation>> out;
  std::vector<Draft> todo;
  for (const Draft& d : drafts) {
    if (auto it = stored.find(static_cast<std::int64_t>(d.id)); it != stored.end()) {
      out.emplace_back(d, fromStored(it->second, d));
      if (incumbent) lowerIncumbent(*incumbent, out.back().second);
    } else {
      todo.push_back(d);
    }
  }
  if (maxFresh > 0 && todo.size() > maxFresh && drafts.size() > maxFresh) {
    // Too many new simulations: the first maxFresh drafts of the (random) sample instead.
    return labelDrafts(
        p, std::vector<Draft>(drafts.begin(), drafts.begin() + static_cast<std::ptrdiff_t>(maxFresh)), o,
        what, counts, 0, incumbent);
  }
  LabelCounts n;
  n.reused = out.size();
  const unsigned threads = workerThreads(o.threads);
  std::vector<sim::ChannelRunCache> caches(threads);
  const std::size_t batch = o.store ? std::max<std::size_t>(1, o.batchSize) : todo.size();
  for (std::size_t begin = 0; begin < todo.size(); begin += batch) {
    if (o.cancel && o.cancel->load()) break;
    const std::span<const Draft> chunk(todo.data() + begin, std::min(batch, todo.size() - begin));
    const auto evals = simulateAll(p, chunk, eo, caches, o.cancel, incumbent);
    std::vector<StoredResult> rows;
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      if (!evals[i]) continue;
      ++n.simulated;
      if (evals[i]->lowerBound) {
        ++n.bounded;
        continue;
      }
      out.emplace_back(chunk[i], *evals[i]);
      if (o.store) rows.push_back(toStored(problemId, options, chunk[i], *evals[i]));
    }
    if (o.store && !rows.empty()) o.store->putResults(rows);
    if (o.labelProgress)
      o.labelProgress(what, begin + chunk.size() + (drafts.size() - todo.size()), drafts.size());
  }
  if (counts) *counts = n;
  // In the order of `drafts`, whatever was stored: the training rows (and so its validation split and the
  // model) must not depend on which labels an earlier run happened to leave in the store.
  std::unordered_map<std::uint64_t, std::size_t> position;
  for (std::size_t i = 0; i < drafts.size(); ++i) position.emplace(drafts[i].id, i);
  std::sort(out.begin(), out.end(),
            [&](const auto& a, const auto& b) { return position.at(a.first.id) < position.at(b.first.id); });
  return out;
}

namespace {

// Wall-clock seconds per draft of an exhaustive sweep of `drafts` (sorted by id) on the labelling workers,
// measured on `sample` drafts simulated to the end: four runs of consecutive ids spread over the space, each
// with fresh channel-run caches, so channel programs are reused only as far as neighbouring drafts share
// them.
double secondsPerFullSimulation(const Problem& p, const std::vector<Draft>& drafts, const TrainOptions& o,
                                std::size_t sample) {
  if (drafts.empty()) return 0;
  sample = std::clamp<std::size_t>(sample, 1, drafts.size());
  constexpr std::size_t kRuns = 4;
  const std::size_t runs = std::min(kRuns, sample), perRun = sample / runs;
  EvalOptions eo = o.eval;
  eo.keepUnitStats = false;
  const unsigned threads = workerThreads(o.threads);
  double seconds = 0;
  std::size_t timed = 0;
  for (std::size_t run = 0; run < runs; ++run) {
    const std::size_t begin = std::min(drafts.size() - perRun, run * (drafts.size() / runs));
    std::vector<sim::ChannelRunCache> caches(threads);
    const auto t = Clock::now();
    simulateAll(p, std::span<const Draft>(drafts.data() + begin, perRun), eo, caches, o.cancel, nullptr);
    seconds += since(t);
    timed += perRun;
  }
  return seconds / static_cast<double>(timed);
}

}  // namespace

void recordType(TrainingMetadata& meta, const std::string& name, const Kernel& k) {
  if (k.tensors.empty()) return;
  auto& types = meta.kernelTypes[name];
  const std::string t(dtypeName(k.tensors.front().dtype));
  if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
}

void recordShape(TrainingMetadata& meta, const Kernel& k, const Shape& shape) {
  auto& ranges = meta.shapeRanges[k.name];
  for (std::size_t d = 0; d < k.dims.size(); ++d) {
    const std::int64_t v = shape.values[d];
    const auto [it, fresh] = ranges.try_emplace(k.dims[d], v, v);
    it->second.first = std::min(it->second.first, v);
    it->second.second = std::max(it->second.second, v);
  }
}

XgbModel fitModel(const std::vector<float>& x, const std::vector<float>& y, std::size_t cols,
                  const TrainOptions& o, std::mt19937_64& rng, TrainingMetadata& meta) {
  const std::size_t rows = y.size();
  // Random split: validation rows for early stopping and the expected error.
  std::vector<std::size_t> order(rows);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  const std::size_t nValid = std::max<std::size_t>(1, static_cast<std::size_t>(o.validationFraction * rows));
  std::vector<float> xt, yt, xv, yv;
  for (std::size_t i = 0; i < rows; ++i) {
    auto& X = i < nValid ? xv : xt;
    auto& Y = i < nValid ? yv : yt;
    X.insert(X.end(), x.begin() + static_cast<std::ptrdiff_t>(order[i] * cols),
             x.begin() + static_cast<std::ptrdiff_t>((order[i] + 1) * cols));
    Y.push_back(y[order[i]]);
  }
  const auto t1 = Clock::now();
  XgbParams params = o.xgb;
  params.seed = o.seed;
  meta.learningRate = params.learningRate;
  meta.maxDepth = params.maxDepth;
  TrainReport report;
  XgbModel model = XgbModel::train(xt, yt.size(), cols, yt, xv, yv.size(), yv, params, &report);
  meta.trainSeconds = since(t1);
  meta.rounds = report.rounds;
  meta.bestIteration = report.bestIteration;
  meta.samples = yt.size();
  meta.validationSamples = yv.size();
  const auto pv = model.predict(xv, yv.size(), cols);
  double mape = 0;
  for (std::size_t i = 0; i < yv.size(); ++i) {
    mape += std::abs(std::exp(static_cast<double>(pv[i])) - std::exp(static_cast<double>(yv[i]))) /
            std::exp(static_cast<double>(yv[i]));
  }
  meta.validationMape = 100.0 * mape / static_cast<double>(yv.size());
  return model;
}

Predictor trainPredictor(const Backend& b, const Suite& suite, const TrainOptions& o) {
  const auto t0 = Clock::now();
  const ITarget& target = targetOf(b);
  const std::vector<std::string>& featureNames = target.featureNames();
  if (featureNames.empty()) {
    throw InputError("train: the " + std::string(target.family()) + " family of " + b.name +
                     " has no analytic estimate to learn from (no features)");
  }
  std::mt19937_64 rng(o.seed);
  std::vector<float> x, y;
  TrainingMetadata meta;
  meta.backend = b.name;
  meta.backendHash = b.hash();
  meta.sampleFraction = o.sampleFraction;
  meta.screenLimit = o.screenLimit;
  meta.seed = o.seed;
  std::size_t shapesTotal = 0, shapesDone = 0;
  for (const auto& [kernel, shapes] : suite.kernels) shapesTotal += shapes.size();
  for (const auto& [kernel, shapes] : suite.kernels) {
    const Kernel k = suite.kernel(kernel);
    const Backend kb = suite.backendFor(b, kernel);
    if (!runsOn(kb, k)) {
      shapesDone += shapes.size();
      continue;
    }
    meta.kernels.push_back(kernel);
    for (const std::string& shape : shapes) {
      if (o.cancel && o.cancel->load()) break;
      const Problem p(kb, k, parseShape(k, shape));
      recordShape(meta, k, p.shape());
      recordType(meta, kernel, k);
      const std::vector<Draft> drafts = sampleDrafts(p, o, rng);
      const auto features = target.estimator(p, o.eval.optimizer);
      for (const auto& [d, e] :
           labelDrafts(p, drafts, o, kernel + " " + shape, nullptr, o.maxFreshPerShape)) {
        features->features(d, x);
        y.push_back(static_cast<float>(std::log(std::max(1.0, e.timeNs))));
      }
      if (o.progress) o.progress(kernel + " " + shape, ++shapesDone, shapesTotal);
    }
  }
  meta.labelSeconds = since(t0);
  const std::size_t cols = featureNames.size(), rows = y.size();
  if (rows < 10)
    throw InputError("train: fewer than 10 labelled drafts for " + b.name + " in suite " + suite.name);

  XgbModel model = fitModel(x, y, cols, o, rng, meta);
  Predictor pred(std::move(model), featureNames, meta);
  if (o.store) {
    const auto bytes = pred.model().save();
    o.store->putModel({0, meta.backendHash, "default", 0, bytes, nlohmann::json(featureNames).dump(),
                       nlohmann::json{{"samples", meta.samples},
                                      {"validation_mape", meta.validationMape},
                                      {"seed", meta.seed},
                                      {"suite", suite.name}}
                           .dump()});
  }
  return pred;
}

std::vector<double> screenedPredictions(const Problem& p, const std::vector<Draft>& drafts,
                                        const Predictor& predictor, std::size_t predictLimit,
                                        const OptimizerOptions& optimizer) {
  std::vector<double> ns(drafts.size(), INFINITY);
  std::vector<const Draft*> all;
  for (const Draft& d : drafts) all.push_back(&d);
  const auto chosen = screenForPrediction(p, all, predictLimit, optimizer);
  std::vector<Draft> screened;
  for (std::size_t i : chosen) screened.push_back(drafts[i]);
  const auto predicted = predictor.predictNs(p, screened);
  for (std::size_t i = 0; i < chosen.size(); ++i) ns[chosen[i]] = predicted[i];
  return ns;
}

std::vector<std::size_t> confirmationOrder(const Problem& p, const std::vector<Draft>& drafts,
                                           const Predictor& predictor, const EvaluateOptions& e,
                                           const OptimizerOptions& optimizer) {
  return bestPredicted(screenedPredictions(p, drafts, predictor, e.predictLimit, optimizer), e.topK,
                       e.bandErrors * predictor.expectedErrorPct(), e.maxConfirm);
}

EvaluationReport evaluatePredictor(const Backend& b, const std::string& kernel, const Suite& suite,
                                   const Predictor& predictor, const TrainOptions& o,
                                   const EvaluateOptions& eo) {
  EvaluationReport r;
  r.backend = b.name;
  r.kernel = kernel;
  const Kernel k = suite.kernel(kernel);
  const Backend kb = suite.backendFor(b, kernel);
  if (!runsOn(kb, k)) throw InputError("evaluate: " + kernel + " cannot run on " + b.name);
  EvalOptions sim = o.eval;
  sim.keepUnitStats = false;
  auto simulate = [&](const Problem& p, const Draft& d) -> std::optional<Evaluation> {
    try {
      return evaluateDraft(p, d, sim);
    } catch (const InputError&) {
      return std::nullopt;
    }
  };
  std::vector<double> ratios, argminRatios;
  for (const auto& [name, shapes] : suite.kernels) {
    if (name != kernel) continue;
    for (const std::string& shape : shapes) {
      if (o.cancel && o.cancel->load()) {
        r.interrupted = true;
        break;
      }
      const Problem p(kb, k, parseShape(k, shape));
      const auto tPredict = Clock::now();
      const std::vector<Draft> drafts = prunedDrafts(p);
      const std::vector<double> ns =
          screenedPredictions(p, drafts, predictor, eo.predictLimit, o.eval.optimizer);
      const std::vector<std::size_t> order =
          bestPredicted(ns, eo.topK, eo.bandErrors * predictor.expectedErrorPct(), eo.maxConfirm);
      if (order.empty()) continue;
      const std::size_t k2 = order.size();
      double pickNs = INFINITY, argminNs = INFINITY;
      std::int64_t pickCycles = INT64_MAX;
      std::size_t pick = order[0];
      for (std::size_t i = 0; i < k2; ++i) {
        const auto e = simulate(p, drafts[order[i]]);
        const double t = e ? e->timeNs : INFINITY;
        if (i == 0) argminNs = t;
        if (t < pickNs) {
          pickNs = t;
          pickCycles = e->totalCycles;
          pick = order[i];
        }
      }
      r.secondsWith += since(tPredict);
      // The true optimum: every pruned draft is simulated; with branch and bound, the pick's cycles are the
      // first incumbent and a draft is stopped as soon as it is slower than the best found so far.
      const auto tAll = Clock::now();
      LabelCounts counts;
      std::atomic<std::int64_t> incumbent{pickCycles};
      const auto labelled = labelDrafts(p, drafts, o, kernel + " " + shape, &counts, 0,
                                        eo.branchAndBound ? &incumbent : nullptr);
      const double labelSeconds = since(tAll);
      r.secondsOptimum += labelSeconds;
      r.bounded += counts.bounded;
      if (o.cancel && o.cancel->load()) {
        // Part of this shape is labelled: its optimum is unknown, so it is not a row (the labels are stored).
        r.interrupted = true;
        break;
      }
      if (!eo.branchAndBound && counts.reused == 0) {
        r.secondsWithout += labelSeconds;
      } else {
        // Stored labels were not timed now and bounded runs stopped early: extrapolate from drafts simulated
        // to the end in this run (the fresh labels without branch and bound, or else a timed sample).
        const double perDraft = eo.branchAndBound || counts.simulated == 0
                                    ? secondsPerFullSimulation(p, drafts, o, eo.timingSample)
                                    : labelSeconds / static_cast<double>(counts.simulated);
        r.secondsWithout += perDraft * static_cast<double>(drafts.size());
        r.withoutExtrapolated = true;
      }
      if (labelled.empty()) continue;
      const auto best = std::min_element(labelled.begin(), labelled.end(), [](const auto& a, const auto& c) {
        return a.second.timeNs < c.second.timeNs;
      });
      const double opt = best->second.timeNs;
      // How deep the predictor's ranking has to be read to reach an optimal draft (1 = its best prediction).
      double optPredicted = INFINITY;
      for (const auto& [d, e] : labelled) {
        if (e.timeNs > opt * (1 + 1e-12)) continue;
        const auto at = std::lower_bound(drafts.begin(), drafts.end(), d.id,
                                         [](const Draft& x, std::uint64_t id) { return x.id < id; });
        optPredicted = std::min(optPredicted, ns[static_cast<std::size_t>(at - drafts.begin())]);
      }
      // 0 when every optimal draft was screened out before prediction.
      const auto optimumRank =
          std::isfinite(optPredicted)
              ? 1 + static_cast<std::size_t>(
                        std::count_if(ns.begin(), ns.end(), [&](double v) { return v < optPredicted; }))
              : 0;
      r.rows.push_back({shape, drafts.size(), best->first.id, drafts[pick].id, drafts[order[0]].id, opt,
                        pickNs, argminNs, optimumRank});
      ++r.configs;
      if (pickNs <= opt * (1 + 1e-12)) {
        ++r.top1;
      } else {
        ratios.push_back(opt / pickNs);
      }
      if (argminNs <= opt * (1 + 1e-12)) {
        ++r.top1Argmin;
      } else {
        argminRatios.push_back(opt / argminNs);
      }
      if (o.progress) o.progress(kernel + " " + shape, r.configs, shapes.size());
    }
  }
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double q : v) s += q;
    return v.empty() ? 1.0 : s / static_cast<double>(v.size());
  };
  r.meanPickVsOptimum = mean(ratios);
  r.meanArgminVsOptimum = mean(argminRatios);
  return r;
}

}  // namespace pim
