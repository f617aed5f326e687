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

namespace {

using Clock = std::chrono::steady_clock;

constexpr StrategyKind kStrategies[] = {StrategyKind::Predictor, StrategyKind::Exhaustive,
                                        StrategyKind::ComputeCentric, StrategyKind::Vendor,
                                        StrategyKind::Gpu};

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

// Progress of one run: stage wall times, and the callback at most every 50 ms unless forced. Workers publish
// concurrently; the callback sees one report at a time.
class Explorer::Reporter {
 public:
  Reporter(Explorer& ex, const std::function<void(const ExploreProgress&)>& onProgress)
      : m_ex(ex),
        m_onProgress(onProgress),
        m_start(Clock::now()),
        m_lastReport(m_start),
        m_stageStart(m_start) {}

  void publish(bool force) {
    std::lock_guard report(m_reportMutex);
    if (!m_onProgress || (!force && Clock::now() - m_lastReport < std::chrono::milliseconds(50))) return;
    ExploreProgress copy;
    {
      std::lock_guard lock(m_ex.m_mutex);
      m_ex.m_progress.elapsedSeconds = std::chrono::duration<double>(Clock::now() - m_start).count();
      copy = m_ex.m_progress;
    }
    m_lastReport = Clock::now();
    m_onProgress(copy);
  }

  /// Called by the running thread only.
  void setStage(const char* stage) {
    {
      std::lock_guard lock(m_ex.m_mutex);
      ExploreProgress& p = m_ex.m_progress;
      const auto now = Clock::now();
      if (p.stage != "idle")
        p.stageSeconds.emplace_back(p.stage, std::chrono::duration<double>(now - m_stageStart).count());
      m_stageStart = now;
      p.stage = stage;
    }
    publish(true);
  }

 private:
  Explorer& m_ex;
  const std::function<void(const ExploreProgress&)>& m_onProgress;
  std::mutex m_reportMutex;
  const Clock::time_point m_start;
  Clock::time_point m_lastReport, m_stageStart;
};

// What the simulation workers of one run share.
struct Explorer::Workers {
  Workers(ISearchStrategy& s, const std::atomic<bool>& c, Reporter& r, bool b)
      : search(s), cancel(c), report(r), bounded(b) {}
  ISearchStrategy& search;
  const std::atomic<bool>& cancel;
  Reporter& report;
  bool bounded;                                  // confirmations stop once slower than the best confirmed
  std::mutex askMutex;                           // the strategy is asked and told by one worker at a time
  std::condition_variable reported;              // a strategy awaiting reports (compute-centric) waits on it
  std::atomic<std::int64_t> incumbentCycles{0};  // 0: nothing confirmed yet (no bound)
};

void Explorer::run(const std::atomic<bool>& cancel,
                   const std::function<void(const ExploreProgress&)>& onProgress) {
  Reporter report(*this, onProgress);
  report.setStage("generating");
  if (!generate(cancel)) return report.setStage("cancelled");

  // Baseline strategies evaluate one schedule.
  StrategyKind kind = m_options.strategy;
  if (kind == StrategyKind::Vendor || kind == StrategyKind::Gpu) {
    report.setStage("simulating");
    runBaseline(kind);
    return report.setStage("done");
  }

  const Predictor* predictor = nullptr;
  if (!predict(cancel, report, predictor)) return report.setStage("cancelled");
  if (kind == StrategyKind::Predictor && !predictor) kind = StrategyKind::Exhaustive;
  const std::unique_ptr<ISearchStrategy> search = makeSearch(kind, predictor);
  {
    std::lock_guard lock(m_mutex);
    m_progress.toSimulate = search->planned();
  }
  report.setStage("simulating");
  Workers w{*search, cancel, report, m_options.boundConfirmations && kind == StrategyKind::Predictor};
  simulate(w);
  report.setStage(cancel.load() ? "cancelled" : "done");
}

bool Explorer::generate(const std::atomic<bool>& cancel) {
  Pruner pruner(m_problem.space(), m_options.rules,
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
  std::lock_guard lock(m_mutex);
  m_records = std::move(records);
  return !cancelled;
}

void Explorer::runBaseline(StrategyKind kind) {
  const Baseline b =
      kind == StrategyKind::Vendor ? vendorBaseline(m_problem, m_options.eval) : gpuBaseline(m_problem);
  if (!b.available) throw InputError(std::string(strategyName(kind)) + " strategy: " + b.reason);
  DraftRecord rec;
  rec.draft = b.draft.value_or(Draft{UINT64_MAX, {}});
  rec.simulated = std::make_shared<const Evaluation>(b.eval);
  std::lock_guard lock(m_mutex);
  m_records.push_back(rec);
  m_progress.simulated = 1;
  m_progress.best = m_records.size() - 1;
  m_progress.bestNs = b.eval.timeNs;
}

bool Explorer::predict(const std::atomic<bool>& cancel, Reporter& report, const Predictor*& predictor) {
  // The analytic screen needs no model, so it runs while a deferred model is still loading.
  predictor = m_options.predictor;
  std::vector<std::size_t> chosen;
  if (predictor || m_options.predictorSource) {
    report.setStage("screening");
    // Pointers: copying a few hundred thousand drafts costs more than the screen.
    std::vector<const Draft*> drafts;
    drafts.reserve(m_records.size());
    for (const DraftRecord& r : m_records) drafts.push_back(&r.draft);
    chosen = screenForPrediction(m_problem, drafts, m_options.predictLimit, m_options.eval.optimizer);
    if (cancel.load()) return false;
  }
  if (!predictor && m_options.predictorSource) {
    report.setStage("loading model");
    predictor = m_options.predictorSource();
  }
  if (!predictor) return true;
  report.setStage("predicting");
  // One call: the coarse-to-fine shortlist is chosen over the whole screened set, as the Table-4 evaluation
  // does, so both make the same pick.
  std::vector<Draft> batch;
  batch.reserve(chosen.size());
  for (std::size_t i : chosen) batch.push_back(m_records[i].draft);
  const auto ns = predictor->predictNs(m_problem, batch);
  {
    std::lock_guard lock(m_mutex);
    for (std::size_t i = 0; i < ns.size(); ++i) m_records[chosen[i]].predictedNs = ns[i];
    m_progress.predicted = ns.size();
  }
  report.publish(false);
  return !cancel.load();
}

std::unique_ptr<ISearchStrategy> Explorer::makeSearch(StrategyKind kind, const Predictor* predictor) const {
  const std::size_t cap = m_options.maxSimulations;
  switch (kind) {
    case StrategyKind::Predictor:
      return std::make_unique<PredictorSearch>(m_records,
                                               static_cast<std::size_t>(std::max(1, m_options.topK)),
                                               m_options.bandErrors * predictor->expectedErrorPct(),
                                               static_cast<std::size_t>(std::max(0, m_options.maxConfirm)));
    case StrategyKind::ComputeCentric:
      return std::make_unique<ComputeCentricSearch>(
          m_problem, m_records, static_cast<std::size_t>(std::max(1, m_options.computeCentricTemplates)),
          cap ? cap : 64);
    default:
      return std::make_unique<ExhaustiveSearch>(m_records.size(), cap);
  }
}

void Explorer::simulate(Workers& w) {
  const unsigned threads = std::max(1u, std::min(2u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back([this, &w] { work(w); });
  work(w);
  for (auto& t : pool) t.join();
}

void Explorer::work(Workers& w) {
  sim::ChannelRunCache cache;  // drafts of one problem share many channel programs
  while (!w.cancel.load()) {
    std::optional<Proposal> prop;
    Draft draft;
    {
      std::unique_lock lock(w.askMutex);
      while (!(prop = w.search.next()) && w.search.awaitingReports() && !w.cancel.load())
        w.reported.wait_for(lock, std::chrono::milliseconds(20));
      if (!prop) return;
      std::lock_guard records(m_mutex);
      draft = m_records[prop->index].draft;
    }
    const DraftRecord result = evaluate(*prop, draft, cache, w);
    {
      std::lock_guard lock(w.askMutex);
      w.search.report(*prop, result);
    }
    w.reported.notify_all();
    keep(*prop, result);
    w.report.publish(false);
  }
}

DraftRecord Explorer::evaluate(const Proposal& p, const Draft& draft, sim::ChannelRunCache& cache,
                               Workers& w) const {
  EvalOptions eo = m_options.eval;
  eo.computeOnly = p.computeOnly;
  eo.cache = &cache;
  if (w.bounded) eo.stopAfterCycles = w.incumbentCycles.load();
  DraftRecord result;
  try {
    Evaluation e = evaluateDraft(m_problem, draft, eo);
    if (p.computeOnly) {
      result.computeOnlyCycles = e.cycles[1];
    } else {
      if (w.bounded) lowerIncumbent(w.incumbentCycles, e);
      result.simulated = std::make_shared<const Evaluation>(std::move(e));
    }
  } catch (const InputError& err) {
    result.error = err.what();
  }
  return result;
}

void Explorer::keep(const Proposal& p, const DraftRecord& result) {
  std::lock_guard lock(m_mutex);
  DraftRecord& rec = m_records[p.index];
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
       (rec.simulated->timeNs == m_progress.bestNs && rec.draft.id < m_records[*m_progress.best].draft.id))) {
    m_progress.best = p.index;
    m_progress.bestNs = rec.simulated->timeNs;
  }
}

std::optional<DraftRecord> exploreBest(const Problem& p, const ExploreOptions& o) {
  Explorer e(p, o);
  const std::atomic<bool> never{false};
  e.run(never);
  return e.best();
}

}  // namespace pim
