// SPDX-License-Identifier: Apache-2.0
// Mixed-integer linear programs as plain data, and the solvers that take them (issue 20): the conv mapper
// (engine/convmap) states its mapping problem once as a MilpModel and any registered solver answers it, so
// a second solver can be checked against the first and tests can verify an answer without trusting the
// solver that produced it (evaluate()).
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pim::milp {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// One column. Binary = integer in [0, 1]. Bounds may be -kInf / +kInf (free or one-sided).
struct Variable {
  std::string name;  // for messages only; need not be unique
  double lower = 0, upper = kInf;
  bool integer = false;
};

/// coefficient x variable `var` (an index into MilpModel::variables).
struct Term {
  std::size_t var = 0;
  double coef = 0;
};

/// lower <= sum of terms <= upper; -kInf / +kInf for a one-sided row, lower == upper for an equality.
/// Terms naming the same variable twice add up.
struct Row {
  std::string name;
  std::vector<Term> terms;
  double lower = -kInf, upper = kInf;
};

/// Minimise constant + sum of terms.
struct Objective {
  std::vector<Term> terms;
  double constant = 0;
};

struct MilpModel {
  std::vector<Variable> variables;
  std::vector<Row> rows;
  Objective objective;
  /// A MIP start: values for some or all variables (index, value). A solver tries it as its first
  /// incumbent (completing a partial one when it can) and ignores it when infeasible.
  std::vector<std::pair<std::size_t, double>> start;

  std::size_t addVariable(std::string name, double lower, double upper, bool integer = false);
  std::size_t addBinary(std::string name) { return addVariable(std::move(name), 0, 1, true); }
  std::size_t addRow(std::string name, std::vector<Term> terms, double lower, double upper);
  /// A message's name for variable / row i: its name in quotes, or "#i" when it has none.
  std::string variableLabel(std::size_t i) const;
  std::string rowLabel(std::size_t i) const;
};

/// Throws pim::InputError, one line naming the first problem: a bound lower > upper or NaN, a lower bound of
/// +inf or upper bound of -inf, a NaN or infinite coefficient or objective constant, an index out of range
/// (rows, objective, start), a NaN or infinite start value.
void validate(const MilpModel& model);

/// What a solver reports while it runs (SolveOptions::onProgress). Minimisation: bestBound <= incumbent.
struct SolveProgress {
  std::optional<double> incumbent;  // best objective found so far (with the constant)
  double bestBound = -kInf;         // never decreases from one report to the next
  std::optional<double> gap;        // relativeGap(incumbent, bestBound), when there is an incumbent
  std::int64_t nodes = 0;
  double seconds = 0;  // since solve() was called
};

struct SolveOptions {
  double timeLimitSeconds = kInf;  // wall clock from the call (waiting for a busy solver included), > 0
  double relativeGap = 0;          // stop once relativeGap(incumbent, bound) <= this; >= 0
  int threads = 1;  // >= 1; more makes the search nondeterministic; a solver without threads uses one
  /// > 0: stop once the branch and bound has made this many nodes (StopReason::NodeLimit). Unlike the time
  /// limit, the same on every machine: with one thread the result is too. 0: no limit.
  std::int64_t maxNodes = 0;
  int logLevel = 0;  // the solver's own log on stdout; 0 = silent
  /// Called from the thread that runs solve() or from a solver's worker thread, never two at once: on each
  /// new incumbent, otherwise at most once per kProgressIntervalSeconds, and when the search ends. An
  /// exception it throws stops the solve and leaves solve() once the solver has returned.
  std::function<void(const SolveProgress&)> onProgress;
  /// Polled while solving; once true the solver stops as soon as it can and returns its incumbent
  /// (StopReason::Cancelled). CBC's preprocessing does not see it; a solve stopped there returns within
  /// about 40 ms all the same, with the MIP start if it was complete and the solver had found nothing better.
  const std::atomic<bool>* cancel = nullptr;
  /// The solver's own log (CBC's and Clp's messages, GLPK's terminal output), line by line, instead of
  /// stdout; with it a logLevel of 0 counts as 1. Called from the solving threads, never two at once; an
  /// exception it throws is rethrown by solve() once the solver has returned.
  std::function<void(const std::string& line)> onLog;

  static constexpr double kProgressIntervalSeconds = 0.1;
};

/// Throws pim::InputError: time limit <= 0 or NaN, gap < 0 or NaN, threads < 1, node limit < 0.
void validate(const SolveOptions& options);

enum class SolveStatus {
  Optimal,     // proven optimal (within the solver's tolerances)
  Feasible,    // stopped with an incumbent: time limit, gap reached or cancelled (see StopReason)
  Infeasible,  // proven infeasible
  Unbounded,   // feasible with objective unbounded below
  NoSolution,  // stopped before any incumbent
};

enum class StopReason { None, TimeLimit, Cancelled, GapReached, NodeLimit };

struct SolveResult {
  SolveStatus status = SolveStatus::NoSolution;
  StopReason stop = StopReason::None;
  double objective = kInf;   // of `values`, with the constant; kInf without a solution, -kInf if Unbounded
  double bestBound = -kInf;  // proven lower bound; == objective when Optimal, kInf when Infeasible
  double gap = kInf;         // relativeGap(objective, bestBound); 0 when Optimal
  std::int64_t nodes = 0;
  double seconds = 0;
  /// One per variable when Optimal or Feasible, else empty; integer variables hold exact integers. A full,
  /// feasible start (MilpModel::start) is returned when the solver found nothing better.
  std::vector<double> values;

  bool hasSolution() const { return status == SolveStatus::Optimal || status == SolveStatus::Feasible; }
};

std::string_view toString(SolveStatus s);
std::string_view toString(StopReason r);

/// |incumbent - bound| / max(|incumbent|, 1e-10) (Gurobi's definition); 0 when they are within 1e-9 of each
/// other, kInf when either is infinite.
double relativeGap(double incumbent, double bound);

/// An assignment checked against a model: its objective (with the constant) and the worst violation.
struct Evaluation {
  double objective = 0;
  double maxViolation = 0;     // largest violation found (bounds, rows, integrality); 0 when feasible
  std::string firstViolation;  // empty when feasible: "row 'cap': activity 12 > upper bound 10"
  bool feasible() const { return firstViolation.empty(); }
};

/// Evaluates `values` (one per variable; throws InputError otherwise). A bound or row counts as violated
/// beyond tolerance x max(1, |bound|), integrality beyond `tolerance`.
Evaluation evaluate(const MilpModel& model, std::span<const double> values, double tolerance = 1e-6);

class IMilpSolver {
 public:
  virtual ~IMilpSolver() = default;
  virtual std::string_view name() const = 0;
  /// Validates the model and the options (InputError), then solves. Safe to call from several threads; a
  /// solver whose library is not reentrant serialises the calls (still polling `cancel` while it waits).
  virtual SolveResult solve(const MilpModel& model, const SolveOptions& options) const = 0;
};

using SolverFactory = std::function<std::unique_ptr<IMilpSolver>()>;

/// Adds a solver by name (a plug-in, or a test double); throws InputError when the name is taken.
void registerSolver(std::string name, SolverFactory make);
/// Registers the built-in solvers ("cbc", and "glpk" when built with it); idempotent. solverNames() and
/// makeSolver() call it.
void registerBuiltins();
/// The registered solvers, built-in ones first, in registration order.
std::vector<std::string> solverNames();
/// Throws InputError "milp: unknown solver 'x' (known: cbc)" when no solver of that name is registered.
std::unique_ptr<IMilpSolver> makeSolver(std::string_view name);

/// CBC (COIN-OR branch and cut) through its C++ API (cbc_solver.cpp).
std::unique_ptr<IMilpSolver> makeCbcSolver();
/// GLPK's branch and cut (glpk_solver.cpp); defined only in builds with the CMake option PIMSCOPE_GLPK,
/// where registerBuiltins() adds it as "glpk".
std::unique_ptr<IMilpSolver> makeGlpkSolver();

}  // namespace pim::milp
