// SPDX-License-Identifier: Apache-2.0
#include "engine/milp/milp.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <mutex>

#include "engine/common/error.h"

namespace pim::milp {

namespace {

// Shortest text that reads back to the same double, so a message shows the value the caller wrote.
std::string num(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+inf" : "-inf";
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  return std::string(buf, end);
}

[[noreturn]] void fail(const std::string& what) { throw InputError("milp: " + what); }

void checkTerms(const MilpModel& m, const std::vector<Term>& terms, const std::string& where) {
  for (const Term& t : terms) {
    if (t.var >= m.variables.size())
      fail(where + ": variable index " + std::to_string(t.var) + " out of range (the model has " +
           std::to_string(m.variables.size()) + " variables)");
    if (!std::isfinite(t.coef))
      fail(where + ": coefficient of variable " + m.variableLabel(t.var) + " is " + num(t.coef));
  }
}

// lower <= upper, neither NaN, and not a range that excludes every finite value.
void checkBounds(double lower, double upper, const std::string& where) {
  if (std::isnan(lower) || std::isnan(upper))
    fail(where + ": " + (std::isnan(lower) ? "lower" : "upper") + " bound is NaN");
  if (lower == kInf) fail(where + ": lower bound is +inf");
  if (upper == -kInf) fail(where + ": upper bound is -inf");
  if (lower > upper) fail(where + ": lower bound " + num(lower) + " > upper bound " + num(upper));
}

}  // namespace

std::size_t MilpModel::addVariable(std::string name, double lower, double upper, bool integer) {
  variables.push_back({std::move(name), lower, upper, integer});
  return variables.size() - 1;
}

std::size_t MilpModel::addRow(std::string name, std::vector<Term> terms, double lower, double upper) {
  rows.push_back({std::move(name), std::move(terms), lower, upper});
  return rows.size() - 1;
}

std::string MilpModel::variableLabel(std::size_t i) const {
  if (i < variables.size() && !variables[i].name.empty()) return "'" + variables[i].name + "'";
  return "#" + std::to_string(i);
}

std::string MilpModel::rowLabel(std::size_t i) const {
  if (i < rows.size() && !rows[i].name.empty()) return "'" + rows[i].name + "'";
  return "#" + std::to_string(i);
}

void validate(const MilpModel& m) {
  for (std::size_t i = 0; i < m.variables.size(); ++i)
    checkBounds(m.variables[i].lower, m.variables[i].upper, "variable " + m.variableLabel(i));
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    const std::string where = "row " + m.rowLabel(i);
    checkBounds(m.rows[i].lower, m.rows[i].upper, where);
    checkTerms(m, m.rows[i].terms, where);
  }
  checkTerms(m, m.objective.terms, "objective");
  if (!std::isfinite(m.objective.constant)) fail("objective: constant is " + num(m.objective.constant));
  for (const auto& [var, value] : m.start) {
    if (var >= m.variables.size())
      fail("start: variable index " + std::to_string(var) + " out of range (the model has " +
           std::to_string(m.variables.size()) + " variables)");
    if (!std::isfinite(value)) fail("start: value of variable " + m.variableLabel(var) + " is " + num(value));
  }
}

void validate(const SolveOptions& o) {
  // Written as !(x > 0) so that NaN fails too.
  if (!(o.timeLimitSeconds > 0)) fail("time limit must be > 0 seconds (got " + num(o.timeLimitSeconds) + ")");
  if (!(o.relativeGap >= 0)) fail("relative gap must be >= 0 (got " + num(o.relativeGap) + ")");
  if (o.threads < 1) fail("threads must be >= 1 (got " + std::to_string(o.threads) + ")");
  if (o.maxNodes < 0) fail("node limit must be >= 0 (got " + std::to_string(o.maxNodes) + ")");
}

std::string_view toString(SolveStatus s) {
  switch (s) {
    case SolveStatus::Optimal:
      return "optimal";
    case SolveStatus::Feasible:
      return "feasible";
    case SolveStatus::Infeasible:
      return "infeasible";
    case SolveStatus::Unbounded:
      return "unbounded";
    case SolveStatus::NoSolution:
      return "no solution";
  }
  return "?";
}

std::string_view toString(StopReason r) {
  switch (r) {
    case StopReason::None:
      return "none";
    case StopReason::TimeLimit:
      return "time limit";
    case StopReason::Cancelled:
      return "cancelled";
    case StopReason::GapReached:
      return "gap reached";
    case StopReason::NodeLimit:
      return "node limit";
  }
  return "?";
}

double relativeGap(double incumbent, double bound) {
  if (!std::isfinite(incumbent) || !std::isfinite(bound)) return kInf;
  const double diff = std::abs(incumbent - bound);
  if (diff <= 1e-9) return 0;
  return diff / std::max(std::abs(incumbent), 1e-10);
}

namespace {

// How far `v` lies outside [lower, upper], relative to the bound's magnitude (0 inside).
double excess(double v, double lower, double upper) {
  if (v < lower) return (lower - v) / std::max(1.0, std::abs(lower));
  if (v > upper) return (v - upper) / std::max(1.0, std::abs(upper));
  return 0;
}

// Records violation `amount` of `what` (value vs bounds) when it is the first beyond the tolerance.
void note(Evaluation& e, double amount, double tolerance, const std::string& what, double v, double lower,
          double upper) {
  e.maxViolation = std::max(e.maxViolation, amount);
  if (amount <= tolerance || !e.firstViolation.empty()) return;
  e.firstViolation =
      what + " " + num(v) + (v < lower ? " < lower bound " + num(lower) : " > upper bound " + num(upper));
}

}  // namespace

Evaluation evaluate(const MilpModel& m, std::span<const double> x, double tolerance) {
  if (x.size() != m.variables.size())
    fail("evaluate: " + std::to_string(x.size()) + " values for " + std::to_string(m.variables.size()) +
         " variables");
  Evaluation e;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const Variable& v = m.variables[i];
    note(e, excess(x[i], v.lower, v.upper), tolerance, "variable " + m.variableLabel(i) + ": value", x[i],
         v.lower, v.upper);
    const double frac = std::abs(x[i] - std::round(x[i]));
    if (v.integer) e.maxViolation = std::max(e.maxViolation, frac);
    if (v.integer && frac > tolerance && e.firstViolation.empty())
      e.firstViolation = "variable " + m.variableLabel(i) + ": integer variable has value " + num(x[i]);
  }
  for (std::size_t r = 0; r < m.rows.size(); ++r) {
    const Row& row = m.rows[r];
    double activity = 0;
    for (const Term& t : row.terms) activity += t.coef * x[t.var];
    note(e, excess(activity, row.lower, row.upper), tolerance, "row " + m.rowLabel(r) + ": activity",
         activity, row.lower, row.upper);
  }
  e.objective = m.objective.constant;
  for (const Term& t : m.objective.terms) e.objective += t.coef * x[t.var];
  return e;
}

// ---- registry --------------------------------------------------------------------------------------------

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::pair<std::string, SolverFactory>> solvers;
  std::vector<std::string> builtin;
  bool builtinsDone = false;
};

Registry& registry() {
  static Registry r;
  return r;
}

void addLocked(Registry& r, std::string name, SolverFactory make) {
  for (const auto& s : r.solvers)
    if (s.first == name) fail("solver '" + name + "' is registered twice");
  r.solvers.emplace_back(std::move(name), std::move(make));
}

}  // namespace

void registerSolver(std::string name, SolverFactory make) {
  registerBuiltins();  // so that a plug-in cannot take a built-in name and come first
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  addLocked(r, std::move(name), std::move(make));
}

void registerBuiltins() {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  if (r.builtinsDone) return;
  r.builtinsDone = true;
  // The one place a built-in solver is registered.
  addLocked(r, "cbc", makeCbcSolver);
#ifdef PIMSCOPE_HAVE_GLPK
  addLocked(r, "glpk", makeGlpkSolver);
#endif
  for (const auto& s : r.solvers) r.builtin.push_back(s.first);
}

std::vector<std::string> solverNames() {
  registerBuiltins();
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& s : r.solvers) out.push_back(s.first);
  return out;
}

std::unique_ptr<IMilpSolver> makeSolver(std::string_view name) {
  registerBuiltins();
  SolverFactory make;
  std::string known;
  {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& s : r.solvers) {
      if (s.first == name) make = s.second;
      known += (known.empty() ? "" : ", ") + s.first;
    }
  }
  if (!make) fail("unknown solver '" + std::string(name) + "' (known: " + known + ")");
  return make();
}

}  // namespace pim::milp
