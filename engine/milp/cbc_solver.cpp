// SPDX-License-Identifier: Apache-2.0
// CBC through its C++ API: the model is loaded into an OsiClpSolverInterface and solved by CbcMain1, CBC's
// own driver (preprocessing, the standard cut generators and heuristics), not by a bare
// CbcModel::branchAndBound. Measured with CBC 2.10.8 on one core: a 0-1 knapsack of 150 items x 10 rows
// took 0.75 s with CbcMain1 against 2.3 s bare; generalized assignment problems (8 x 40 and 10 x 60
// binaries) 0.28 s and 0.5 s against 2.3 s and 3.9 s; CbcStrategyDefault's cuts and heuristics on a bare
// model stayed at 1.2 s - 3.2 s.
#include "engine/milp/milp.h"
#include "engine/milp/solve_rules.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CbcEventHandler.hpp>
#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <ClpEventHandler.hpp>
#include <CoinMessageHandler.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>

namespace pim::milp {

namespace {

using rules::Clock;
using rules::ProgressReporter;

// CBC's "no value" (1e50 for an objective without a solution, COIN_DBL_MAX) as an infinity of ours.
double fromCbc(double v) { return std::abs(v) >= 1e49 ? std::copysign(kInf, v) : v; }

// CbcMain1 reads its arguments through process-wide globals (CbcOrClpRead_mode, afterEquals) and points
// another at the model it solves, so two calls at once corrupt each other: every CBC solve in the process
// holds this lock.
std::timed_mutex& cbcLock() {
  static std::timed_mutex m;
  return m;
}

// CBC's and Clp's messages to the caller's log instead of stdout. CBC clones the handler into the models it
// makes (one per thread, one per sub-problem); every clone writes to the same sink.
class LogHandler : public CoinMessageHandler {
 public:
  explicit LogHandler(rules::LogSink& sink) : m_sink(&sink) {}
  CoinMessageHandler* clone() const override { return new LogHandler(*this); }
  int print() override {
    m_sink->write(std::string(messageBuffer()) + "\n");  // one call: threads' lines stay whole
    return 0;
  }

 private:
  rules::LogSink* m_sink;
};

// Folds the state of CBC's top-level model into the progress.
void observe(ProgressReporter& progress, const CbcModel& m, bool force) {
  std::optional<double> incumbent;
  if (m.bestSolution() && m.getObjValue() < 1e49) incumbent = m.getObjValue();
  progress.observe(incumbent, fromCbc(m.getBestPossibleObjValue()), m.getNodeCount(), force);
}

// Whether CBC holds a solution the caller lacks: one its branch and bound found below the caller's start,
// where the start is full and feasible (the rules hand it back), or below the incumbent it began with, where
// the start is partial (CBC's completion of it) or there is none. Until then a cancel or the time limit may
// stop every LP (LpStopper) and the caller may leave the run (cbcSearch): what is lost is what CBC had
// before its branch and bound (a partial start's completion, 5.09 uJ against the trivial mapping's 5.38 uJ
// on FC C512 K1000), not waited for. Waiting for it once it held anything kept a cancel in the root's cut
// loop waiting for the loop: 0.9-1.6 s in the window's ilp cancel (LayerMapView), now under 0.1 s.
class RunStage {
 public:
  /// Before the run: the objective of the model's full, feasible start, as CBC counts it (no constant).
  void setStartValue(double value) { m_start = value; }
  /// As the branch and bound begins, with its incumbent's objective (kInf when none).
  void enterBranching(double incumbent) {
    if (std::isinf(m_start)) m_start = incumbent;
    m_branching = true;
  }
  /// A solution of the top-level model, of objective `value`.
  void found(double value) {
    // With nothing to beat (m_start infinite) any solution counts; inf - tolerance x inf would be NaN.
    const bool better =
        std::isinf(m_start) || value < m_start - kStartTolerance * std::max(1.0, std::abs(m_start));
    if (m_branching && better) m_holdsMore = true;
  }
  bool holdsMoreThanTheStart() const { return m_holdsMore; }

 private:
  static constexpr double kStartTolerance = 1e-9;  // CBC's values of the start's own solution round
  std::atomic<bool> m_branching{false};
  std::atomic<bool> m_holdsMore{false};
  std::atomic<double> m_start{kInf};
};

// A completed MIP start is the branch and bound's incumbent from its start on, without a solution event.
void noteIncumbent(RunStage& stage, const CbcModel& m) {
  if (m.bestSolution() && m.getObjValue() < 1e49) stage.found(m.getObjValue());
}

class EventHandler : public CbcEventHandler {
 public:
  EventHandler(ProgressReporter& s, RunStage& stage) : m_state(&s), m_stage(&stage) {}
  CbcEventHandler* clone() const override { return new EventHandler(*this); }

  CbcAction event(CbcEvent e) override {
    if (m_state->stoppingOrLate()) {
      // Stop as on the time limit, not by returning `stop`: after a stop CbcMain1 copies no solution back
      // (status 5), while the time limit, checked at every node and in the heuristics' loops, keeps the
      // incumbent. With threads this may run on a worker while the master reads the limit: an aligned
      // double, and CBC's own threads share the model the same way.
      model_->setMaximumSeconds(0);
      return noAction;
    }
    // Sub-models (a heuristic's small branch and bound) have bounds of their own problem.
    if (!model_->parentModel() &&
        (e == node || e == treeStatus || e == solution || e == heuristicSolution || e == endSearch)) {
      observe(*m_state, *model_, e == endSearch);
      noteIncumbent(*m_stage, *model_);
    }
    return noAction;
  }

 private:
  ProgressReporter* m_state;
  RunStage* m_stage;
};

// Clp's simplex raises no CBC event: a large model's root LPs (and preprocessing's) ran for seconds deaf to a
// cancel (3.7 s on ResNet-18's 56 x 56 3 x 3 layer, 37,670 columns). Asked every iteration, a stop ends the
// LP (status 5); the CBC event handler and the stage call-back then end the search. Only while CBC holds no
// solution the caller lacks (RunStage): the LPs that map one back to the model given stopped too, and
// CbcMain1 then copied no solution back, so a cancel lost every incumbent CBC had found (FC C512 K1000
// cancelled at 2.5 s: no solution, where 709.5 nJ had been found).
class LpStopper : public ClpEventHandler {
 public:
  LpStopper(ProgressReporter& s, const RunStage& stage) : m_state(&s), m_stage(&stage) {}
  ClpEventHandler* clone() const override { return new LpStopper(*this); }
  int event(Event e) override {
    return e == endOfIteration && !m_stage->holdsMoreThanTheStart() && m_state->stoppingOrLate() ? 0 : -1;
  }

 private:
  ProgressReporter* m_state;
  const RunStage* m_stage;
};

// CbcMain1's call-back at each stage (1 after the first LP, 2 after preprocessing, 3 before branch and
// bound, 4 and 5 after it): the one way to stop it between stages, where no event is raised. It takes no
// user data, hence the thread_local (CbcMain1 calls it on the thread that called CbcMain1).
thread_local ProgressReporter* t_run = nullptr;
thread_local RunStage* t_stage = nullptr;

int stageCallBack(CbcModel* model, int whereFrom) {
  if (t_stage && whereFrom == 3)
    t_stage->enterBranching(model->bestSolution() && model->getObjValue() < 1e49 ? model->getObjValue()
                                                                                 : kInf);
  if (t_stage && whereFrom >= 3) noteIncumbent(*t_stage, *model);
  if (!t_run || !t_run->stoppingOrLate()) return 0;
  // After the first LP nothing is held yet: leave. Later, leaving skips CbcMain1's clean-up (the saved
  // solver after preprocessing leaks), so stop as on a time limit, which also keeps a start's incumbent.
  if (whereFrom == 1) return 1;
  if (whereFrom <= 3) model->setMaximumSeconds(0);
  return 0;
}

std::string columnName(std::size_t j) { return "x" + std::to_string(j); }

void load(const MilpModel& m, OsiClpSolverInterface& si, bool zeroObjective) {
  const int n = static_cast<int>(m.variables.size());
  const double inf = si.getInfinity();
  auto osi = [inf](double v) { return std::isinf(v) ? std::copysign(inf, v) : v; };
  // The rows gathered first and handed over whole: appending them one by one to a CoinPackedMatrix copies
  // it each time (2.1 s for ResNet-18's 56 x 56 3 x 3 layer, 20,155 rows; now a few milliseconds).
  std::vector<double> rowLower, rowUpper, colLower(n), colUpper(n), objective(n, 0.0);
  std::vector<int> index, indices, lengths;
  std::vector<double> value, elements;
  std::vector<CoinBigIndex> starts;
  for (const Row& r : m.rows) {
    rules::mergeTerms(r.terms, index, value);
    starts.push_back(static_cast<CoinBigIndex>(indices.size()));
    lengths.push_back(static_cast<int>(index.size()));
    indices.insert(indices.end(), index.begin(), index.end());
    elements.insert(elements.end(), value.begin(), value.end());
    rowLower.push_back(osi(r.lower));
    rowUpper.push_back(osi(r.upper));
  }
  starts.push_back(static_cast<CoinBigIndex>(indices.size()));
  const CoinPackedMatrix matrix(false, n, static_cast<int>(m.rows.size()),
                                static_cast<CoinBigIndex>(elements.size()), elements.data(), indices.data(),
                                starts.data(), lengths.data());  // row-ordered
  for (int j = 0; j < n; ++j) {
    colLower[j] = osi(m.variables[j].lower);
    colUpper[j] = osi(m.variables[j].upper);
  }
  if (!zeroObjective)
    for (const Term& t : m.objective.terms) objective[t.var] += t.coef;
  si.loadProblem(matrix, colLower.data(), colUpper.data(), objective.data(), rowLower.data(),
                 rowUpper.data());
  for (int j = 0; j < n; ++j)
    if (m.variables[j].integer) si.setInteger(j);
  if (m.start.empty()) return;
  // CBC takes a MIP start by column name; ours need not be unique, hence generated ones. Rows get names
  // too: once a model has names, Clp's presolve copies one per row without a bounds check
  // (ClpModel::rowName), and with column names alone a presolve in CBC's preprocessing read past the empty
  // row-name vector and crashed (`map` of VGG-16's conv4 under a 1 s limit; coin-or/Cbc issue 515).
  si.setIntParam(OsiNameDiscipline, 1);
  for (int j = 0; j < n; ++j) si.setColName(j, columnName(j));
  for (int i = 0; i < static_cast<int>(m.rows.size()); ++i) si.setRowName(i, "r" + std::to_string(i));
}

std::string text(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.17g", v);
  return s;
}

std::vector<std::string> arguments(const SolveOptions& o, int logLevel, int lpLogLevel, double secondsLeft) {
  std::vector<std::string> a{"pimscope", "-log", std::to_string(logLevel), "-slog",
                             std::to_string(lpLogLevel)};
  a.insert(a.end(), {"-timeMode", "elapsed"});  // the limit is the caller's wall-clock budget
  if (std::isfinite(secondsLeft)) a.insert(a.end(), {"-sec", text(secondsLeft)});
  // CBC stops when incumbent - bound < ratio x max(|incumbent|, |bound|); relativeGap() divides by
  // |incumbent| alone. A ratio of g / (1 + g) stops CBC only within g by ours.
  if (o.relativeGap > 0) a.insert(a.end(), {"-ratioGap", text(o.relativeGap / (1 + o.relativeGap))});
  if (o.maxNodes > 0) a.insert(a.end(), {"-maxNodes", std::to_string(o.maxNodes)});
  // Debian's CBC has threads; a build without them has no such parameter, and one thread it is.
  if (o.threads > 1 && CbcModel::haveMultiThreadSupport())
    a.insert(a.end(), {"-threads", std::to_string(o.threads)});
  a.insert(a.end(), {"-solve", "-quit"});
  return a;
}

// How close the events' bound must come to the incumbent to prove it after a stop: CBC's own default
// (CbcModel's allowable gap is 1e-10 absolute; a relative margin for large objectives).
constexpr double kProofTolerance = 1e-9;

// Maps CBC's final state to a result. `cbc` is the model CbcMain1 was given: it copies the outcome back.
SolveResult outcome(const MilpModel& m, const CbcModel& cbc, ProgressReporter& progress, double constant) {
  // An LP, or a MIP that preprocessing solves whole, has a best solution but a solution count of 0.
  const bool found = cbc.bestSolution() && cbc.getObjValue() < 1e49;
  SolveResult r = found ? rules::withValues(m, cbc.bestSolution()) : SolveResult{};
  r.nodes = std::max<std::int64_t>(cbc.getNodeCount(), progress.nodes());
  // Stopped by a call-back (a cancel, or the time limit in a stage CBC's own limit does not reach), CBC's
  // final bound may be that of an LP cut short, which bounds nothing: only the bounds its events reported
  // along the way count. Asked once more here, so a run that ended past the limit counts as stopped too.
  const bool stopped = progress.stoppingOrLate();
  r.bestBound = stopped ? progress.bound()
                        : std::max(progress.bound(), fromCbc(cbc.getBestPossibleObjValue()) + constant);
  // Nor is its "proven optimal" after a stop a proof: CI (under a sanitizer) saw a 1-s limit end a knapsack
  // that takes minutes to prove as "optimal" at 0 nodes, i.e. stopped inside the root (not reproduced here).
  // It stands only where the events' bounds reach the incumbent (both as CBC saw them: without a zeroed
  // objective's terms).
  const double incumbent = found ? cbc.getObjValue() + constant : kInf;
  const bool proven =
      found && (stopped ? progress.bound() >= incumbent - kProofTolerance * std::max(1.0, std::abs(incumbent))
                        : cbc.isProvenOptimal());
  const int secondary =
      cbc.secondaryStatus();  // CbcModel.hpp: 2 gap, 3 nodes, 4 time, 7 unbounded relaxation
  if (progress.cancelled()) {
    r.stop = StopReason::Cancelled;
  } else if (stopped && !proven) {
    r.stop = StopReason::TimeLimit;  // stopped by a call-back: CBC's own statuses do not say so
  } else if (cbc.isProvenInfeasible() && !found) {
    r.status = SolveStatus::Infeasible;
  } else if (cbc.isContinuousUnbounded() || cbc.isProvenDualInfeasible() || secondary == 7) {
    r.status = SolveStatus::Unbounded;  // of the relaxation: the rules check feasibility
  } else if (proven) {
    // CBC says optimal also when it stopped on the allowed gap.
    r.status = secondary == 2 ? SolveStatus::Feasible : SolveStatus::Optimal;
    if (secondary == 2) r.stop = StopReason::GapReached;
  } else if (cbc.isSecondsLimitReached() || secondary == 4) {
    r.stop = StopReason::TimeLimit;
  } else if (cbc.isNodeLimitReached() || secondary == 3) {
    r.stop = StopReason::NodeLimit;
  }
  if (found && r.status == SolveStatus::NoSolution) r.status = SolveStatus::Feasible;
  return r;
}

// One CbcMain1 run, its stages told to `stage`.
SolveResult runCbcMain(const MilpModel& m, const SolveOptions& o, Clock::time_point start, bool zeroObjective,
                       RunStage& stage) {
  const double secondsLeft = o.timeLimitSeconds - rules::secondsSince(start);
  const double constant = zeroObjective ? 0 : m.objective.constant;
  ProgressReporter progress(o, start, constant);
  rules::LogSink log(o);
  // Level 2's branch-and-bound lines come from the progress instead (ProgressReporter::logTo).
  if (log.enabled()) progress.logTo(log);
  LogHandler logHandler(log);  // before the solvers, which keep a pointer to it
  // For onLog alone, level 1: the preprocessing, the model's size and the MIP start. Level 2 would add the
  // branch and bound's progress, but then CBC's preprocessing prints some lines on stdout through a handler
  // of its own (seen: "Pre-processing says infeasible" on a small knapsack), which `map --json` cannot have.
  const int logLevel = log.enabled() && o.logLevel == 0 ? 1 : o.logLevel;
  OsiClpSolverInterface si;
  load(m, si, zeroObjective);
  LpStopper lpStopper(progress, stage);
  si.getModelPtr()->passInEventHandler(&lpStopper);  // Clp keeps a clone, copied with every solver copy
  if (log.enabled()) si.passInMessageHandler(&logHandler);
  si.messageHandler()->setLogLevel(logLevel);
  CbcModel cbc(si);
  if (log.enabled()) cbc.passInMessageHandler(&logHandler);
  cbc.setLogLevel(logLevel);
  EventHandler handler(progress, stage);
  cbc.passInEventHandler(&handler);  // CBC keeps a clone
  std::vector<std::pair<std::string, double>> mipStart;
  const std::vector<double> given = rules::startValues(m);
  for (std::size_t j = 0; j < given.size(); ++j)
    if (!std::isnan(given[j])) mipStart.emplace_back(columnName(j), given[j]);
  cbc.setMIPStart(mipStart);  // CBC completes a partial one: it fixes the values given, searches the rest
  CbcSolverUsefulData data;
  data.noPrinting_ = logLevel == 0;
  data.useSignalHandler_ = false;  // the process's SIGINT handler (the CLI's) stays in charge
  CbcMain0(cbc, data);
  // Off: Clp's fast dives solve many nodes without raising an event, which left 0.3 s between events (the
  // cancel's latency); without them the gaps stay under 10 ms, and the knapsack above took 1.1 s instead
  // of 0.75 s. -999 is CbcMain1's code for off (-1 is replaced by its default).
  cbc.setFastNodeDepth(-999);
  const std::vector<std::string> args = arguments(o, logLevel, logLevel, secondsLeft);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  struct sigaction savedSigint {};
  sigaction(SIGINT, nullptr, &savedSigint);
  t_run = &progress;
  t_stage = &stage;
  CbcMain1(static_cast<int>(argv.size()), argv.data(), cbc, stageCallBack, data);
  t_run = nullptr;
  t_stage = nullptr;
  sigaction(SIGINT, &savedSigint, nullptr);  // Clp's initialSolve may set one of its own
  progress.rethrowCallbackError();
  SolveResult r = outcome(m, cbc, progress, constant);
  log.finish(r, rules::secondsSince(start));
  return r;
}

// CBC's preprocessing (CglPreProcess) raises no event and, once a cancel or the time limit has stopped its
// LPs, still runs them one after another, each stopped at its first iteration but set up (scaled,
// factorised) in full; so do its check of the MIP start and the set-up of its branch and bound. On
// ResNet-18's 56 x 56 3 x 3 layer (37,670 columns) a cancel took 0.2-0.5 s to return, and up to 2.4 s. So
// CbcMain1 runs on a thread of its own, which owns a copy of the model and the options and calls the caller's
// call-backs only until the caller leaves it: when a cancel or the time limit has not ended it within
// kLeaveAfter and its branch and bound has found no solution of its own (so the caller loses nothing: the
// rules keep a full start, the mappers their own), the caller returns without it and it ends on its own. No
// other CbcMain1 starts before it has (cbcMainLock), and the process waits for it at exit (LeftRuns).
constexpr std::chrono::milliseconds kLeaveAfter{40};

std::mutex& cbcMainLock() {
  static std::mutex m;
  return m;
}

struct DetachedRun {
  MilpModel model;
  SolveOptions options;  // the caller's, with the cancel flag below and the call-backs behind `left`
  std::atomic<bool> stop{false};
  RunStage stage;
  std::mutex callbacks;  // held while a call-back of the caller runs, and when the caller leaves
  bool left = false;
  std::mutex mutex;  // guards what follows
  std::condition_variable ended;
  bool done = false;
  SolveResult result;
  std::exception_ptr error;
};

// The runs callers left: joined when the next one is left and at exit (a static made after CBC's own, so
// destroyed before them).
class LeftRuns {
 public:
  static void add(std::shared_ptr<DetachedRun> run, std::thread t) {
    static LeftRuns all;
    const std::lock_guard g(all.m_mutex);
    std::erase_if(all.m_runs, [](auto& r) {
      const std::lock_guard done(r.first->mutex);
      if (r.first->done) r.second.join();
      return r.first->done;
    });
    all.m_runs.emplace_back(std::move(run), std::move(t));
  }
  ~LeftRuns() {
    for (auto& r : m_runs) r.second.join();
  }

 private:
  std::mutex m_mutex;
  std::vector<std::pair<std::shared_ptr<DetachedRun>, std::thread>> m_runs;
};

std::shared_ptr<DetachedRun> detachedRun(const MilpModel& m, const SolveOptions& o, bool zeroObjective) {
  auto run = std::make_shared<DetachedRun>();
  run->model = m;
  run->options = o;
  run->options.cancel = &run->stop;
  if (const auto x = rules::startValues(m); rules::isFullStart(x)) {
    const Evaluation e = evaluate(m, x);
    if (e.feasible()) run->stage.setStartValue(zeroObjective ? 0 : e.objective - m.objective.constant);
  }
  DetachedRun* r = run.get();  // the run outlives every call of its call-backs
  if (o.onProgress)
    run->options.onProgress = [r, f = o.onProgress](const SolveProgress& p) {
      const std::lock_guard g(r->callbacks);
      if (!r->left) f(p);
    };
  if (o.onLog)
    run->options.onLog = [r, f = o.onLog](const std::string& line) {
      const std::lock_guard g(r->callbacks);
      if (!r->left) f(line);
    };
  return run;
}

// The search of solve_rules.h: runCbcMain on its own thread, left behind as said above.
SolveResult cbcSearch(const MilpModel& m, const SolveOptions& o, Clock::time_point start,
                      bool zeroObjective) {
  auto run = detachedRun(m, o, zeroObjective);
  cbcMainLock();  // made before LeftRuns, so destroyed after it has joined the runs left
  std::thread worker([run, start, zeroObjective] {
    SolveResult r;
    r.stop = StopReason::Cancelled;
    std::exception_ptr error;
    try {
      const std::lock_guard one(cbcMainLock());  // a run left before may still be ending
      if (!run->stop) r = runCbcMain(run->model, run->options, start, zeroObjective, run->stage);
    } catch (...) {
      error = std::current_exception();
    }
    const std::lock_guard g(run->mutex);
    run->result = std::move(r);
    run->error = error;
    run->done = true;
    run->ended.notify_all();
  });
  std::unique_lock lock(run->mutex);
  std::optional<Clock::time_point> stoppedAt;  // when the cancel or the time limit was first seen
  while (!run->ended.wait_for(lock, std::chrono::milliseconds(5), [&] { return run->done; })) {
    if (!stoppedAt && (rules::cancelRequested(o) || rules::secondsSince(start) >= o.timeLimitSeconds)) {
      stoppedAt = Clock::now();
      run->stop = true;
    }
    if (stoppedAt && Clock::now() - *stoppedAt >= kLeaveAfter && !run->stage.holdsMoreThanTheStart()) {
      {
        const std::lock_guard g(run->callbacks);
        run->left = true;
      }
      lock.unlock();
      LeftRuns::add(run, std::move(worker));
      SolveResult r;
      r.stop = rules::cancelRequested(o) ? StopReason::Cancelled : StopReason::TimeLimit;
      if (o.onLog)
        o.onLog(std::string("pimscope: ") + (r.stop == StopReason::Cancelled ? "cancelled" : "time limit") +
                " during CBC's preprocessing: returned without it (it ends in the background)");
      return r;
    }
  }
  lock.unlock();
  worker.join();
  if (run->error) std::rethrow_exception(run->error);
  // The run's cancel flag also carries the caller's time limit: the run cannot tell them apart.
  if (run->result.stop == StopReason::Cancelled && !rules::cancelRequested(o))
    run->result.stop = StopReason::TimeLimit;
  return std::move(run->result);
}

class CbcSolver final : public IMilpSolver {
 public:
  std::string_view name() const override { return "cbc"; }
  SolveResult solve(const MilpModel& m, const SolveOptions& o) const override {
    return rules::solveWithRules(m, o, cbcLock(), cbcSearch);
  }
};

}  // namespace

std::unique_ptr<IMilpSolver> makeCbcSolver() { return std::make_unique<CbcSolver>(); }

}  // namespace pim::milp
