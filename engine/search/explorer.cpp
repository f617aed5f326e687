// SPDX-License-Identifier: Apache-2.0
#include "engine/search/explorer.h"

#include <limits>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <numeric>
#include <stdexcept>
#include <thread>

#include "engine/common/error.h"
#include "engine/common/threads.h"
#include "engine/predict/screen.h"
#include "engine/search/strategy.h"
#include "engine/target/registry.h"

namespace pim {
namespace {
using Clock = std::chrono::steady_clock;

/// `r` into `e` when it confirms a prediction (a bounded confirmation's lower bound measures nothing).
void addConfirmation(MeasuredError& e, const DraftRecord& r) {
  if (r.predictedNs && r.simulated && !r.simulated->lowerBound) e.add(*r.predictedNs, r.simulated->timeNs);
}

/// `records` in id order. The pruner's walk adds part offsets on the way down, so its order is not the ids';
/// sorting (id, position) pairs and moving each record once, in place along the permutation's cycles, costs a
/// fraction of sorting the records (10^5-10^6 of them, 112 bytes each).
void sortById(std::vector<DraftRecord>& records) {
  const auto byId = [](const DraftRecord& a, const DraftRecord& b) { return a.draft.id < b.draft.id; };
  if (std::is_sorted(records.begin(), records.end(), byId)) return;
  std::vector<std::pair<std::uint64_t, std::size_t>> order(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) order[i] = {records[i].draft.id, i};
  std::sort(order.begin(), order.end());
  // Position i takes the record at order[i].second; a moved-from position is marked by pointing at itself.
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (order[i].second == i) continue;
    DraftRecord held = std::move(records[i]);
    std::size_t j = i;
    while (order[j].second != i) {
      const std::size_t from = order[j].second;
      records[j] = std::move(records[from]);
      order[j].second = j;
      j = from;
    }
    records[j] = std::move(held);
    order[j].second = j;
  }
}
}  // namespace

MeasuredError measuredError(const std::vector<DraftRecord>& records) {
  MeasuredError e;
  for (const DraftRecord& r : records) addConfirmation(e, r);
  return e;
}

EvalOptions workerEvalOptions(const ExploreOptions& o) {
  EvalOptions e = o.eval;
  e.keepUnitStats = false;
  return e;
}

Explorer::Explorer(const Problem& p, ExploreOptions o) : m_problem(p), m_options(std::move(o)) {
  m_options.eval = workerEvalOptions(m_options);
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
      p.detail.clear();
    }
    publish(true);
  }

  /// Called by the running thread only.
  void setDetail(const std::string& detail) {
    {
      std::lock_guard lock(m_ex.m_mutex);
      m_ex.m_progress.detail = detail;
    }
    publish(false);
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
  Workers(ISearchStrategy& s, const std::atomic<bool>& c, Reporter& r) : search(s), cancel(c), report(r) {}
  bool stopped() const { return cancel.load() || failed.load(); }

  ISearchStrategy& search;
  const std::atomic<bool>& cancel;
  Reporter& report;
  std::mutex askMutex;                           // the strategy is asked and told by one worker at a time
  std::condition_variable reported;              // a strategy awaiting reports (compute-centric) waits on it
  std::atomic<std::int64_t> incumbentCycles{0};  // bounded proposals: 0 = nothing confirmed yet (no bound)
  std::atomic<bool> failed{false};               // a worker caught an exception: the others stop too
  std::exception_ptr failure;                    // the first one (under askMutex), rethrown by run()
};

void Explorer::run(const std::atomic<bool>& cancel,
                   const std::function<void(const ExploreProgress&)>& onProgress) {
  const StrategyRegistry& registry =
      m_options.strategies ? *m_options.strategies : StrategyRegistry::builtin();
  const StrategyInfo* strategy = &registry.get(m_options.strategy);  // an unknown name fails before any work
  Reporter report(*this, onProgress);
  report.setStage("generating");
  // The screen runs as drafts are generated when only the screened drafts are listed and a model will rank
  // them (with none, the fallback strategy needs every kept draft).
  const bool screenNow = m_options.listScreenedOnly && m_options.predictLimit > 0 &&
                         strategy->predictions != PredictionUse::None &&
                         (m_options.predictor || m_options.predictorSource);
  if (!prepare(cancel, report) || !generate(cancel, strategy->listsKept, screenNow))
    return report.setStage("cancelled");
  const Predictor* predictor = nullptr;
  if (strategy->predictions != PredictionUse::None && !predict(cancel, report, predictor))
    return report.setStage("cancelled");
  if (strategy->predictions == PredictionUse::Required && !predictor)
    strategy = &registry.get(strategy->fallback);
  if (predictor) {
    std::lock_guard lock(m_mutex);
    m_progress.modelUsed = true;
    m_progress.outOfDistribution = modelFit(m_problem, predictor->metadata()).reasons;
    if (m_rankedByEstimate)
      m_progress.outOfDistribution.push_back("the drafts are ranked by " + m_problem.backend().family +
                                             "'s analytic estimate, not the model");
  }
  const std::unique_ptr<ISearchStrategy> search =
      strategy->make(StrategyContext{m_problem, m_records, m_options, predictor});
  {
    std::lock_guard lock(m_mutex);
    m_progress.toSimulate = search->planned();
  }
  report.setStage("simulating");
  simulate(cancel, report, *search);
  {
    // Summed again in record order: the running sums follow completion order, which moved the last digits.
    std::lock_guard lock(m_mutex);
    if (!cancel.load()) m_progress.predictionError = measuredError(m_records);
  }
  report.setStage(cancel.load() ? "cancelled" : "done");
}

bool Explorer::prepare(const std::atomic<bool>& cancel, Reporter& report) {
  PrepareControl control;
  control.cancel = &cancel;
  control.report = [&report](const std::string& line) { report.setDetail(line); };
  return targetOf(m_problem.backend()).prepare(m_problem, control);
}

bool Explorer::generate(const std::atomic<bool>& cancel, bool listKept, bool screenNow) {
  const std::unique_ptr<ICandidateSpace> space =
      targetOf(m_problem.backend())
          .candidates(m_problem, m_options.rules,
                      m_options.pruneRules ? *m_options.pruneRules : PruneRuleRegistry::builtin());
  const PruneCounts counts = space->counts();
  {
    std::lock_guard lock(m_mutex);
    m_progress.generated = counts.generated;
    m_progress.pruned = counts.rules;
    m_progress.remaining = counts.remaining;
  }
  if (!listKept) return !cancel.load();
  std::vector<DraftRecord> records;
  bool cancelled = false;
  const auto cancelledEvery4096 = [&](std::size_t seen) {
    if ((seen & 4095) == 0 && cancel.load()) cancelled = true;
    return !cancelled;
  };
  if (screenNow) {
    ScreenShortlist shortlist(m_problem, m_options.predictLimit, m_options.eval.optimizer);
    std::size_t seen = 0;
    space->forEachKept([&](const Draft& d) {
      shortlist.offer(d);
      return cancelledEvery4096(++seen);
    });
    for (Draft& d : shortlist.take()) records.push_back(DraftRecord{std::move(d), {}, {}, {}, {}});
  } else {
    records.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(counts.remaining, 1u << 22)));
    space->forEachKept([&](const Draft& d) {
      records.push_back(DraftRecord{d, {}, {}, {}, {}});
      return cancelledEvery4096(records.size());
    });
  }
  sortById(records);
  std::lock_guard lock(m_mutex);
  if (cancelled || cancel.load()) return false;  // a partial list is not what the space keeps
  m_records = std::move(records);
  m_screened = screenNow;
  return true;
}

bool Explorer::predict(const std::atomic<bool>& cancel, Reporter& report, const Predictor*& predictor) {
  // The analytic screen needs no model, so it runs while a deferred model is still loading.
  predictor = m_options.predictor;
  std::vector<std::size_t> chosen;
  if (predictor || m_options.predictorSource) {
    report.setStage("screening");
    if (m_screened) {  // generate() listed the screened drafts alone
      chosen.resize(m_records.size());
      std::iota(chosen.begin(), chosen.end(), 0);
    } else {
      // Pointers: copying a few hundred thousand drafts costs more than the screen.
      std::vector<const Draft*> drafts;
      drafts.reserve(m_records.size());
      for (const DraftRecord& r : m_records) drafts.push_back(&r.draft);
      chosen = screenForPrediction(m_problem, drafts, m_options.predictLimit, m_options.eval.optimizer);
    }
    if (cancel.load()) return false;
  }
  if (!predictor && m_options.predictorSource) {
    report.setStage("loading model");
    predictor = m_options.predictorSource();
  }
  if (!predictor) return true;
  report.setStage("predicting");
  const ITarget& target = targetOf(m_problem.backend());
  if (target.estimateRanksUnseenKernels() && modelFit(m_problem, predictor->metadata()).kernelUnknown) {
    // A model that never saw the kernel reads features of templates it never learned (98% off on PrIM's SEL,
    // whose time is its serial read-back): the family's analytic estimate ranks the drafts instead.
    if (const auto estimator = target.estimator(m_problem, m_options.eval.optimizer)) {
      std::lock_guard lock(m_mutex);
      if (cancel.load()) return false;
      for (std::size_t i : chosen) m_records[i].predictedNs = estimator->estimate(m_records[i].draft).totalNs;
      m_progress.predicted = chosen.size();
      m_rankedByEstimate = true;
      return true;
    }
  }
  // One call: the coarse-to-fine shortlist is chosen over the whole screened set, as the Table-4 evaluation
  // does, so both make the same pick.
  std::vector<Draft> batch;
  batch.reserve(chosen.size());
  for (std::size_t i : chosen) batch.push_back(m_records[i].draft);
  const auto ns = predictor->predictNs(m_problem, batch, &cancel);
  {
    std::lock_guard lock(m_mutex);
    // Checked under the lock: what a canceller reads after setting the flag is what the run keeps.
    if (!ns || cancel.load()) return false;
    for (std::size_t i = 0; i < ns->size(); ++i) m_records[chosen[i]].predictedNs = (*ns)[i];
    m_progress.predicted = ns->size();
  }
  report.publish(false);
  return true;
}

void Explorer::simulate(const std::atomic<bool>& cancel, Reporter& report, ISearchStrategy& search) {
  Workers w(search, cancel, report);
  const std::size_t threads =
      std::min<std::size_t>(workerThreads(m_options.threads), std::max<std::size_t>(1, search.planned()));
  std::vector<std::thread> pool;
  // Workers ask the strategy for drafts, so those the system would not start leave no work behind.
  startThreads(pool, threads - 1, [this, &w](std::size_t) { work(w); });
  work(w);
  for (auto& t : pool) t.join();
  if (w.failure) std::rethrow_exception(w.failure);
}

void Explorer::work(Workers& w) {
  sim::ChannelRunCache cache;  // drafts of one problem share many channel programs
  try {
    while (!w.stopped()) {
      Draft draft;
      std::optional<Proposal> prop = ask(w, draft);
      if (!prop) return;
      const Outcome result = evaluate(*prop, draft, cache, w);
      if (!keep(*prop, result, w.cancel)) return;
      {
        std::lock_guard lock(w.askMutex);
        w.search.report(*prop, result.record);
        std::lock_guard records(m_mutex);  // a strategy may plan more once it has seen the results
        m_progress.toSimulate = std::max<std::uint64_t>(m_progress.toSimulate, w.search.planned());
        countRefusals(w.search);
      }
      w.reported.notify_all();
      w.report.publish(false);
    }
  } catch (...) {
    {
      std::lock_guard lock(w.askMutex);
      if (!w.failure) w.failure = std::current_exception();
      w.failed = true;
    }
    w.reported.notify_all();
  }
}

std::optional<Proposal> Explorer::ask(Workers& w, Draft& draft) {
  std::unique_lock lock(w.askMutex);
  std::optional<Proposal> prop;
  while (!(prop = w.search.next()) && w.search.awaitingReports() && !w.stopped())
    w.reported.wait_for(lock, std::chrono::milliseconds(20));
  if (!prop || prop->evaluate) return prop;  // a self-evaluated schedule gets its record when it returns
  std::lock_guard records(m_mutex);
  if (prop->draft) {
    // Appended while the strategy is locked, so records follow the order of its proposals.
    m_records.push_back(DraftRecord{*prop->draft, prop->predictedNs, {}, {}, {}});
    prop->index = m_records.size() - 1;
  } else if (prop->index >= m_records.size()) {
    throw std::logic_error("search strategy proposed record " + std::to_string(prop->index) + " of " +
                           std::to_string(m_records.size()));
  }
  draft = m_records[prop->index].draft;
  return prop;
}

Explorer::Outcome Explorer::evaluate(const Proposal& p, const Draft& draft, sim::ChannelRunCache& cache,
                                     Workers& w) const {
  if (p.evaluate) return {p.evaluate(), {}};  // the strategy's own code: what it throws ends the run
  EvalOptions eo = m_options.eval;
  eo.computeOnly = p.computeOnly;
  eo.cache = &cache;
  eo.cancel = &w.cancel;
  if (p.bounded) eo.stopAfterCycles = w.incumbentCycles.load();
  Outcome out;
  DraftRecord& result = out.record;
  try {
    Evaluation e = evaluateDraft(m_problem, draft, eo);
    if (p.computeOnly) {
      result.computeOnlyCycles = e.cycles[1];
    } else {
      if (p.bounded) lowerIncumbent(w.incumbentCycles, e);
      result.simulated = std::make_shared<const Evaluation>(std::move(e));
    }
  } catch (const LimitError& err) {
    result.error = err.what();
    for (const LimitViolation& v : err.violations()) out.refusedBy.push_back(v.limit);
  } catch (const InputError& err) {
    result.error = err.what();
  }
  return out;
}

void Explorer::countRefusals(const ISearchStrategy& search) {
  std::map<std::string, std::uint64_t> all = search.refusals();
  for (const auto& [limit, n] : m_refusedByEvaluation) all[limit] += n;
  m_progress.refused = std::move(all);
}

bool Explorer::keep(Proposal& p, const Outcome& outcome, const std::atomic<bool>& cancel) {
  std::lock_guard lock(m_mutex);
  // A result that finishes after the cancel is dropped, so the records and progress stay exactly what a
  // canceller reads after setting the flag (the window shows them as what the run finished).
  if (cancel.load()) return false;
  const DraftRecord& result = outcome.record;
  for (const std::string& limit : outcome.refusedBy) ++m_refusedByEvaluation[limit];
  if (p.evaluate) {
    m_records.push_back(result);
    p.index = m_records.size() - 1;
  }
  DraftRecord& rec = m_records[p.index];
  if (!p.evaluate) {
    if (result.computeOnlyCycles) rec.computeOnlyCycles = result.computeOnlyCycles;
    if (result.simulated) rec.simulated = result.simulated;
    if (!result.error.empty()) rec.error = result.error;
  }
  if (!result.error.empty()) ++m_progress.failed;
  ++m_progress.simulated;
  addConfirmation(m_progress.predictionError, rec);
  // Equal times go to the smaller draft id, so the best does not depend on which worker finished first.
  if (rec.simulated && !rec.simulated->lowerBound &&
      (!m_progress.best || rec.simulated->timeNs < m_progress.bestNs ||
       (rec.simulated->timeNs == m_progress.bestNs && rec.draft.id < m_records[*m_progress.best].draft.id))) {
    m_progress.best = p.index;
    m_progress.bestNs = rec.simulated->timeNs;
  }
  return true;
}

std::optional<DraftRecord> exploreBest(const Problem& p, const ExploreOptions& o,
                                       const std::atomic<bool>& cancel) {
  Explorer e(p, o);
  e.run(cancel);
  return e.best();
}

std::optional<DraftRecord> exploreBest(const Problem& p, const ExploreOptions& o) {
  const std::atomic<bool> never{false};
  return exploreBest(p, o, never);
}

std::vector<double> bestSoFarNs(const std::vector<DraftRecord>& records) {
  std::vector<double> curve;
  curve.reserve(records.size());
  double best = std::numeric_limits<double>::infinity();
  for (const DraftRecord& r : records) {
    if (r.simulated && !r.simulated->lowerBound) best = std::min(best, r.simulated->timeNs);
    curve.push_back(best);
  }
  return curve;
}

}  // namespace pim
