// SPDX-License-Identifier: Apache-2.0
// Conformance of every registered MILP solver (engine/milp): each answer is checked with evaluate(), not
// taken on the solver's word, and optima against values known by hand or by brute force.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/common/error.h"
#include "engine/milp/milp.h"

namespace pim::milp {
namespace {

using Clock = std::chrono::steady_clock;

class Milp : public testing::TestWithParam<std::string> {
 protected:
  SolveResult solve(const MilpModel& m, SolveOptions o = {}) {
    if (!std::isfinite(o.timeLimitSeconds)) o.timeLimitSeconds = 20;  // a hung solver fails, not blocks
    const SolveResult r = makeSolver(GetParam())->solve(m, o);
    if (r.hasSolution()) {
      EXPECT_EQ(r.values.size(), m.variables.size());
      const Evaluation e = evaluate(m, r.values);
      EXPECT_TRUE(e.feasible()) << e.firstViolation;
      EXPECT_NEAR(r.objective, e.objective, 1e-6 * std::max(1.0, std::abs(e.objective)));
      EXPECT_LE(r.bestBound, r.objective + 1e-6 * std::max(1.0, std::abs(r.objective)));
    } else {
      EXPECT_TRUE(r.values.empty());
    }
    return r;
  }
};

std::string solverName(const testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(EverySolver, Milp, testing::ValuesIn(solverNames()), solverName);

// max x + y s.t. x + 2y <= 4, 3x + y <= 6: the vertex (8/5, 6/5), objective 10 - 14/5 with the constant.
TEST_P(Milp, TinyLpHasItsKnownOptimum) {
  MilpModel m;
  const auto x = m.addVariable("x", 0, kInf), y = m.addVariable("y", 0, kInf);
  m.addRow("a", {{x, 1}, {y, 2}}, -kInf, 4);
  m.addRow("b", {{x, 3}, {y, 1}}, -kInf, 6);
  m.objective = {{{x, -1}, {y, -1}}, 10};
  const SolveResult r = solve(m);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.stop, StopReason::None);
  EXPECT_NEAR(r.values[x], 1.6, 1e-7);
  EXPECT_NEAR(r.values[y], 1.2, 1e-7);
  EXPECT_NEAR(r.objective, 7.2, 1e-7);
  EXPECT_NEAR(r.bestBound, 7.2, 1e-7);
  EXPECT_EQ(r.gap, 0);
}

struct Knapsack {
  std::vector<double> weight, value;
  double capacity = 0;
};

Knapsack knapsack(int n, std::uint32_t seed) {
  std::mt19937 rng(seed);  // raw draws: the same instance with every standard library
  Knapsack k;
  for (int i = 0; i < n; ++i) {
    k.weight.push_back(1 + static_cast<double>(rng() % 100));
    k.value.push_back(1 + static_cast<double>(rng() % 100));
  }
  for (double w : k.weight) k.capacity += w;
  k.capacity = std::floor(k.capacity / 3);
  return k;
}

double bruteForce(const Knapsack& k) {
  const int n = static_cast<int>(k.weight.size());
  double best = 0;
  for (std::uint32_t s = 0; s < (1u << n); ++s) {
    double w = 0, v = 0;
    for (int i = 0; i < n; ++i)
      if (s >> i & 1) w += k.weight[i], v += k.value[i];
    if (w <= k.capacity) best = std::max(best, v);
  }
  return best;
}

MilpModel knapsackModel(const Knapsack& k) {
  MilpModel m;
  Row cap{"capacity", {}, -kInf, k.capacity};
  for (std::size_t i = 0; i < k.weight.size(); ++i) {
    const auto x = m.addBinary("take_" + std::to_string(i));
    cap.terms.push_back({x, k.weight[i]});
    m.objective.terms.push_back({x, -k.value[i]});  // maximise value
  }
  m.rows.push_back(cap);
  return m;
}

TEST_P(Milp, KnapsackMatchesBruteForce) {
  const Knapsack k = knapsack(18, 7);
  const double best = bruteForce(k);
  const auto t0 = Clock::now();
  const SolveResult r = solve(knapsackModel(k));
  std::printf("[ %s ] 18-item knapsack: %.1f ms, %lld nodes\n", GetParam().c_str(),
              std::chrono::duration<double, std::milli>(Clock::now() - t0).count(),
              static_cast<long long>(r.nodes));
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_NEAR(r.objective, -best, 1e-6);
  for (double v : r.values) EXPECT_EQ(v, std::round(v));  // integers come back exact
}

TEST_P(Milp, InfeasibleModelIsInfeasible) {
  MilpModel m;
  const auto x = m.addVariable("x", 0, 1), y = m.addVariable("y", 0, 1, true);
  m.addRow("too much", {{x, 1}, {y, 1}}, 3, kInf);
  m.objective.terms = {{x, 1}};
  const SolveResult r = solve(m);
  EXPECT_EQ(r.status, SolveStatus::Infeasible);
  EXPECT_FALSE(r.hasSolution());
}

TEST_P(Milp, UnboundedModelIsUnbounded) {
  MilpModel m;
  const auto x = m.addVariable("x", 0, kInf, true), y = m.addVariable("y", 0, kInf);
  m.addRow("link", {{x, 1}, {y, -1}}, -kInf, 2);  // x and y grow together
  m.objective.terms = {{x, -1}, {y, -1}};
  EXPECT_EQ(solve(m).status, SolveStatus::Unbounded);
}

// 2x = 1 has no integer solution, while its relaxation (x = 1/2) lets z run off: infeasible, not unbounded.
TEST_P(Milp, UnboundedRelaxationOfAnInfeasibleModelIsInfeasible) {
  MilpModel m;
  const auto x = m.addVariable("x", 0, 10, true), z = m.addVariable("z", 0, kInf);
  m.addRow("odd", {{x, 2}}, 1, 1);
  m.objective.terms = {{z, -1}};
  EXPECT_EQ(solve(m).status, SolveStatus::Infeasible);
}

TEST_P(Milp, IntegerAndContinuousVariablesDiffer) {
  for (const bool integer : {false, true}) {
    MilpModel m;
    const auto x = m.addVariable("x", 0, kInf, integer), y = m.addVariable("y", 0, kInf, integer);
    m.addRow("r", {{x, 2}, {y, 2}}, -kInf, 7);
    m.addRow("s", {{x, 1}, {y, -1}}, -kInf, 0.5);
    m.objective.terms = {{x, -3}, {y, -1}};
    const SolveResult r = solve(m);
    ASSERT_EQ(r.status, SolveStatus::Optimal) << integer;
    // Continuous: the rows meet at (2, 1.5), -7.5. Integer: x + y <= 3 and x <= y, best at (1, 2), -5.
    EXPECT_NEAR(r.objective, integer ? -5 : -7.5, 1e-7) << integer;
  }
}

// Fractional bounds of an integer variable hold the integers between them (GLPK takes only integral ones,
// so its backend rounds them inwards); bounds with no integer between them make the model infeasible.
TEST_P(Milp, FractionalBoundsOfAnIntegerVariable) {
  MilpModel m;
  const auto x = m.addVariable("x", -2.5, 3.7, true);
  m.objective.terms = {{x, -1}};
  SolveResult r = solve(m);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.values[x], 3);
  m.objective.terms = {{x, 1}};
  r = solve(m);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_EQ(r.values[x], -2);
  m.variables[x].lower = 0.2;
  m.variables[x].upper = 0.8;
  EXPECT_EQ(solve(m).status, SolveStatus::Infeasible);
}

TEST_P(Milp, EqualityRowsHold) {
  MilpModel m;
  const auto x = m.addVariable("x", 0, 20, true), y = m.addVariable("y", 0, 20, true);
  const auto z = m.addVariable("z", 0, 20);
  m.addRow("sum", {{x, 1}, {y, 1}, {z, 1}}, 10, 10);
  m.addRow("diff", {{x, 1}, {y, -1}, {x, 1}}, 3, 3);  // the repeated x counts twice: 2x - y = 3
  m.objective.terms = {{z, 1}, {x, 0.5}};
  const SolveResult r = solve(m);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  // z = 10 - x - y = 13 - 3x >= 0, so x <= 4: x = 4, y = 5, z = 1, objective 3.
  EXPECT_NEAR(r.values[x], 4, 1e-9);
  EXPECT_NEAR(r.values[y], 5, 1e-9);
  EXPECT_NEAR(r.values[z], 1, 1e-7);
  EXPECT_NEAR(r.objective, 3, 1e-7);
}

// 0-1 multi-dimensional knapsack with values correlated to the weights: seconds to prove for CBC.
MilpModel hardKnapsack(int n = 150, int m = 10) {
  std::mt19937 rng(1);
  MilpModel model;
  std::vector<double> total(n, 0);
  for (int j = 0; j < n; ++j) model.addBinary("x" + std::to_string(j));
  for (int i = 0; i < m; ++i) {
    Row r{"c" + std::to_string(i), {}, -kInf, 0};
    for (int j = 0; j < n; ++j) {
      const double w = 1 + static_cast<double>(rng() % 1000);
      r.terms.push_back({static_cast<std::size_t>(j), w});
      r.upper += w / 2;
      total[j] += w;
    }
    model.rows.push_back(r);
  }
  for (int j = 0; j < n; ++j)
    model.objective.terms.push_back({static_cast<std::size_t>(j), -(total[j] / m + 500 + rng() % 100)});
  return model;
}

TEST_P(Milp, MipStartIsTaken) {
  MilpModel m = hardKnapsack();
  // A start better than anything found early: the answer of a 50-node run (a node limit, not a time
  // limit: the same answer on a loaded machine under a sanitizer).
  SolveOptions longer;
  longer.maxNodes = 50;
  const SolveResult good = solve(m, longer);
  ASSERT_TRUE(good.hasSolution());
  for (std::size_t j = 0; j < good.values.size(); ++j) m.start.emplace_back(j, good.values[j]);
  // Stopped at its first incumbent, not by a short time limit: a solver now stops inside its root LP when
  // the time is up, which under a sanitizer on a loaded machine came before any report.
  std::vector<double> incumbents;
  std::atomic<bool> reported{false};
  SolveOptions o;
  o.timeLimitSeconds = 30;
  o.cancel = &reported;
  o.onProgress = [&](const SolveProgress& p) {
    if (!p.incumbent) return;
    incumbents.push_back(*p.incumbent);
    reported = true;
  };
  const SolveResult r = solve(m, o);
  ASSERT_TRUE(r.hasSolution());
  EXPECT_LE(r.objective, good.objective + 1e-6);
  // The solver started from it: nothing it reported was worse.
  ASSERT_FALSE(incumbents.empty());
  EXPECT_LE(incumbents.front(), good.objective + 1e-6);

  // Partial, fractional, repeated and infeasible starts are no errors: the solve goes on to a solution. It
  // stops on a node limit, which ends it at the same point on any machine: neither a short time limit
  // (under a sanitizer on a loaded machine 0.2 s ended before the root node did) nor a cancel at the first
  // incumbent (a cancel may lose a solution CBC found before its branch and bound, such as its completion of
  // a partial start, when its branch and bound has not begun within 40 ms: CI under a sanitizer saw it).
  SolveOptions fewNodes;
  fewNodes.maxNodes = 50;  // as the node-limit test below, where every solver has found one
  auto solvesWithinTheNodes = [&] { return solve(m, fewNodes).hasSolution(); };
  m.start.resize(10);
  EXPECT_TRUE(solvesWithinTheNodes());
  m.start = {{0, 0.5}, {1, 1}, {1, 0}};
  EXPECT_TRUE(solvesWithinTheNodes());
  m.start.clear();
  for (std::size_t j = 0; j < m.variables.size(); ++j) m.start.emplace_back(j, 1.0);  // everything: too heavy
  EXPECT_TRUE(solvesWithinTheNodes());
}

// A node limit stops the same search at the same point on any machine: twice the same answer.
TEST_P(Milp, NodeLimitStopsAHardModelTheSameWayEveryTime) {
  SolveOptions o;
  o.maxNodes = 50;
  const SolveResult a = solve(hardKnapsack(), o), b = solve(hardKnapsack(), o);
  ASSERT_EQ(a.status, SolveStatus::Feasible) << toString(a.status);
  EXPECT_EQ(a.stop, StopReason::NodeLimit);
  EXPECT_GT(a.gap, 0);
  EXPECT_GE(a.nodes, 50);
  EXPECT_LT(a.nodes, 50 + 50);  // a solver may finish the nodes it has open
  EXPECT_EQ(a.values, b.values);
  EXPECT_EQ(a.objective, b.objective);
  EXPECT_EQ(a.bestBound, b.bestBound);
}

TEST_P(Milp, TimeLimitStopsAHardModelWithAFiniteGap) {
  std::vector<SolveProgress> reports;
  SolveOptions o;
  o.timeLimitSeconds = 1;
  o.onProgress = [&](const SolveProgress& p) { reports.push_back(p); };
  const SolveResult r = solve(hardKnapsack(), o);
  std::printf(
      "[ %s ] hard knapsack, 1 s: %s, objective %.1f, bound %.1f, gap %.4f, %lld nodes, %.3f s, %zu "
      "progress reports\n",
      GetParam().c_str(), std::string(toString(r.status)).c_str(), r.objective, r.bestBound, r.gap,
      static_cast<long long>(r.nodes), r.seconds, reports.size());
  ASSERT_TRUE(r.status == SolveStatus::Feasible || r.status == SolveStatus::NoSolution);
  EXPECT_EQ(r.stop, StopReason::TimeLimit);
  if (r.status == SolveStatus::Feasible) {
    EXPECT_TRUE(std::isfinite(r.gap));
    EXPECT_GT(r.gap, 0);
  }
  EXPECT_LT(r.seconds, 1.5);

  ASSERT_GE(reports.size(), 2u);
  for (std::size_t i = 1; i < reports.size(); ++i) {
    EXPECT_GE(reports[i].bestBound, reports[i - 1].bestBound) << i;
    EXPECT_GE(reports[i].seconds, reports[i - 1].seconds) << i;
    EXPECT_GE(reports[i].nodes, reports[i - 1].nodes) << i;
    if (reports[i].incumbent && reports[i - 1].incumbent) {
      EXPECT_LE(*reports[i].incumbent, *reports[i - 1].incumbent) << i;
    }
  }
  for (const SolveProgress& p : reports) {
    if (!p.incumbent) continue;
    EXPECT_LE(p.bestBound, *p.incumbent + 1e-6);
    ASSERT_TRUE(p.gap);
    EXPECT_NEAR(*p.gap, relativeGap(*p.incumbent, p.bestBound), 1e-12);
  }
  EXPECT_LE(reports.back().bestBound, r.bestBound + 1e-6);
}

TEST_P(Milp, CancelStopsWithinATenthOfASecond) {
  for (const double after : {0.05, 0.8}) {  // during the root node, then in the tree
    std::atomic<bool> cancel{false};
    Clock::time_point setAt;
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::duration<double>(after));
      setAt = Clock::now();
      cancel = true;
    });
    SolveOptions o;
    o.timeLimitSeconds = 30;
    o.cancel = &cancel;
    const SolveResult r = solve(hardKnapsack(), o);
    const auto returned = Clock::now();
    canceller.join();
    const double latency = std::chrono::duration<double>(returned - setAt).count();
    std::printf("[ %s ] cancel after %.2f s: returned %.1f ms after the flag, %s, %lld nodes\n",
                GetParam().c_str(), after, latency * 1e3, std::string(toString(r.status)).c_str(),
                static_cast<long long>(r.nodes));
    EXPECT_EQ(r.stop, StopReason::Cancelled);
    EXPECT_TRUE(r.status == SolveStatus::Feasible || r.status == SolveStatus::NoSolution);
    // The target is 100 ms; a loaded 2-core machine gets slack.
    EXPECT_LT(latency, 1.0);
  }
}

TEST_P(Milp, GapOptionStopsEarly) {
  SolveOptions o;
  o.relativeGap = 0.05;
  const SolveResult r = solve(hardKnapsack(), o);
  ASSERT_TRUE(r.hasSolution());
  EXPECT_LE(r.gap, 0.05 + 1e-9);
  EXPECT_TRUE(r.status == SolveStatus::Optimal || r.stop == StopReason::GapReached);
}

TEST_P(Milp, ThreadsAreAcceptedWhateverTheBuild) {
  SolveOptions o;
  o.threads = 2;
  const Knapsack k = knapsack(16, 3);
  const SolveResult r = solve(knapsackModel(k), o);
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_NEAR(r.objective, -bruteForce(k), 1e-6);
  // And on the hard model, stopped by the time limit: 1 s, where CBC has its first solution after about
  // 15 ms without a sanitizer (0.3 s could end a sanitized run on a loaded machine before it had one).
  o.timeLimitSeconds = 1;
  const SolveResult hard = solve(hardKnapsack(), o);
  EXPECT_TRUE(hard.hasSolution());
  EXPECT_EQ(hard.stop, StopReason::TimeLimit);
}

TEST_P(Milp, ModelWithoutVariables) {
  MilpModel m;
  m.objective.constant = 4;
  m.addRow("empty", {}, -1, 1);
  EXPECT_EQ(solve(m).status, SolveStatus::Optimal);
  m.addRow("impossible", {}, 1, 2);
  EXPECT_EQ(solve(m).status, SolveStatus::Infeasible);
}

// Calls from several threads: a solver that serialises them (CBC) still answers each, and a call waiting for
// its turn still sees its cancel flag.
TEST_P(Milp, ConcurrentCallsAreAnsweredAndCancellable) {
  const Knapsack k = knapsack(16, 5);
  SolveResult hard, small, cancelled;
  std::atomic<bool> cancel{false};
  std::thread a([&] {
    SolveOptions o;
    o.maxNodes = 50;  // not a time limit: this call may wait its turn for much of one
    hard = solve(hardKnapsack(), o);
  });
  std::thread b([&] { small = solve(knapsackModel(k)); });
  std::thread c([&] {
    SolveOptions o;
    o.cancel = &cancel;
    cancelled = solve(hardKnapsack(), o);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const auto setAt = Clock::now();
  cancel = true;
  c.join();
  const double latency = std::chrono::duration<double>(Clock::now() - setAt).count();
  a.join();
  b.join();
  EXPECT_TRUE(hard.hasSolution());
  ASSERT_EQ(small.status, SolveStatus::Optimal);
  EXPECT_NEAR(small.objective, -bruteForce(k), 1e-6);
  EXPECT_EQ(cancelled.stop, StopReason::Cancelled);
  EXPECT_LT(latency, 1.0);
}

// The solver's own log goes to onLog, line by line, and not to stdout; without onLog (and log level 0)
// nothing is printed at all.
TEST_P(Milp, LogLinesGoToTheCallbackNotToStdout) {
  const Knapsack k = knapsack(16, 3);
  std::vector<std::string> lines;
  SolveOptions o;
  o.onLog = [&](const std::string& line) { lines.push_back(line); };
  testing::internal::CaptureStdout();
  const SolveResult r = solve(knapsackModel(k), o);
  const std::string printed = testing::internal::GetCapturedStdout();
  ASSERT_EQ(r.status, SolveStatus::Optimal);
  EXPECT_NEAR(r.objective, -bruteForce(k), 1e-6);
  EXPECT_GT(lines.size(), 2u);
  for (const std::string& line : lines) EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  // The last line is the search's outcome, whatever the backend prints before it.
  EXPECT_EQ(lines.back().rfind("search ended: optimal, ", 0), 0u) << lines.back();
  EXPECT_NE(lines.back().find("gap 0.00 %"), std::string::npos) << lines.back();
  // CBC's own log stops before its branch and bound at the level kept off stdout: the search's state is
  // shown.
  if (GetParam() == "cbc") {
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(),
                            [](const std::string& l) { return l.rfind("search: ", 0) == 0; }));
  }
  EXPECT_EQ(printed, "");
  testing::internal::CaptureStdout();
  solve(knapsackModel(k));
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
}

TEST_P(Milp, ProgressCallbackExceptionIsRethrown) {
  SolveOptions o;
  o.onProgress = [](const SolveProgress&) { throw std::runtime_error("display closed"); };
  const auto t0 = Clock::now();
  EXPECT_THROW(makeSolver(GetParam())->solve(hardKnapsack(), o), std::runtime_error);
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - t0).count(), 2.0);  // it stopped the run
}

// The message of the InputError that solving `m` with `o` throws, or "" when none.
std::string errorOf(const std::string& solver, const MilpModel& m, const SolveOptions& o = {}) {
  try {
    makeSolver(solver)->solve(m, o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_P(Milp, InvalidInputIsRefusedWithOneClearLine) {
  const std::string s = GetParam();
  MilpModel ok;
  ok.addVariable("x_0", 0, 1);
  ok.addVariable("x_1", 0, 1, true);
  ok.addRow("r", {{0, 1}, {1, 1}}, -kInf, 1);
  ok.objective.terms = {{0, 1}};
  ASSERT_EQ(errorOf(s, ok), "");

  auto with = [&](auto change) {
    MilpModel m = ok;
    change(m);
    return errorOf(s, m);
  };
  EXPECT_EQ(with([](MilpModel& m) { m.addVariable("x_3", 2, 1); }),
            "milp: variable 'x_3': lower bound 2 > upper bound 1");
  EXPECT_EQ(with([](MilpModel& m) { m.variables[0].upper = std::nan(""); }),
            "milp: variable 'x_0': upper bound is NaN");
  EXPECT_EQ(with([](MilpModel& m) { m.variables[1].lower = kInf; }),
            "milp: variable 'x_1': lower bound is +inf");
  EXPECT_EQ(with([](MilpModel& m) { m.addVariable("", 0, -0.5); }),
            "milp: variable #2: lower bound 0 > upper bound -0.5");
  EXPECT_EQ(with([](MilpModel& m) { m.rows[0].terms[1].coef = std::nan(""); }),
            "milp: row 'r': coefficient of variable 'x_1' is NaN");
  EXPECT_EQ(with([](MilpModel& m) { m.rows[0].terms[0].coef = -kInf; }),
            "milp: row 'r': coefficient of variable 'x_0' is -inf");
  EXPECT_EQ(with([](MilpModel& m) {
              m.rows[0].terms.push_back({7, 1});
            }),
            "milp: row 'r': variable index 7 out of range (the model has 2 variables)");
  EXPECT_EQ(with([](MilpModel& m) { m.addRow("", {}, 3, 2); }),
            "milp: row #1: lower bound 3 > upper bound 2");
  EXPECT_EQ(with([](MilpModel& m) {
              m.objective.terms.push_back({1, kInf});
            }),
            "milp: objective: coefficient of variable 'x_1' is +inf");
  EXPECT_EQ(with([](MilpModel& m) {
              m.objective.terms.push_back({2, 1});
            }),
            "milp: objective: variable index 2 out of range (the model has 2 variables)");
  EXPECT_EQ(with([](MilpModel& m) { m.objective.constant = std::nan(""); }),
            "milp: objective: constant is NaN");
  EXPECT_EQ(with([](MilpModel& m) {
              m.start = {{5, 1}};
            }),
            "milp: start: variable index 5 out of range (the model has 2 variables)");
  EXPECT_EQ(with([](MilpModel& m) {
              m.start = {{1, std::nan("")}};
            }),
            "milp: start: value of variable 'x_1' is NaN");

  SolveOptions o;
  o.timeLimitSeconds = 0;
  EXPECT_EQ(errorOf(s, ok, o), "milp: time limit must be > 0 seconds (got 0)");
  o.timeLimitSeconds = std::nan("");
  EXPECT_EQ(errorOf(s, ok, o), "milp: time limit must be > 0 seconds (got NaN)");
  o = {};
  o.relativeGap = -0.01;
  EXPECT_EQ(errorOf(s, ok, o), "milp: relative gap must be >= 0 (got -0.01)");
  o = {};
  o.threads = 0;
  EXPECT_EQ(errorOf(s, ok, o), "milp: threads must be >= 1 (got 0)");
  o = {};
  o.maxNodes = -1;
  EXPECT_EQ(errorOf(s, ok, o), "milp: node limit must be >= 0 (got -1)");
}

TEST(MilpRegistry, UnknownSolverIsNamedWithTheKnownOnes) {
  const std::vector<std::string> names = solverNames();
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "cbc");
  try {
    makeSolver("gurobi");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("milp: unknown solver 'gurobi' (known: cbc", 0), 0u) << e.what();
  }
  EXPECT_THROW(registerSolver("cbc", makeCbcSolver), InputError);
}

TEST(MilpEvaluate, NamesTheFirstViolation) {
  MilpModel m;
  const auto x = m.addVariable("x", 0, 4, true);
  m.addRow("cap", {{x, 3}}, -kInf, 10);
  m.objective = {{{x, 2}}, 1};
  EXPECT_TRUE(evaluate(m, std::vector<double>{3}).feasible());
  EXPECT_EQ(evaluate(m, std::vector<double>{3}).objective, 7);
  EXPECT_EQ(evaluate(m, std::vector<double>{3.5}).firstViolation,
            "variable 'x': integer variable has value 3.5");
  EXPECT_EQ(evaluate(m, std::vector<double>{5}).firstViolation, "variable 'x': value 5 > upper bound 4");
  m.variables[x].upper = 10;
  EXPECT_EQ(evaluate(m, std::vector<double>{4}).firstViolation, "row 'cap': activity 12 > upper bound 10");
  EXPECT_TRUE(evaluate(m, std::vector<double>{3.0000001}).feasible());  // within the tolerance
  EXPECT_THROW(evaluate(m, std::vector<double>{}), InputError);
}

TEST(MilpGap, RelativeGapDefinition) {
  EXPECT_EQ(relativeGap(10, 10), 0);
  EXPECT_DOUBLE_EQ(relativeGap(-100, -110), 0.1);
  EXPECT_EQ(relativeGap(5, -kInf), kInf);
}

}  // namespace
}  // namespace pim::milp
