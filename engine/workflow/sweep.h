// SPDX-License-Identifier: Apache-2.0
// A labelling sweep cut into work units (docs/sweep.md): the plan every process derives alike from the
// backend, the suites and the options, the unit runner that labels one unit into a store, and the queue
// interface a driver hands units out through (one process here; MPI ranks in app/cli).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/workflow/training.h"

namespace pim {

class ResultsStore;

/// Which drafts of each shape a sweep labels.
enum class SweepLabels {
  Sample,  // train's sample (TrainOptions: fraction, cap, screen, seed): `train --db` then reuses every label
  All,     // every pruned draft: what `evaluate --label-all` and exhaustive searches read
  Optimum,  // every pruned draft by branch and bound: each shape's optimum, proven (sweepOptima)
};
const char* sweepLabelsName(SweepLabels l);
/// "sample", "all" or "optimum"; InputError naming the choices otherwise.
SweepLabels parseSweepLabels(const std::string& text);

struct SweepOptions {
  SweepLabels labels = SweepLabels::Sample;
  std::size_t unitDrafts = 256;  // drafts per work unit at most (a shape is one unit or several)
  TrainOptions train;            // sampling, simulator options, threads, cancel; `store` is set per unit
  /// Optimum: the model whose confirmations (confirmationOrder, evaluate's defaults) seed each shape's
  /// branch and bound; none: the shapes start from no incumbent.
  std::shared_ptr<const Predictor> seedModel;
  /// Optimum: how often a running unit trades incumbents with its queue (ISweepQueue::share).
  int shareEveryMs = 10;
};

/// The drafts of one shape of the suite that the sweep labels, in the order labelling takes them.
struct SweepShape {
  std::string kernel, shape;
  std::vector<Draft> drafts;
  std::size_t seedDrafts = 0;  // Optimum: drafts [0, seedDrafts) are its seed unit (the model's best)
};

/// A work unit: drafts [begin, end) of one shape.
struct SweepUnit {
  std::size_t shape = 0, begin = 0, end = 0;
};

/// A unit handed to a worker, with the best total cycles its shape is known to reach (Optimum: the drafts
/// slower than that are stopped; INT64_MAX: none known).
struct SweepAssignment {
  std::size_t unit = 0;
  std::int64_t incumbent = INT64_MAX;
};

struct SweepPlan {
  /// SHA-256 of everything that decides the labels (backend and kernel hashes, shapes, options key, mode,
  /// sampling settings, unit size and every unit's draft ids): completed units are recorded under it, so a
  /// rerun resumes only the same plan.
  std::string key;
  std::string backend;
  std::vector<SweepShape> shapes;
  std::vector<SweepUnit> units;
  std::size_t drafts() const;
};

/// The plan of labelling `suite` on `b`: deterministic (every rank computes the same one). Kernels that do
/// not run on `b` are left out; InputError when none does or a unit size of 0 is asked. Optimum: each
/// shape's seed unit first (all shapes' seeds before any other unit, so every shape has an incumbent before
/// its other drafts are handed out), then the rest of its drafts in id order.
SweepPlan planSweep(const Backend& b, const Suite& suite, const SweepOptions& o);

struct SweepUnitResult {
  std::size_t unit = 0, labelled = 0, reused = 0, simulated = 0;
  std::int64_t bestCycles = INT64_MAX;  // the least total cycles of a draft labelled or reused in the unit
  double seconds = 0;
  bool cancelled = false;  // stopped by the cancel flag: not recorded as complete
};

class ISweepQueue;

/// Labels the assigned unit of `plan` into `store` (its labels reused, new ones committed in batches) and
/// records it complete under the plan's key with `rank`, unless cancelled. Optimum: drafts slower than the
/// incumbent (lowered by every draft labelled, and while the unit runs by what `queue` shares every
/// o.shareEveryMs) are stopped there and left unlabelled.
SweepUnitResult runSweepUnit(const Backend& b, const Suite& suite, const SweepPlan& plan,
                             const SweepAssignment& a, ResultsStore& store, const SweepOptions& o, int rank,
                             ISweepQueue* queue = nullptr);

/// The units of `plan` recorded complete in `store`.
std::set<std::size_t> completedUnits(ResultsStore& store, const SweepPlan& plan);

/// Hands out units to whoever asks (dynamic: no static split leaves a worker idle). next() returns the next
/// unit to run with its shape's incumbent, or nothing when the sweep is over; `finished` reports the unit
/// the caller ran last (a cancelled one ends the caller's part: next() then returns nothing).
class ISweepQueue {
 public:
  virtual ~ISweepQueue() = default;
  virtual std::optional<SweepAssignment> next(const SweepUnitResult* finished) = 0;
  /// Optimum, while `unit` runs: reports the least total cycles it has reached (INT64_MAX: none yet) and
  /// returns the least its shape is known to reach, so that a draft another worker finished stops this
  /// unit's slower drafts at once rather than from its next unit on. Called from a thread of its own while
  /// the unit runs, never at the same time as next() by the same worker. The default shares nothing.
  virtual std::int64_t share(std::size_t unit, std::int64_t bestCycles) {
    (void)unit;
    return bestCycles;
  }
};

/// One process: the units not yet complete, in plan order, each with the best cycles the units of its shape
/// reported (finished, or shared while running).
class LocalSweepQueue : public ISweepQueue {
 public:
  LocalSweepQueue(const SweepPlan& plan, const std::set<std::size_t>& done);
  std::optional<SweepAssignment> next(const SweepUnitResult* finished) override;
  std::int64_t share(std::size_t unit, std::int64_t bestCycles) override;

 private:
  const SweepPlan& m_plan;
  std::vector<std::size_t> m_todo;
  std::size_t m_at = 0;
  std::vector<std::int64_t> m_best;  // per shape
};

/// Runs units from `queue` into `store` until it is empty or `o.train.cancel` is set. Returns the units this
/// worker completed.
std::size_t runSweepWorker(const Backend& b, const Suite& suite, const SweepPlan& plan, ISweepQueue& queue,
                           ResultsStore& store, const SweepOptions& o, int rank);

/// A shape's optimum as the store holds it after an Optimum sweep: the least total cycles of its labels under
/// the sweep's options (of equal ones, the least draft id); nothing when no draft of it ran.
struct SweepOptimum {
  std::string kernel, shape;
  std::size_t drafts = 0;
  std::optional<std::uint64_t> draft;
  std::int64_t cycles = 0;
  double timeNs = 0;
};
std::vector<SweepOptimum> sweepOptima(const Backend& b, const Suite& suite, const SweepPlan& plan,
                                      ResultsStore& store, const SweepOptions& o);

}  // namespace pim
