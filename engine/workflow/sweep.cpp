// SPDX-License-Identifier: Apache-2.0
#include "engine/workflow/sweep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <random>
#include <thread>

#include "engine/common/error.h"
#include "engine/common/sha256.h"
#include "engine/core/evaluation.h"
#include "engine/store/store.h"
#include "engine/target/registry.h"

namespace pim {
namespace {

Problem problemOf(const Backend& b, const Suite& suite, const SweepShape& s) {
  const Kernel k = suite.kernel(s.kernel);
  return Problem(suite.backendFor(b, s.kernel), k, parseShape(k, s.shape));
}

// Everything the labels depend on, in one text: a different suite, sample or simulator option is another
// plan.
std::string planText(const Backend& b, const Suite& suite, const SweepPlan& plan, const SweepOptions& o) {
  const TrainOptions& t = o.train;
  std::string text = "pimscope-sweep-1;" + b.hash() + ";" + sweepLabelsName(o.labels) +
                     ";unit=" + std::to_string(o.unitDrafts) + ";seed=" + std::to_string(t.seed) +
                     ";fraction=" + std::to_string(t.sampleFraction) +
                     ";max=" + std::to_string(t.maxSamplesPerShape) +
                     ";screen=" + std::to_string(t.screenLimit);
  for (const SweepShape& s : plan.shapes) {
    const Problem p = problemOf(b, suite, s);
    text += "\n" + computationHash(p.kernel()) + ";" + p.storeKey() + ";" + p.backend().hash() + ";" +
            optionsKey(t.eval, targetOf(p.backend())) + ":";
    for (const Draft& d : s.drafts) text += std::to_string(d.id) + ",";
  }
  return text;
}

}  // namespace

const char* sweepLabelsName(SweepLabels l) {
  return l == SweepLabels::All ? "all" : l == SweepLabels::Optimum ? "optimum" : "sample";
}

SweepLabels parseSweepLabels(const std::string& text) {
  if (text == "sample") return SweepLabels::Sample;
  if (text == "all") return SweepLabels::All;
  if (text == "optimum") return SweepLabels::Optimum;
  throw InputError("--labels: '" + text + "' is not one of sample, all, optimum");
}

std::size_t SweepPlan::drafts() const {
  std::size_t n = 0;
  for (const SweepShape& s : shapes) n += s.drafts.size();
  return n;
}

namespace {

// Optimum: the pruned drafts with the model's confirmations first (the seed), the rest in id order.
void seeded(const Problem& p, const SweepOptions& o, SweepShape& s) {
  s.drafts = prunedDrafts(p);
  if (!o.seedModel) return;
  const std::vector<std::size_t> order =
      confirmationOrder(p, s.drafts, *o.seedModel, {}, o.train.eval.optimizer);
  std::vector<bool> seed(s.drafts.size(), false);
  std::vector<Draft> drafts;
  for (std::size_t i : order) {
    seed[i] = true;
    drafts.push_back(s.drafts[i]);
  }
  s.seedDrafts = drafts.size();
  for (std::size_t i = 0; i < s.drafts.size(); ++i)
    if (!seed[i]) drafts.push_back(s.drafts[i]);
  s.drafts = std::move(drafts);
}

using Labels = std::vector<std::pair<Draft, Evaluation>>;

// Runs `label` on this thread (it keeps the thread's caches across units) while a second thread trades the
// incumbent with `queue` every `everyMs`, until the labelling ends.
Labels labelSharing(const std::function<Labels()>& label, std::atomic<std::int64_t>& incumbent,
                    ISweepQueue& queue, std::size_t unit, int everyMs) {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread sharer([&] {
    for (std::unique_lock lock(m);
         !cv.wait_for(lock, std::chrono::milliseconds(std::max(1, everyMs)), [&] { return done; });) {
      lock.unlock();
      lowerIncumbent(incumbent, queue.share(unit, incumbent.load()));
      lock.lock();
    }
  });
  auto stop = [&] {
    {
      std::lock_guard lock(m);
      done = true;
    }
    cv.notify_one();
    sharer.join();
  };
  Labels out;
  try {
    out = label();
  } catch (...) {
    stop();
    throw;
  }
  stop();
  return out;
}

}  // namespace

SweepPlan planSweep(const Backend& b, const Suite& suite, const SweepOptions& o) {
  if (o.unitDrafts == 0) throw InputError("sweep: --unit-drafts must be at least 1");
  SweepPlan plan;
  plan.backend = b.name;
  // The same generator, carried over shapes in suite order, as trainPredictor draws its sample.
  std::mt19937_64 rng(o.train.seed);
  std::vector<SweepUnit> rest;  // Optimum: after every shape's seed
  for (const auto& [kernel, shapes] : suite.kernels) {
    const Kernel k = suite.kernel(kernel);
    if (!runsOn(suite.backendFor(b, kernel), k)) continue;
    for (const std::string& shape : shapes) {
      SweepShape s{kernel, shape, {}};
      const Problem p = problemOf(b, suite, s);
      if (o.labels == SweepLabels::Optimum) {
        seeded(p, o, s);
        if (s.seedDrafts > 0) plan.units.push_back({plan.shapes.size(), 0, s.seedDrafts});
      } else {
        s.drafts = o.labels == SweepLabels::All ? prunedDrafts(p) : sampleDrafts(p, o.train, rng);
      }
      for (std::size_t begin = s.seedDrafts; begin < s.drafts.size(); begin += o.unitDrafts)
        rest.push_back({plan.shapes.size(), begin, std::min(s.drafts.size(), begin + o.unitDrafts)});
      plan.shapes.push_back(std::move(s));
    }
  }
  if (plan.shapes.empty()) throw InputError("sweep: no kernel of suite " + suite.name + " runs on " + b.name);
  plan.units.insert(plan.units.end(), rest.begin(), rest.end());
  plan.key = sha256Hex(planText(b, suite, plan, o));
  return plan;
}

SweepUnitResult runSweepUnit(const Backend& b, const Suite& suite, const SweepPlan& plan,
                             const SweepAssignment& a, ResultsStore& store, const SweepOptions& o, int rank,
                             ISweepQueue* queue) {
  const auto t0 = std::chrono::steady_clock::now();
  const SweepUnit& u = plan.units.at(a.unit);
  const SweepShape& s = plan.shapes.at(u.shape);
  const Problem p = problemOf(b, suite, s);
  TrainOptions t = o.train;
  t.store = &store;
  t.progress = nullptr;
  t.labelProgress = nullptr;
  const std::vector<Draft> drafts(s.drafts.begin() + static_cast<std::ptrdiff_t>(u.begin),
                                  s.drafts.begin() + static_cast<std::ptrdiff_t>(u.end));
  LabelCounts counts;
  std::atomic<std::int64_t> incumbent{a.incumbent};
  const bool bound = o.labels == SweepLabels::Optimum;
  auto label = [&] {
    return labelDrafts(p, drafts, t, s.kernel + " " + s.shape, &counts, 0, bound ? &incumbent : nullptr);
  };
  const auto labelled =
      bound && queue ? labelSharing(label, incumbent, *queue, a.unit, o.shareEveryMs) : label();
  SweepUnitResult r;
  r.unit = a.unit;
  r.labelled = labelled.size();
  r.reused = counts.reused;
  r.simulated = counts.simulated;
  for (const auto& [draft, e] : labelled)
    if (!e.lowerBound) r.bestCycles = std::min(r.bestCycles, e.totalCycles);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cancelled = o.train.cancel && o.train.cancel->load();
  if (!r.cancelled) {
    store.putSweepUnit({plan.key, static_cast<std::int64_t>(a.unit), static_cast<std::int64_t>(drafts.size()),
                        static_cast<std::int64_t>(r.labelled), r.seconds, rank, 0});
  }
  return r;
}

std::set<std::size_t> completedUnits(ResultsStore& store, const SweepPlan& plan) {
  std::set<std::size_t> done;
  for (const SweepUnitRecord& r : store.sweepUnits(plan.key)) {
    if (r.unit >= 0 && static_cast<std::size_t>(r.unit) < plan.units.size())
      done.insert(static_cast<std::size_t>(r.unit));
  }
  return done;
}

LocalSweepQueue::LocalSweepQueue(const SweepPlan& plan, const std::set<std::size_t>& done)
    : m_plan(plan), m_best(plan.shapes.size(), INT64_MAX) {
  for (std::size_t u = 0; u < plan.units.size(); ++u) {
    if (!done.count(u)) m_todo.push_back(u);
  }
}

std::int64_t LocalSweepQueue::share(std::size_t unit, std::int64_t bestCycles) {
  std::int64_t& best = m_best[m_plan.units.at(unit).shape];
  best = std::min(best, bestCycles);
  return best;
}

std::optional<SweepAssignment> LocalSweepQueue::next(const SweepUnitResult* finished) {
  if (finished) share(finished->unit, finished->bestCycles);
  if ((finished && finished->cancelled) || m_at >= m_todo.size()) return std::nullopt;
  const std::size_t unit = m_todo[m_at++];
  return SweepAssignment{unit, m_best[m_plan.units[unit].shape]};
}

std::size_t runSweepWorker(const Backend& b, const Suite& suite, const SweepPlan& plan, ISweepQueue& queue,
                           ResultsStore& store, const SweepOptions& o, int rank) {
  std::size_t completed = 0;
  std::optional<SweepUnitResult> last;
  while (const auto a = queue.next(last ? &*last : nullptr)) {
    try {
      last = runSweepUnit(b, suite, plan, *a, store, o, rank, &queue);
    } catch (...) {
      // Leave the sweep (the unit stays incomplete for a rerun) so that no one waits for this worker.
      SweepUnitResult gone;
      gone.unit = a->unit;
      gone.cancelled = true;
      queue.next(&gone);
      throw;
    }
    if (!last->cancelled) ++completed;  // a cancelled unit goes back to the queue, which then ends
  }
  return completed;
}

std::vector<SweepOptimum> sweepOptima(const Backend& b, const Suite& suite, const SweepPlan& plan,
                                      ResultsStore& store, const SweepOptions& o) {
  std::vector<SweepOptimum> out;
  for (const SweepShape& s : plan.shapes) {
    const Problem p = problemOf(b, suite, s);
    SweepOptimum best{s.kernel, s.shape, s.drafts.size(), std::nullopt, 0, 0};
    const std::string options = optionsKey(o.train.eval, targetOf(p.backend()));
    const auto backendId = store.upsertBackend(p.backend().name, p.backend().hash(), p.backend().toJson());
    const auto problemId = store.upsertProblem(backendId, p.kernel().name, computationHash(p.kernel()),
                                               p.kernel().source, p.storeKey());
    for (const StoredResult& r : store.results(problemId)) {
      if (r.schedule != "draft" || r.options != options) continue;
      const auto id = static_cast<std::uint64_t>(r.draftId);
      if (!best.draft || r.totalCycles < best.cycles || (r.totalCycles == best.cycles && id < *best.draft)) {
        best.draft = id;
        best.cycles = r.totalCycles;
        best.timeNs = r.timeNs;
      }
    }
    out.push_back(std::move(best));
  }
  return out;
}

}  // namespace pim
