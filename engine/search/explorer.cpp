// SPDX-License-Identifier: Apache-2.0
#include "engine/search/explorer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <numeric>
#include <thread>

#include "engine/common/error.h"
#include "engine/predict/features.h"

namespace pim {
namespace {

using Clock = std::chrono::steady_clock;

constexpr StrategyKind kStrategies[] = {StrategyKind::Predictor, StrategyKind::Exhaustive,
                                        StrategyKind::ComputeCentric, StrategyKind::Vendor,
                                        StrategyKind::Gpu};

// Ask/tell search (Timeloop's mapper interface): next() proposes which candidate to simulate and how; the
// explorer reports every evaluation back. Candidates are the kept drafts, with predictions when available.
struct Proposal {
  std::size_t index = 0;
  bool computeOnly = false;
};

class ISearchStrategy {
 public:
  virtual ~ISearchStrategy() = default;
  virtual std::optional<Proposal> next() = 0;
  virtual void report(const Proposal& p, const DraftRecord& r) = 0;
  virtual std::size_t planned() const = 0;  // how many simulations it expects to ask for
  /// After next() returned nothing: whether it may propose more once the simulations in flight are reported
  /// (a worker then waits instead of leaving).
  virtual bool awaitingReports() const { return false; }
};

// Every candidate once, in id order; with a cap, an even sample across the space.
class ExhaustiveSearch final : public ISearchStrategy {
 public:
  ExhaustiveSearch(std::size_t n, std::size_t cap)
      : m_n(n), m_stride(cap && n > cap ? (n + cap - 1) / cap : 1) {}
  std::optional<Proposal> next() override {
    if (m_at >= m_n) return std::nullopt;
    const Proposal p{m_at, false};
    m_at += m_stride;
    return p;
  }
  void report(const Proposal&, const DraftRecord&) override {}
  std::size_t planned() const override { return (m_n + m_stride - 1) / m_stride; }

 private:
  std::size_t m_n, m_stride, m_at = 0;
};

// The k best predicted, best first (DCC 4.4: predict all, confirm the top by simulation).
class PredictorSearch final : public ISearchStrategy {
 public:
  PredictorSearch(const std::vector<DraftRecord>& records, std::size_t k, double bandPct, std::size_t kMax) {
    std::vector<double> ns(records.size(), INFINITY);
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (records[i].predictedNs) ns[i] = *records[i].predictedNs;
    }
    m_order = bestPredicted(ns, k, bandPct, kMax);
  }
  std::optional<Proposal> next() override {
    if (m_at >= m_order.size()) return std::nullopt;
    return Proposal{m_order[m_at++], false};
  }
  void report(const Proposal&, const DraftRecord&) override {}
  std::size_t planned() const override { return m_order.size(); }

 private:
  std::vector<std::size_t> m_order;
  std::size_t m_at = 0;
};

// The two-step tuner DCC criticises (ATiM/TVM-like): rank the drafts by compute alone — a cost model first
// (the analytic compute estimate, as TVM ranks templates), then measured compute-only runs of the best
// `screen` — keep the best `templates`, and only then add their rearrangement cost.
class ComputeCentricSearch final : public ISearchStrategy {
 public:
  ComputeCentricSearch(const Problem& p, const std::vector<DraftRecord>& records, std::size_t templates,
                       std::size_t screen)
      : m_templates(templates) {
    const auto& names = featureNames();
    const auto at =
        static_cast<std::size_t>(std::find(names.begin(), names.end(), "est_compute_cycles") - names.begin());
    std::vector<std::pair<float, std::size_t>> est;
    est.reserve(records.size());
    const FeatureExtractor features(p);
    std::vector<float> f;
    for (std::size_t i = 0; i < records.size(); ++i) {
      f.clear();
      features.extract(records[i].draft, f);
      est.emplace_back(f[at], i);
    }
    const std::size_t n = std::min(screen, est.size());
    std::partial_sort(est.begin(), est.begin() + static_cast<std::ptrdiff_t>(n), est.end());
    for (std::size_t i = 0; i < n; ++i) m_screen.push_back(est[i].second);
  }
  std::optional<Proposal> next() override {
    if (m_screened < m_screen.size()) return Proposal{m_screen[m_screened++], true};
    if (awaitingReports()) return std::nullopt;
    if (!m_ranked) {
      std::sort(m_compute.begin(), m_compute.end());
      if (m_compute.size() > m_templates) m_compute.resize(m_templates);
      m_ranked = true;
    }
    if (m_at >= m_compute.size()) return std::nullopt;
    return Proposal{m_compute[m_at++].second, false};
  }
  void report(const Proposal& p, const DraftRecord& r) override {
    if (!p.computeOnly) return;
    ++m_reported;
    if (r.computeOnlyCycles) m_compute.emplace_back(*r.computeOnlyCycles, p.index);
  }
  std::size_t planned() const override { return m_screen.size() + m_templates; }
  // The ranking needs every compute-only run: ranking on a partial set made the pick depend on thread timing.
  bool awaitingReports() const override { return !m_ranked && m_reported < m_screen.size(); }

 private:
  std::vector<std::size_t> m_screen;
  std::size_t m_screened = 0;
  std::size_t m_templates;
  std::size_t m_reported = 0;  // compute-only runs reported (with or without a result)
  std::vector<std::pair<std::int64_t, std::size_t>> m_compute;
  bool m_ranked = false;
  std::size_t m_at = 0;
};

}  // namespace

std::string_view strategyName(StrategyKind s) {
  switch (s) {
    case StrategyKind::Predictor:
      return "predictor";
    case StrategyKind::Exhaustive:
      return "exhaustive";
    case StrategyKind::ComputeCentric:
      return "compute-centric";
    case StrategyKind::Vendor:
      return "vendor";
    case StrategyKind::Gpu:
      return "gpu";
  }
  return "?";
}

std::optional<StrategyKind> parseStrategy(std::string_view name) {
  for (StrategyKind s : kStrategies) {
    if (strategyName(s) == name) return s;
  }
  return std::nullopt;
}

Explorer::Explorer(const Problem& p, ExploreOptions o) : m_problem(p), m_options(std::move(o)) {
  m_options.eval.keepBanks = false;
}

ExploreProgress Explorer::progress() const {
  std::lock_guard lock(m_mutex);
  return m_progress;
}

std::vector<DraftRecord> Explorer::records() const {
  std::lock_guard lock(m_mutex);
  return m_records;
}

std::optional<DraftRecord> Explorer::best() const {
  std::lock_guard lock(m_mutex);
  if (!m_progress.best) return std::nullopt;
  return m_records[*m_progress.best];
}

void Explorer::run(const std::atomic<bool>& cancel,
                   const std::function<void(const ExploreProgress&)>& onProgress) {
  const auto start = Clock::now();
  auto lastReport = start;
  std::mutex reportMutex;  // workers publish concurrently; the callback sees one report at a time
  auto publish = [&](bool force) {
    std::lock_guard report(reportMutex);
    if (!onProgress || (!force && Clock::now() - lastReport < std::chrono::milliseconds(50))) return;
    ExploreProgress copy;
    {
      std::lock_guard lock(m_mutex);
      m_progress.elapsedSeconds = std::chrono::duration<double>(Clock::now() - start).count();
      copy = m_progress;
    }
    lastReport = Clock::now();
    onProgress(copy);
  };
  auto stageStart = start;
  auto setStage = [&](const char* stage) {
    {
      std::lock_guard lock(m_mutex);
      const auto now = Clock::now();
      if (m_progress.stage != "idle")
        m_progress.stageSeconds.emplace_back(m_progress.stage,
                                             std::chrono::duration<double>(now - stageStart).count());
      stageStart = now;
      m_progress.stage = stage;
    }
    publish(true);
  };

  // Generation and pruning.
  setStage("generating");
  const DraftSpace& space = m_problem.space();
  Pruner pruner(space, m_options.rules,
                m_options.pruneRules ? *m_options.pruneRules : PruneRuleRegistry::builtin());
  const PruneCounts counts = pruner.counts();
  {
    std::lock_guard lock(m_mutex);
    m_progress.generated = counts.generated;
    m_progress.pruned.clear();
    for (const RuleCount& r : counts.rules) m_progress.pruned.push_back(r.removed);
    m_progress.remaining = counts.remaining;
  }
  std::vector<DraftRecord> records;
  records.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(counts.remaining, 1u << 22)));
  bool cancelled = false;
  pruner.forEachKept([&](const Draft& d) {
    records.push_back(DraftRecord{d, {}, {}, {}, {}});
    if ((records.size() & 4095) == 0 && cancel.load()) cancelled = true;
    return !cancelled;
  });
  std::sort(records.begin(), records.end(),
            [](const auto& a, const auto& b) { return a.draft.id < b.draft.id; });
  {
    std::lock_guard lock(m_mutex);
    m_records = std::move(records);
  }
  if (cancelled) return setStage("cancelled");

  // Baseline strategies evaluate one schedule.
  StrategyKind kind = m_options.strategy;
  if (kind == StrategyKind::Vendor || kind == StrategyKind::Gpu) {
    setStage("simulating");
    const Baseline b =
        kind == StrategyKind::Vendor ? vendorBaseline(m_problem, m_options.eval) : gpuBaseline(m_problem);
    if (!b.available) throw InputError(std::string(strategyName(kind)) + " strategy: " + b.reason);
    DraftRecord rec;
    rec.draft = b.draft.value_or(Draft{UINT64_MAX, {}});
    rec.simulated = std::make_shared<const Evaluation>(b.eval);
    {
      std::lock_guard lock(m_mutex);
      m_records.push_back(rec);
      m_progress.simulated = 1;
      m_progress.best = m_records.size() - 1;
      m_progress.bestNs = b.eval.timeNs;
    }
    return setStage("done");
  }

  // Prediction: the analytic screen needs no model, so it runs while a deferred model is still loading.
  const Predictor* predictor = m_options.predictor;
  std::vector<std::size_t> chosen;
  if (predictor || m_options.predictorSource) {
    setStage("screening");
    std::vector<const Draft*>
        drafts;  // pointers: copying a few hundred thousand drafts costs more than the screen
    drafts.reserve(m_records.size());
    for (const DraftRecord& r : m_records) drafts.push_back(&r.draft);
    chosen = screenForPrediction(m_problem, drafts, m_options.predictLimit, m_options.eval.optimizer);
    if (cancel.load()) return setStage("cancelled");
  }
  if (!predictor && m_options.predictorSource) {
    setStage("loading model");
    predictor = m_options.predictorSource();
  }
  const bool predict = predictor != nullptr;
  if (kind == StrategyKind::Predictor && !predict) kind = StrategyKind::Exhaustive;
  if (predict) {
    setStage("predicting");
    // One call: the coarse-to-fine shortlist is chosen over the whole screened set, as the Table-4
    // evaluation does, so both make the same pick.
    std::vector<Draft> batch;
    batch.reserve(chosen.size());
    for (std::size_t i : chosen) batch.push_back(m_records[i].draft);
    const auto ns = predictor->predictNs(m_problem, batch);
    {
      std::lock_guard lock(m_mutex);
      for (std::size_t i = 0; i < ns.size(); ++i) m_records[chosen[i]].predictedNs = ns[i];
      m_progress.predicted = ns.size();
    }
    publish(false);
    if (cancel.load()) return setStage("cancelled");
  }

  // Simulation of what the strategy asks for, on every core.
  std::unique_ptr<ISearchStrategy> search;
  const std::size_t cap = m_options.maxSimulations;
  switch (kind) {
    case StrategyKind::Predictor:
      search =
          std::make_unique<PredictorSearch>(m_records, static_cast<std::size_t>(std::max(1, m_options.topK)),
                                            m_options.bandErrors * predictor->expectedErrorPct(),
                                            static_cast<std::size_t>(std::max(0, m_options.maxConfirm)));
      break;
    case StrategyKind::ComputeCentric:
      search = std::make_unique<ComputeCentricSearch>(
          m_problem, m_records, static_cast<std::size_t>(std::max(1, m_options.computeCentricTemplates)),
          cap ? cap : 64);
      break;
    default:
      search = std::make_unique<ExhaustiveSearch>(m_records.size(), cap);
  }
  {
    std::lock_guard lock(m_mutex);
    m_progress.toSimulate = search->planned();
  }
  setStage("simulating");
  std::mutex askMutex;
  std::condition_variable reported;  // a strategy awaiting reports (compute-centric's ranking) waits on it
  const bool bounded = m_options.boundConfirmations && kind == StrategyKind::Predictor;
  std::atomic<std::int64_t> incumbentCycles{0};  // 0: nothing confirmed yet (no bound)
  auto worker = [&] {
    sim::ChannelRunCache cache;  // drafts of one problem share many channel programs
    for (;;) {
      if (cancel.load()) return;
      std::optional<Proposal> prop;
      Draft draft;
      {
        std::unique_lock lock(askMutex);
        while (!(prop = search->next()) && search->awaitingReports() && !cancel.load())
          reported.wait_for(lock, std::chrono::milliseconds(20));
        if (!prop) return;
        std::lock_guard lock2(m_mutex);
        draft = m_records[prop->index].draft;
      }
      EvalOptions eo = m_options.eval;
      eo.computeOnly = prop->computeOnly;
      eo.cache = &cache;
      if (bounded) eo.stopAfterCycles = incumbentCycles.load();
      DraftRecord result;
      try {
        Evaluation e = evaluateDraft(m_problem, draft, eo);
        if (prop->computeOnly) {
          result.computeOnlyCycles = e.cycles[1];
        } else {
          if (bounded) lowerIncumbent(incumbentCycles, e);
          result.simulated = std::make_shared<const Evaluation>(std::move(e));
        }
      } catch (const InputError& err) {
        result.error = err.what();
      }
      {
        std::lock_guard lock(askMutex);
        search->report(*prop, result);
      }
      reported.notify_all();
      {
        std::lock_guard lock(m_mutex);
        DraftRecord& rec = m_records[prop->index];
        if (result.computeOnlyCycles) rec.computeOnlyCycles = result.computeOnlyCycles;
        if (result.simulated) rec.simulated = result.simulated;
        if (!result.error.empty()) {
          rec.error = result.error;
          ++m_progress.failed;
        }
        ++m_progress.simulated;
        // Equal times go to the smaller draft id, so the best does not depend on which worker finished first.
        if (rec.simulated && !rec.simulated->lowerBound &&
            (!m_progress.best || rec.simulated->timeNs < m_progress.bestNs ||
             (rec.simulated->timeNs == m_progress.bestNs &&
              rec.draft.id < m_records[*m_progress.best].draft.id))) {
          m_progress.best = prop->index;
          m_progress.bestNs = rec.simulated->timeNs;
        }
      }
      publish(false);
    }
  };
  const unsigned threads = std::max(1u, std::min(2u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  setStage(cancel.load() ? "cancelled" : "done");
}

std::optional<DraftRecord> exploreBest(const Problem& p, const ExploreOptions& o) {
  Explorer e(p, o);
  const std::atomic<bool> never{false};
  e.run(never);
  return e.best();
}

}  // namespace pim
