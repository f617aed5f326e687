// SPDX-License-Identifier: Apache-2.0
// What every solver backend (cbc_solver.cpp, glpk_solver.cpp) does the same way around its own search, so
// that the contract of IMilpSolver::solve (milp.h) is written once: validation, one call at a time with the
// cancel flag and time limit seen while waiting, the model without variables, an unbounded relaxation told
// apart from an infeasible model, a full feasible start kept as the answer, and the final bound and gap. And
// the progress reports: a bound that never goes down, an interval, a callback's exception carried out.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/milp/milp.h"

namespace pim::milp::rules {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t);
bool cancelRequested(const SolveOptions& o);

/// Sums the terms of each variable (the model allows repeats; CBC's and GLPK's matrices do not), drops
/// zeros, and writes them in increasing variable order with `indexBase` added to each index (GLPK's arrays
/// start at 1).
void mergeTerms(std::vector<Term> terms, std::vector<int>& index, std::vector<double>& value,
                int indexBase = 0);

/// The last value given to each variable of the start (the model allows repeats), NaN where none.
std::vector<double> startValues(const MilpModel& m);
/// Whether every variable has a start value.
bool isFullStart(const std::vector<double>& start);

/// A result holding one solution: integers rounded (solvers leave them within their integrality tolerance,
/// and callers read tiling factors off them), the objective recomputed from the model.
SolveResult withValues(const MilpModel& m, const double* x);

/// One search of a backend: `m` with its objective, or with none (zeroObjective: is there any solution?),
/// within what is left of o.timeLimitSeconds since `start`. It never sees a model without variables, is
/// called with the backend's lock held, and reports Unbounded when the relaxation is unbounded: the rules
/// then decide between Unbounded and Infeasible.
using Search = std::function<SolveResult(const MilpModel& m, const SolveOptions& o, Clock::time_point start,
                                         bool zeroObjective)>;

/// IMilpSolver::solve for a backend: the rules above around `search`. `lock` serialises the backend's calls.
SolveResult solveWithRules(const MilpModel& m, const SolveOptions& o, std::timed_mutex& lock,
                           const Search& search);

/// Where a backend sends its solver's log: whole lines to SolveOptions::onLog (text without a newline waits
/// for the rest of its line), one at a time, an exception kept for rethrowCallbackError.
class LogSink {
 public:
  explicit LogSink(const SolveOptions& o) : m_onLog(o.onLog) {}
  bool enabled() const { return static_cast<bool>(m_onLog); }
  /// Appends `text` (any number of lines, the last one maybe partial).
  void write(std::string_view text);
  /// Sends a partial last line and a closing line with the search's outcome (`r` after `seconds`), then
  /// rethrows what onLog threw, if it did.
  void finish(const SolveResult& r, double seconds);

 private:
  const std::function<void(const std::string&)>& m_onLog;
  std::mutex m_mutex;
  std::string m_partial;
  std::exception_ptr m_error;
};

/// The progress of one search, shared by the backend's callbacks (CBC raises events from its worker
/// threads, hence the mutex): folds in what the solver reports and calls SolveOptions::onProgress.
class ProgressReporter {
 public:
  ProgressReporter(const SolveOptions& o, Clock::time_point start, double constant)
      : m_options(o), m_start(start), m_constant(constant) {}

  /// True once the caller's cancel flag was seen or a progress callback threw: the search should stop.
  bool stopping();
  bool cancelled() const { return m_cancelled; }
  /// stopping(), or the time limit has passed: for a backend's call-backs between the stages its own limit
  /// does not reach (CBC ran 2 s past a 2-s limit on a ResNet-18 3 x 3 layer, in its preprocessing and root
  /// LPs). Remembers when the time limit was the reason (timedOut()).
  bool stoppingOrLate();
  bool timedOut() const { return m_timedOut; }

  /// Folds in the solver's incumbent and lower bound (without the objective constant; nullopt / non-finite
  /// when it has none) and node count, and reports when a new incumbent came, `force` is set or the interval
  /// has passed. The bound reported is the best seen so far: each one a solver gives is a valid lower bound,
  /// so their maximum is too, and it never goes down, as a progress display expects.
  void observe(std::optional<double> incumbent, double bound, std::int64_t nodes, bool force);

  /// Also writes a line of the search's state (nodes, best, bound, gap, seconds) to `log` on each new
  /// incumbent, at the end and at most once a second otherwise: for a backend whose own log does not show
  /// its branch and bound (CBC below its log level 2, which would print on stdout).
  void logTo(LogSink& log) { m_log = &log; }

  /// The best bound seen (with the constant), -kInf when none, and the most nodes.
  double bound();
  std::int64_t nodes();
  /// Rethrows what onProgress threw, if it did; call once the solver has returned.
  void rethrowCallbackError();

 private:
  const SolveOptions& m_options;
  Clock::time_point m_start;
  double m_constant;
  std::atomic<bool> m_cancelled{false};
  std::atomic<bool> m_timedOut{false};

  std::mutex m_mutex;  // guards what follows
  double m_bound = -kInf;
  std::optional<double> m_incumbent;
  std::int64_t m_nodes = 0;
  double m_lastReport = -kInf;
  LogSink* m_log = nullptr;
  double m_lastLogLine = -kInf;
  std::exception_ptr m_callbackError;  // an exception must not unwind through a solver's C or C++ frames
};

}  // namespace pim::milp::rules
