// SPDX-License-Identifier: Apache-2.0
#include "engine/workflow/sweep.h"

#include <chrono>
#include <random>

#include "engine/common/error.h"
#include "engine/common/sha256.h"
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

const char* sweepLabelsName(SweepLabels l) { return l == SweepLabels::All ? "all" : "sample"; }

SweepLabels parseSweepLabels(const std::string& text) {
  if (text == "sample") return SweepLabels::Sample;
  if (text == "all") return SweepLabels::All;
  throw InputError("--labels: '" + text + "' is not one of sample, all");
}

std::size_t SweepPlan::drafts() const {
  std::size_t n = 0;
  for (const SweepShape& s : shapes) n += s.drafts.size();
  return n;
}

SweepPlan planSweep(const Backend& b, const Suite& suite, const SweepOptions& o) {
  if (o.unitDrafts == 0) throw InputError("sweep: --unit-drafts must be at least 1");
  SweepPlan plan;
  plan.backend = b.name;
  // The same generator, carried over shapes in suite order, as trainPredictor draws its sample.
  std::mt19937_64 rng(o.train.seed);
  for (const auto& [kernel, shapes] : suite.kernels) {
    const Kernel k = suite.kernel(kernel);
    if (!runsOn(suite.backendFor(b, kernel), k)) continue;
    for (const std::string& shape : shapes) {
      SweepShape s{kernel, shape, {}};
      const Problem p = problemOf(b, suite, s);
      s.drafts = o.labels == SweepLabels::All ? prunedDrafts(p) : sampleDrafts(p, o.train, rng);
      for (std::size_t begin = 0; begin < s.drafts.size(); begin += o.unitDrafts)
        plan.units.push_back({plan.shapes.size(), begin, std::min(s.drafts.size(), begin + o.unitDrafts)});
      plan.shapes.push_back(std::move(s));
    }
  }
  if (plan.shapes.empty()) throw InputError("sweep: no kernel of suite " + suite.name + " runs on " + b.name);
  plan.key = sha256Hex(planText(b, suite, plan, o));
  return plan;
}

SweepUnitResult runSweepUnit(const Backend& b, const Suite& suite, const SweepPlan& plan, std::size_t unit,
                             ResultsStore& store, const SweepOptions& o, int rank) {
  const auto t0 = std::chrono::steady_clock::now();
  const SweepUnit& u = plan.units.at(unit);
  const SweepShape& s = plan.shapes.at(u.shape);
  const Problem p = problemOf(b, suite, s);
  TrainOptions t = o.train;
  t.store = &store;
  t.progress = nullptr;
  t.labelProgress = nullptr;
  const std::vector<Draft> drafts(s.drafts.begin() + static_cast<std::ptrdiff_t>(u.begin),
                                  s.drafts.begin() + static_cast<std::ptrdiff_t>(u.end));
  LabelCounts counts;
  const auto labelled = labelDrafts(p, drafts, t, s.kernel + " " + s.shape, &counts);
  SweepUnitResult r;
  r.unit = unit;
  r.labelled = labelled.size();
  r.reused = counts.reused;
  r.simulated = counts.simulated;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cancelled = o.train.cancel && o.train.cancel->load();
  if (!r.cancelled) {
    store.putSweepUnit({plan.key, static_cast<std::int64_t>(unit), static_cast<std::int64_t>(drafts.size()),
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

LocalSweepQueue::LocalSweepQueue(const SweepPlan& plan, const std::set<std::size_t>& done) {
  for (std::size_t u = 0; u < plan.units.size(); ++u) {
    if (!done.count(u)) m_todo.push_back(u);
  }
}

std::optional<std::size_t> LocalSweepQueue::next(const SweepUnitResult* finished) {
  if ((finished && finished->cancelled) || m_at >= m_todo.size()) return std::nullopt;
  return m_todo[m_at++];
}

std::size_t runSweepWorker(const Backend& b, const Suite& suite, const SweepPlan& plan, ISweepQueue& queue,
                           ResultsStore& store, const SweepOptions& o, int rank) {
  std::size_t completed = 0;
  std::optional<SweepUnitResult> last;
  while (const auto unit = queue.next(last ? &*last : nullptr)) {
    try {
      last = runSweepUnit(b, suite, plan, *unit, store, o, rank);
    } catch (...) {
      // Leave the sweep (the unit stays incomplete for a rerun) so that no one waits for this worker.
      SweepUnitResult gone;
      gone.unit = *unit;
      gone.cancelled = true;
      queue.next(&gone);
      throw;
    }
    if (!last->cancelled) ++completed;  // a cancelled unit goes back to the queue, which then ends
  }
  return completed;
}

}  // namespace pim
