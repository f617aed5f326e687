// SPDX-License-Identifier: Apache-2.0
#include "engine/milp/solve_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace pim::milp::rules {

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool cancelRequested(const SolveOptions& o) { return o.cancel && o.cancel->load(std::memory_order_relaxed); }

void mergeTerms(std::vector<Term> terms, std::vector<int>& index, std::vector<double>& value, int indexBase) {
  std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) { return a.var < b.var; });
  index.clear();
  value.clear();
  for (const Term& t : terms) {
    const int j = static_cast<int>(t.var) + indexBase;
    if (!index.empty() && index.back() == j) {
      value.back() += t.coef;
    } else {
      index.push_back(j);
      value.push_back(t.coef);
    }
  }
  std::size_t k = 0;
  for (std::size_t i = 0; i < index.size(); ++i)
    if (value[i] != 0) index[k] = index[i], value[k++] = value[i];
  index.resize(k);
  value.resize(k);
}

std::vector<double> startValues(const MilpModel& m) {
  std::vector<double> x(m.variables.size(), std::nan(""));
  for (const auto& [var, value] : m.start) x[var] = value;
  return x;
}

bool isFullStart(const std::vector<double>& start) {
  return std::none_of(start.begin(), start.end(), [](double v) { return std::isnan(v); });
}

SolveResult withValues(const MilpModel& m, const double* x) {
  SolveResult r;
  r.values.assign(x, x + m.variables.size());
  for (std::size_t j = 0; j < r.values.size(); ++j)
    if (m.variables[j].integer) r.values[j] = std::round(r.values[j]);
  r.objective = evaluate(m, r.values).objective;
  return r;
}

namespace {

// One search, unless the time is up or the caller cancelled before it began.
SolveResult searchIfTimeLeft(const MilpModel& m, const SolveOptions& o, Clock::time_point start,
                             bool zeroObjective, const Search& search) {
  if (!(o.timeLimitSeconds - secondsSince(start) > 0) || cancelRequested(o)) {
    SolveResult r;
    r.stop = cancelRequested(o) ? StopReason::Cancelled : StopReason::TimeLimit;
    return r;
  }
  return search(m, o, start, zeroObjective);
}

// The search, and when the relaxation is unbounded, the model is unbounded if it has a solution at all (its
// data are rational), infeasible otherwise: the same model without objective tells which.
SolveResult searchTellingUnbounded(const MilpModel& m, const SolveOptions& o, Clock::time_point start,
                                   const Search& search) {
  SolveResult r = searchIfTimeLeft(m, o, start, false, search);
  if (r.status != SolveStatus::Unbounded) return r;
  SolveOptions quiet = o;
  quiet.onProgress = nullptr;  // its incumbents are of another objective
  const SolveResult feasibility = searchIfTimeLeft(m, quiet, start, true, search);
  if (feasibility.status == SolveStatus::Infeasible) return feasibility;
  SolveResult out;
  out.nodes = r.nodes + feasibility.nodes;
  if (feasibility.hasSolution()) {
    out.status = SolveStatus::Unbounded;
    out.objective = -kInf;
  } else {
    out.stop = feasibility.stop;  // stopped before it knew
  }
  return out;
}

// A full, feasible start is an answer even when the solver stopped before reading it, or did worse.
void keepBetterStart(const MilpModel& m, SolveResult& r) {
  const std::vector<double> x = startValues(m);
  const bool open = r.status == SolveStatus::NoSolution || r.status == SolveStatus::Feasible;
  if (!open || !isFullStart(x)) return;
  const Evaluation e = evaluate(m, x);
  if (!e.feasible() || (r.hasSolution() && e.objective >= r.objective)) return;
  const SolveResult fromStart = withValues(m, x.data());
  r.values = fromStart.values;
  r.objective = fromStart.objective;
  r.status = SolveStatus::Feasible;
}

}  // namespace

SolveResult solveWithRules(const MilpModel& m, const SolveOptions& o, std::timed_mutex& lock,
                           const Search& search) {
  validate(m);
  validate(o);
  const Clock::time_point start = Clock::now();
  SolveResult r;
  if (m.variables.empty()) {
    // Solvers cannot load a model without columns; its rows are constants.
    const Evaluation e = evaluate(m, r.values);
    r.status = e.feasible() ? SolveStatus::Optimal : SolveStatus::Infeasible;
    r.objective = e.feasible() ? e.objective : kInf;
  } else {
    std::unique_lock<std::timed_mutex> held(lock, std::defer_lock);
    while (!held.try_lock_for(std::chrono::milliseconds(5)))
      if (cancelRequested(o) || secondsSince(start) >= o.timeLimitSeconds) break;
    if (held.owns_lock())
      r = searchTellingUnbounded(m, o, start, search);
    else
      r.stop = cancelRequested(o) ? StopReason::Cancelled : StopReason::TimeLimit;
    // A search stopped between its stages may hand back values that solve nothing (seen: every factor 1);
    // they are dropped, and the start, if any, is the answer. A loose tolerance: rounding the integers of
    // a real solution moves its rows by far less.
    if (r.hasSolution() && !evaluate(m, r.values, 1e-4).feasible()) {
      r.values.clear();
      r.status = SolveStatus::NoSolution;
    }
    keepBetterStart(m, r);
  }
  if (r.status == SolveStatus::Optimal) r.bestBound = r.objective;
  if (r.status == SolveStatus::Infeasible) r.bestBound = kInf;
  if (r.status == SolveStatus::Unbounded) r.bestBound = -kInf;
  if (r.hasSolution()) r.bestBound = std::min(r.bestBound, r.objective);
  r.gap = r.status == SolveStatus::Optimal ? 0 : relativeGap(r.objective, r.bestBound);
  r.seconds = secondsSince(start);
  return r;
}

void LogSink::write(std::string_view text) {
  if (!m_onLog) return;
  const std::lock_guard<std::mutex> lock(m_mutex);
  m_partial += text;
  std::size_t start = 0;
  for (std::size_t end; (end = m_partial.find('\n', start)) != std::string::npos; start = end + 1) {
    if (m_error || end == start) continue;
    try {
      m_onLog(m_partial.substr(start, end - start));
    } catch (...) {
      m_error = std::current_exception();  // an exception must not unwind through the solver
    }
  }
  m_partial.erase(0, start);
}

namespace {

constexpr double kLogIntervalSeconds = 1.0;

std::string number(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.10g", v);
  return s;
}

std::string stateLine(const std::string& prefix, std::int64_t nodes, std::optional<double> incumbent,
                      double bound, double seconds) {
  const bool bounded = std::isfinite(bound);
  char gap[32] = "-";
  if (incumbent && bounded) std::snprintf(gap, sizeof gap, "%.2f %%", 100 * relativeGap(*incumbent, bound));
  char tail[48];
  std::snprintf(tail, sizeof tail, ", %.1f s\n", seconds);
  return prefix + std::to_string(nodes) + " nodes, best " + (incumbent ? number(*incumbent) : "none") +
         ", bound " + (bounded ? number(bound) : "none") + ", gap " + gap + tail;
}

}  // namespace

void LogSink::finish(const SolveResult& r, double seconds) {
  if (!enabled()) return;
  if (!m_partial.empty()) write("\n");
  write(stateLine("search ended: " + std::string(toString(r.status)) + ", ", r.nodes,
                  r.hasSolution() ? std::optional<double>(r.objective) : std::nullopt, r.bestBound, seconds));
  if (m_error) std::rethrow_exception(m_error);
}

bool ProgressReporter::stopping() {
  if (cancelRequested(m_options)) m_cancelled = true;
  const std::lock_guard<std::mutex> lock(m_mutex);
  return m_cancelled || m_callbackError;
}

bool ProgressReporter::stoppingOrLate() {
  if (stopping()) return true;
  if (secondsSince(m_start) < m_options.timeLimitSeconds) return false;
  m_timedOut = true;
  return true;
}

void ProgressReporter::observe(std::optional<double> incumbent, double bound, std::int64_t nodes,
                               bool force) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  const double now = secondsSince(m_start);
  bool improved = false;
  if (incumbent) {
    const double value = *incumbent + m_constant;
    improved = !m_incumbent || value < *m_incumbent;
    if (improved) m_incumbent = value;
  }
  const double raw = bound + m_constant;
  if (std::isfinite(raw)) m_bound = std::max(m_bound, m_incumbent ? std::min(raw, *m_incumbent) : raw);
  m_nodes = std::max(m_nodes, nodes);
  if (m_log && (improved || force || now - m_lastLogLine >= kLogIntervalSeconds)) {
    m_lastLogLine = now;
    m_log->write(stateLine("search: ", m_nodes, m_incumbent, m_bound, now));
  }
  const bool due = improved || force || now - m_lastReport >= SolveOptions::kProgressIntervalSeconds;
  if (!m_options.onProgress || !due || m_callbackError) return;
  m_lastReport = now;
  SolveProgress p{m_incumbent, m_bound, std::nullopt, m_nodes, now};
  if (m_incumbent) p.gap = relativeGap(*m_incumbent, m_bound);
  try {
    m_options.onProgress(p);
  } catch (...) {
    m_callbackError = std::current_exception();
  }
}

double ProgressReporter::bound() {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return m_bound;
}

std::int64_t ProgressReporter::nodes() {
  const std::lock_guard<std::mutex> lock(m_mutex);
  return m_nodes;
}

void ProgressReporter::rethrowCallbackError() {
  std::exception_ptr e;
  {
    const std::lock_guard<std::mutex> lock(m_mutex);
    e = m_callbackError;
  }
  if (e) std::rethrow_exception(e);
}

}  // namespace pim::milp::rules
