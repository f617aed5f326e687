// SPDX-License-Identifier: Apache-2.0
#include "engine/predict/training.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>

#include "engine/common/error.h"
#include "engine/kernel/library.h"
#include "engine/predict/features.h"
#include "engine/store/store.h"

namespace pim {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool runsOn(const Backend& b, const Kernel& k) {
  const ICodeGenerator* g = codeGeneratorFor(b);
  return g && g->unsupportedReason(k).empty();
}

std::vector<Draft> keptDrafts(const Problem& p) {
  std::vector<Draft> out;
  Pruner(p.space()).forEachKept([&](const Draft& d) {
    out.push_back(d);
    return true;
  });
  std::sort(out.begin(), out.end(), [](const Draft& a, const Draft& b) { return a.id < b.id; });
  return out;
}

std::string energyJson(const Evaluation& e) {
  return nlohmann::json{{"act_pre", e.energy.actPre_pJ},         {"rd_wr", e.energy.rdWr_pJ},
                        {"pim_compute", e.energy.pimCompute_pJ}, {"refresh", e.energy.refresh_pJ},
                        {"host_io", e.energy.hostIo_pJ},         {"buffer_moves", e.energy.bufferMoves_pJ}}
      .dump();
}

// Labels `drafts` of `p` by simulation, committing them to the store as one batch when there is one.
std::vector<std::pair<Draft, Evaluation>> label(const Problem& p, const std::vector<Draft>& drafts,
                                                const TrainOptions& o) {
  std::vector<std::pair<Draft, Evaluation>> out;
  EvalOptions eo = o.eval;
  eo.keepBanks = false;
  for (const Draft& d : drafts) {
    if (o.cancel && o.cancel->load()) break;
    try {
      out.emplace_back(d, evaluateDraft(p, d, eo));
    } catch (const InputError&) {
      // Drafts whose tiles do not fit the banks cannot run; they carry no label.
    }
  }
  if (o.store && !out.empty()) {
    const auto backendId = o.store->upsertBackend(p.backend().name, p.backend().hash(), p.backend().toJson());
    const auto problemId = o.store->upsertProblem(backendId, p.kernel().name, p.kernel().source,
                                                  shapeString(p.kernel(), p.shape()));
    std::vector<StoredResult> rows;
    for (const auto& [d, e] : out) {
      rows.push_back({problemId, static_cast<std::int64_t>(d.id), "draft", "staged,group", e.cycles[0],
                      e.cycles[1], e.cycles[2], e.totalCycles, e.timeNs, e.energyPj, energyJson(e), "", 0});
    }
    o.store->putResults(rows);
  }
  return out;
}

}  // namespace

Suite loadSuite(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw InputError(path + ": cannot open the suite file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": " + e.what());
  }
  Suite s;
  s.name = j.value("name", path);
  if (!j.contains("kernels") || !j["kernels"].is_object())
    throw InputError(path + ": kernels: missing or not an object");
  for (const auto& [kernel, shapes] : j["kernels"].items()) {
    if (!shapes.is_array()) throw InputError(path + ": kernels." + kernel + ": not a list of shapes");
    std::vector<std::string> list;
    const Kernel k = KernelLibrary::builtin().get(kernel);
    for (const auto& sh : shapes) {
      if (!sh.is_string()) throw InputError(path + ": kernels." + kernel + ": a shape is not a string");
      try {
        parseShape(k, sh.get<std::string>());
      } catch (const InputError& e) {
        throw InputError(path + ": kernels." + kernel + ": " + e.what());
      }
      list.push_back(sh.get<std::string>());
    }
    s.kernels.emplace_back(kernel, std::move(list));
  }
  return s;
}

Predictor trainPredictor(const Backend& b, const Suite& suite, const TrainOptions& o) {
  const auto t0 = Clock::now();
  std::mt19937_64 rng(o.seed);
  std::vector<float> x, y;
  TrainingMetadata meta;
  meta.backend = b.name;
  meta.backendHash = b.hash();
  meta.sampleFraction = o.sampleFraction;
  meta.seed = o.seed;
  std::size_t shapesTotal = 0, shapesDone = 0;
  for (const auto& [kernel, shapes] : suite.kernels) shapesTotal += shapes.size();
  for (const auto& [kernel, shapes] : suite.kernels) {
    const Kernel k = KernelLibrary::builtin().get(kernel);
    if (!runsOn(b, k)) {
      shapesDone += shapes.size();
      continue;
    }
    meta.kernels.push_back(kernel);
    for (const std::string& shape : shapes) {
      if (o.cancel && o.cancel->load()) break;
      const Problem p(b, k, parseShape(k, shape));
      std::vector<Draft> drafts = keptDrafts(p);
      std::shuffle(drafts.begin(), drafts.end(), rng);
      const auto want = std::min<std::size_t>(
          o.maxSamplesPerShape,
          static_cast<std::size_t>(std::ceil(o.sampleFraction * static_cast<double>(drafts.size()))));
      drafts.resize(std::min(drafts.size(), want));
      for (const auto& [d, e] : label(p, drafts, o)) {
        const auto f = draftFeatures(p, d, o.eval.optimizer);
        x.insert(x.end(), f.begin(), f.end());
        y.push_back(static_cast<float>(std::log(std::max(1.0, e.timeNs))));
      }
      if (o.progress) o.progress(kernel + " " + shape, ++shapesDone, shapesTotal);
    }
  }
  meta.labelSeconds = since(t0);
  const std::size_t cols = featureNames().size(), rows = y.size();
  if (rows < 10)
    throw InputError("train: fewer than 10 labelled drafts for " + b.name + " in suite " + suite.name);

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
  Predictor pred(std::move(model), featureNames(), meta);
  if (o.store) {
    const auto bytes = pred.model().save();
    o.store->putModel({0, meta.backendHash, "default", 0, bytes, nlohmann::json(featureNames()).dump(),
                       nlohmann::json{{"samples", meta.samples},
                                      {"validation_mape", meta.validationMape},
                                      {"seed", meta.seed},
                                      {"suite", suite.name}}
                           .dump()});
  }
  return pred;
}

EvaluationReport evaluatePredictor(const Backend& b, const std::string& kernel, const Suite& suite,
                                   const Predictor& predictor, const TrainOptions& o,
                                   const EvaluateOptions& eo) {
  EvaluationReport r;
  r.backend = b.name;
  r.kernel = kernel;
  const Kernel k = KernelLibrary::builtin().get(kernel);
  if (!runsOn(b, k)) throw InputError("evaluate: " + kernel + " cannot run on " + b.name);
  EvalOptions sim = o.eval;
  sim.keepBanks = false;
  auto simulate = [&](const Problem& p, const Draft& d) {
    try {
      return evaluateDraft(p, d, sim).timeNs;
    } catch (const InputError&) {
      return static_cast<double>(INFINITY);
    }
  };
  std::vector<double> ratios, argminRatios;
  for (const auto& [name, shapes] : suite.kernels) {
    if (name != kernel) continue;
    for (const std::string& shape : shapes) {
      if (o.cancel && o.cancel->load()) break;
      const Problem p(b, k, parseShape(k, shape));
      const auto tPredict = Clock::now();
      const std::vector<Draft> drafts = keptDrafts(p);
      const auto ns = predictor.predictNs(p, drafts);
      std::vector<std::size_t> order(drafts.size());
      std::iota(order.begin(), order.end(), 0);
      const std::size_t k2 = std::min(eo.topK, order.size());
      std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k2), order.end(),
                        [&](std::size_t a, std::size_t c) { return ns[a] < ns[c]; });
      double pickNs = INFINITY, argminNs = INFINITY;
      std::size_t pick = order[0];
      for (std::size_t i = 0; i < k2; ++i) {
        const double t = simulate(p, drafts[order[i]]);
        if (i == 0) argminNs = t;
        if (t < pickNs) {
          pickNs = t;
          pick = order[i];
        }
      }
      r.secondsWith += since(tPredict);
      const auto tAll = Clock::now();
      const auto labelled = label(p, drafts, o);
      r.secondsWithout += since(tAll);
      if (labelled.empty()) continue;
      const auto best = std::min_element(labelled.begin(), labelled.end(), [](const auto& a, const auto& c) {
        return a.second.timeNs < c.second.timeNs;
      });
      const double opt = best->second.timeNs;
      r.rows.push_back({shape, drafts.size(), best->first.id, drafts[pick].id, drafts[order[0]].id, opt,
                        pickNs, argminNs});
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
