// SPDX-License-Identifier: Apache-2.0
// One exploration of a problem: generate and prune drafts, predict them, simulate what the search strategy
// (engine/search/strategy.h) asks for, and keep the best. Runs on any thread; progress arrives through a
// callback and it stops promptly when the cancel flag is set, keeping what it found. The CLI `explore`, the
// GUI's live exploration and the evaluation harness all run this.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/predict/model_fit.h"
#include "engine/predict/predictor.h"
#include "engine/search/baselines.h"
#include "engine/search/evaluate.h"

namespace pim {

class StrategyRegistry;
struct Proposal;
class ISearchStrategy;

/// A sampling search's knobs (the imtp strategy, IMTP section 5.2.3, on TVM MetaSchedule's evolutionary
/// search defaults).
struct SamplingOptions {
  std::size_t trials = 1000;  // candidates evaluated in all
  std::size_t batch = 64;     // evaluated between two updates of the cost model
  std::uint64_t seed = 1;     // the same seed gives the same trials on any thread count
  std::size_t population = 2048;
  int generations = 4;          // genetic iterations per batch
  double mutation = 0.85;       // probability that a child is a mutated parent (else the parent itself)
  bool balanced = true;         // equal rfactor and non-rfactor picks over the first 40% of the trials
  bool adaptiveEpsilon = true;  // epsilon from 0.5 down to 0.05 over the first 40% (else 0.05 throughout)
};

struct ExploreOptions {
  /// A name in `strategies` (engine/search/strategy.h): predictor, exhaustive, compute-centric, vendor, gpu.
  /// Explorer::run throws InputError for an unknown name.
  std::string strategy = "predictor";
  /// The strategies to choose from (nullptr: StrategyRegistry::builtin()); must outlive the explorer.
  const StrategyRegistry* strategies = nullptr;
  std::vector<bool> rules;  // per rule of `pruneRules`, in its order, on/off; empty = all on
  /// The prune rules (nullptr: PruneRuleRegistry::builtin()); must outlive the explorer.
  const PruneRuleRegistry* pruneRules = nullptr;
  EvalOptions eval;         // optimizer passes, indexing, refresh (banks are not kept per record)
  int topK = kDefaultTopK;  // predictor: simulate the k best predicted to confirm
  double bandErrors = kDefaultBandErrors;  // ... and those within this many expected errors of the best
  int maxConfirm = kDefaultMaxConfirm;     // ... up to this many in all
  /// Predictor: stop a further confirmation (one past the first batch, whose measured error decides whether
  /// to confirm more) as soon as it is slower than the best confirmed so far (branch and bound; the pick is
  /// the same, and such a record holds only a lower bound, Evaluation::lowerBound). For callers that need the
  /// pick alone (benchmarks); the CLI and the window keep every confirmation's breakdown.
  bool boundConfirmations = false;
  int computeCentricTemplates = 8;  // compute-centric: drafts kept after the compute-only ranking
  std::size_t maxSimulations = 0;   // exhaustive: 0 = all; compute-centric: compute-only runs (0 = 64)
  SamplingOptions sampling;         // imtp
  /// The model; a strategy that ranks by predictions (predictor) runs its fallback (exhaustive) without one.
  const Predictor* predictor = nullptr;
  /// Instead of `predictor` while the model is still loading: called once, on the exploring thread, when
  /// prediction starts (it may wait), so that loading overlaps generation and pruning. May return nullptr.
  std::function<const Predictor*()> predictorSource;
  /// Drafts the model predicts; beyond this many, the analytic estimate (feature est_total_ns) screens them
  /// first, so that prediction stays interactive for spaces of 10^5-10^6 drafts. 0 = predict every draft.
  std::size_t predictLimit = 20000;
  /// List only the drafts the analytic screen passes to the model (predictLimit of them), screening each
  /// kept draft as it is generated, instead of listing every kept draft: for callers that need the pick, not
  /// the list (the LLM lookup table compiles thousands of shapes of 10^5-10^6 drafts each). The pick is the
  /// same; the progress counts still cover every generated and kept draft.
  bool listScreenedOnly = false;
  /// Simulation workers; 0 = one per hardware thread. Never more than the strategy plans evaluations. The
  /// records and the pick do not depend on it (ties go to the smaller draft id; strategies see their reports
  /// under a lock), except that bounded confirmations hold lower bounds that depend on what finished first.
  unsigned threads = 0;
};

/// What is known about one candidate: a kept draft, a draft a strategy built, or a schedule that is no draft
/// (a baseline; id kNoDraft).
struct DraftRecord {
  Draft draft;
  std::optional<double> predictedNs;  // with the predictor's expected error
  /// Breakdown, energy, banks used, padding (no per-bank table). Shared and immutable: only the few simulated
  /// drafts have one, and an inline Evaluation made every one of 10^5-10^6 records 376 bytes.
  std::shared_ptr<const Evaluation> simulated;
  std::optional<std::int64_t> computeOnlyCycles;  // compute-centric's first step
  std::string error;                              // why it could not be evaluated (tiles do not fit, ...)
};

/// The best simulated time after each record, in record order; infinity until one has a time (a lower bound
/// does not count). A sampling search's best-so-far curve: its records are its trials in the order it ran
/// them (StrategyInfo::listsKept false).
std::vector<double> bestSoFarNs(const std::vector<DraftRecord>& records);

struct ExploreProgress {
  /// generating, screening, loading model, predicting, simulating, done, cancelled
  std::string stage = "idle";
  /// What the stage is doing, when the target says (ITarget::prepare: "mapping the layer (latency, 1 of 3):
  /// ..."); empty otherwise, and cleared with each new stage.
  std::string detail;
  std::uint64_t generated = 0;
  /// Removed per rule the candidate space applies: the rules of ExploreOptions::pruneRules in order, then any
  /// the target's space adds.
  std::vector<RuleCount> pruned;
  std::uint64_t remaining = 0;
  std::uint64_t predicted = 0, simulated = 0, failed = 0, toSimulate = 0;
  std::optional<std::size_t> best;  // index into records of the best simulated draft
  double bestNs = 0;
  double elapsedSeconds = 0;
  /// Wall time of every finished stage, in order ("generating" covers generation, pruning and the records).
  std::vector<std::pair<std::string, double>> stageSeconds;
  /// A model predicted the drafts (then the two fields below describe it).
  bool modelUsed = false;
  /// Why the problem lies outside the model's training data (modelFit); empty: inside as far as known.
  std::vector<std::string> outOfDistribution;
  /// The model's error measured on this run's confirmations (predicted against complete simulations).
  MeasuredError predictionError;
  /// Candidates the target's verifier refused (ITarget::violations), by the limit they break: those the
  /// strategy never proposed and those refused when evaluated. A candidate breaking two limits counts twice.
  std::map<std::string, std::uint64_t> refused;
};

/// What the explorer's workers simulate with: `o.eval` without per-unit statistics (nothing a search reads).
/// The run estimate times its samples the same way.
EvalOptions workerEvalOptions(const ExploreOptions& o);

class Explorer {
 public:
  Explorer(const Problem& p, ExploreOptions o);
  /// Runs until done or until `cancel` becomes true (checked between simulations, between prediction
  /// batches and every few thousand generated drafts). Nothing enters the records or the progress counts
  /// after the flag is set: a canceller that reads them after setting it sees everything the run keeps (a
  /// simulation in flight then finishes and is dropped).
  /// `onProgress` is called from the running thread about every 50 ms, on a new best and at the end.
  /// Throws InputError for an unknown strategy or a baseline strategy without a schedule for the problem
  /// ("vendor strategy: ..."), and rethrows whatever else a strategy's own code throws.
  void run(const std::atomic<bool>& cancel,
           const std::function<void(const ExploreProgress&)>& onProgress = {});

  const Problem& problem() const { return m_problem; }
  const ExploreOptions& options() const { return m_options; }
  /// Thread-safe copies of the current state (while running or after).
  ExploreProgress progress() const;
  std::vector<DraftRecord> records() const;
  std::optional<DraftRecord> best() const;

 private:
  class Reporter;  // stage times and the progress callback of one run
  struct Workers;  // what the simulation workers of one run share
  /// Generation and pruning into the records (only the counts when `listKept` is false); false when
  /// cancelled.
  bool generate(const std::atomic<bool>& cancel, bool listKept, bool screenNow);
  /// The analytic screen, the model (loaded if deferred) and its predictions; false when cancelled.
  bool predict(const std::atomic<bool>& cancel, Reporter& report, const Predictor*& predictor);
  bool prepare(const std::atomic<bool>& cancel, Reporter& report);  // the target's own work first
  /// Runs the strategy's proposals on the worker threads; rethrows the first exception of the strategy's own
  /// code (Proposal::evaluate, next, report).
  void simulate(const std::atomic<bool>& cancel, Reporter& report, ISearchStrategy& search);
  void work(Workers& w);  // one worker: ask, evaluate, keep, tell, until the strategy has nothing more
  std::optional<Proposal> ask(Workers& w, Draft& draft);
  /// The record of one evaluation, and the limits the verifier refused it for (LimitError).
  struct Outcome {
    DraftRecord record;
    std::vector<std::string> refusedBy;
  };
  Outcome evaluate(const Proposal& p, const Draft& draft, sim::ChannelRunCache& cache, Workers& w) const;
  /// Into its record (a new one for a self-evaluated schedule), and the best so far; false (and nothing
  /// kept) once `cancel` is set.
  bool keep(Proposal& p, const Outcome& result, const std::atomic<bool>& cancel);
  /// The refusals counted so far: the explorer's and `search`'s own. Under m_mutex.
  void countRefusals(const ISearchStrategy& search);

  const Problem& m_problem;
  ExploreOptions m_options;
  mutable std::mutex m_mutex;
  ExploreProgress m_progress;
  std::vector<DraftRecord> m_records;
  bool m_rankedByEstimate = false;  // the model never saw the kernel (predict())
  bool m_screened = false;          // generate() listed the screened drafts alone (listScreenedOnly)
  std::map<std::string, std::uint64_t> m_refusedByEvaluation;
};

/// The prediction error measured on `records`' confirmations: those with a prediction and a complete
/// simulation (what ExploreProgress::predictionError accumulates during a run).
MeasuredError measuredError(const std::vector<DraftRecord>& records);

/// Convenience: explore to the end and return the best simulated record (nullopt if nothing could run).
std::optional<DraftRecord> exploreBest(const Problem& p, const ExploreOptions& o);
/// The same, stopping when `cancel` is set (the best found until then).
std::optional<DraftRecord> exploreBest(const Problem& p, const ExploreOptions& o,
                                       const std::atomic<bool>& cancel);

}  // namespace pim
