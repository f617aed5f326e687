// SPDX-License-Identifier: Apache-2.0
// GLPK (the GNU Linear Programming Kit, GPL-3) as a second MILP backend, built only with the CMake option
// PIMSCOPE_GLPK (README: why it is optional). Its branch and cut (glp_intopt) runs without GLPK's MIP
// presolver: the presolver hands the call-backs a transformed problem, in which a MIP start given by column
// could not be offered (glp_ios_heur_sol). The root LP is solved first with glp_simplex, as glp_intopt then
// requires. GLPK has no threads and no partial starts: SolveOptions::threads is ignored, and a start that
// does not give every variable is not offered (a full one is, and the rules keep it if GLPK finds worse).
#ifdef PIMSCOPE_HAVE_GLPK

#include <glpk.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/milp/milp.h"
#include "engine/milp/solve_rules.h"

namespace pim::milp {

namespace {

using rules::Clock;
using rules::ProgressReporter;

// GLPK keeps its state in an environment per thread, or per process when built without thread-local
// storage; one solve at a time either way, so that glp_free_env at the end of a solve frees only its own.
std::timed_mutex& glpkLock() {
  static std::timed_mutex m;
  return m;
}

// Owns the problem and frees GLPK's environment after it (its memory would otherwise stay with the thread).
struct Problem {
  glp_prob* p = glp_create_prob();
  Problem() = default;
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;
  ~Problem() {
    glp_delete_prob(p);
    glp_free_env();
  }
};

// GLPK's bound type for lower <= x <= upper (either may be infinite).
int boundType(double lower, double upper) {
  if (std::isinf(lower) && std::isinf(upper)) return GLP_FR;
  if (std::isinf(upper)) return GLP_LO;
  if (std::isinf(lower)) return GLP_UP;
  return lower == upper ? GLP_FX : GLP_DB;
}

// Loads `m` into `p`; false when an integer variable's bounds hold no integer (the model is infeasible).
// Integer bounds are rounded inwards, which changes no integer point: glp_intopt refuses fractional ones.
bool load(const MilpModel& m, glp_prob* p, bool zeroObjective) {
  const int n = static_cast<int>(m.variables.size());
  glp_set_obj_dir(p, GLP_MIN);
  glp_add_cols(p, n);
  for (int j = 0; j < n; ++j) {
    const Variable& v = m.variables[j];
    double lower = v.lower, upper = v.upper;
    if (v.integer) {
      lower = std::ceil(lower);
      upper = std::floor(upper);
      if (lower > upper) return false;
      glp_set_col_kind(p, j + 1, GLP_IV);
    }
    glp_set_col_bnds(p, j + 1, boundType(lower, upper), lower, upper);
  }
  std::vector<int> index;
  std::vector<double> value;
  if (!m.rows.empty()) glp_add_rows(p, static_cast<int>(m.rows.size()));
  for (std::size_t i = 0; i < m.rows.size(); ++i) {
    const Row& r = m.rows[i];
    const int row = static_cast<int>(i) + 1;
    glp_set_row_bnds(p, row, boundType(r.lower, r.upper), r.lower, r.upper);
    rules::mergeTerms(r.terms, index, value, 1);
    index.insert(index.begin(), 0);  // GLPK reads its arrays from element 1
    value.insert(value.begin(), 0);
    glp_set_mat_row(p, row, static_cast<int>(index.size()) - 1, index.data(), value.data());
  }
  if (zeroObjective) return true;
  glp_set_obj_coef(p, 0, m.objective.constant);
  rules::mergeTerms(m.objective.terms, index, value, 1);
  for (std::size_t k = 0; k < index.size(); ++k) glp_set_obj_coef(p, index[k], value[k]);
  return true;
}

// What the branch-and-cut call-back needs.
struct CallbackState {
  const MilpModel& model;
  const SolveOptions& options;
  Clock::time_point start;
  ProgressReporter& progress;
  std::vector<double> start1;  // a full, feasible start, from element 1; empty when there is none
  bool startOffered = false;
  bool timedOut = false;
  bool nodeLimited = false;
};

void callback(glp_tree* tree, void* info) {
  auto& s = *static_cast<CallbackState*>(info);
  if (s.progress.stopping()) return glp_ios_terminate(tree);
  // tm_lim was set when the search began; the caller's limit counts from its call.
  if (rules::secondsSince(s.start) >= s.options.timeLimitSeconds) {
    s.timedOut = true;
    return glp_ios_terminate(tree);
  }
  if (glp_ios_reason(tree) == GLP_IHEUR && !s.startOffered && !s.start1.empty()) {
    s.startOffered = true;
    glp_ios_heur_sol(tree, s.start1.data());  // refused when no better than the incumbent: nothing to do
  }
  glp_prob* p = glp_ios_get_prob(tree);
  std::optional<double> incumbent;
  if (glp_mip_status(p) == GLP_FEAS || glp_mip_status(p) == GLP_OPT) incumbent = glp_mip_obj_val(p);
  const int best = glp_ios_best_node(tree);
  const double bound = best ? glp_ios_node_bound(tree, best) : -kInf;
  int active = 0, alive = 0, total = 0;
  glp_ios_tree_size(tree, &active, &alive, &total);
  s.progress.observe(incumbent, bound, total, false);
  if (s.options.maxNodes > 0 && total >= s.options.maxNodes) {
    s.nodeLimited = true;
    glp_ios_terminate(tree);
  }
}

// A full start that satisfies the model, rounded and from element 1, or empty.
std::vector<double> offerableStart(const MilpModel& m) {
  const std::vector<double> x = rules::startValues(m);
  if (!rules::isFullStart(x) || !evaluate(m, x).feasible()) return {};
  const SolveResult rounded = rules::withValues(m, x.data());
  std::vector<double> out{0};
  out.insert(out.end(), rounded.values.begin(), rounded.values.end());
  return out;
}

int milliseconds(double seconds) {
  return static_cast<int>(std::clamp(std::ceil(seconds * 1e3), 1.0, static_cast<double>(INT_MAX)));
}

SolveResult unsolved(StopReason stop) {
  SolveResult r;
  r.stop = stop;
  return r;
}

// Simplex iterations between two looks at the cancel flag in the root LP (a few milliseconds each).
constexpr int kRootLpSlice = 200;

// The root LP (glp_intopt without its presolver needs it solved). nullopt when it is optimal.
std::optional<SolveResult> solveRoot(glp_prob* p, const SolveOptions& o, Clock::time_point start,
                                     int messages) {
  glp_smcp lp;
  glp_init_smcp(&lp);
  lp.msg_lev = messages;
  // glp_simplex has no call-back: it runs in slices of iterations, each continuing from the basis the last
  // one left, so that a cancel is heard between them (a large model's root LP took 2 s).
  lp.it_lim = kRootLpSlice;
  int code = GLP_EITLIM;
  while (code == GLP_EITLIM) {
    if (rules::cancelRequested(o)) return unsolved(StopReason::Cancelled);
    lp.tm_lim = milliseconds(o.timeLimitSeconds - rules::secondsSince(start));
    code = glp_simplex(p, &lp);
  }
  if (code == GLP_ETMLIM) return unsolved(StopReason::TimeLimit);
  if (code != 0)
    throw std::runtime_error("glpk: the root LP failed (glp_simplex code " + std::to_string(code) + ")");
  SolveResult r;
  switch (glp_get_status(p)) {
    case GLP_OPT:
      return std::nullopt;
    case GLP_NOFEAS:
      r.status = SolveStatus::Infeasible;
      return r;
    case GLP_UNBND:
      r.status = SolveStatus::Unbounded;
      return r;  // of the relaxation: the rules decide
    default:
      throw std::runtime_error("glpk: the root LP ended without a verdict");
  }
}

// The root LP and glp_intopt; GLPK's messages at level `messages`. Frees GLPK's environment.
SolveResult branchAndCut(const MilpModel& m, const SolveOptions& o, Clock::time_point start,
                         bool zeroObjective, int messages) {
  Problem problem;
  glp_prob* p = problem.p;
  if (!load(m, p, zeroObjective)) {
    SolveResult r;
    r.status = SolveStatus::Infeasible;
    return r;
  }
  if (auto root = solveRoot(p, o, start, messages)) return *root;
  ProgressReporter progress(o, start, 0);  // GLPK's values include the objective constant
  CallbackState state{m, o, start, progress, zeroObjective ? std::vector<double>{} : offerableStart(m)};
  glp_iocp mip;
  glp_init_iocp(&mip);
  mip.msg_lev = messages;
  mip.tm_lim = milliseconds(o.timeLimitSeconds - rules::secondsSince(start));
  mip.mip_gap = o.relativeGap;  // GLPK's gap divides by |incumbent| as relativeGap() does
  mip.gmi_cuts = mip.mir_cuts = mip.cov_cuts = mip.clq_cuts = GLP_ON;
  mip.cb_func = callback;
  mip.cb_info = &state;
  const int code = glp_intopt(p, &mip);
  progress.rethrowCallbackError();

  const int status = glp_mip_status(p);
  const bool found = status == GLP_OPT || status == GLP_FEAS;
  SolveResult r;
  if (found) {
    std::vector<double> x(m.variables.size());
    for (std::size_t j = 0; j < x.size(); ++j) x[j] = glp_mip_col_val(p, static_cast<int>(j) + 1);
    r = rules::withValues(m, x.data());
  }
  r.nodes = progress.nodes();
  r.bestBound = progress.bound();
  if (progress.cancelled()) {
    r.stop = StopReason::Cancelled;
  } else if (code == GLP_ETMLIM || state.timedOut) {
    r.stop = StopReason::TimeLimit;
  } else if (code == GLP_EMIPGAP) {
    r.stop = StopReason::GapReached;
  } else if (state.nodeLimited) {
    r.stop = StopReason::NodeLimit;
  } else if (code != 0 && code != GLP_ESTOP) {
    throw std::runtime_error("glpk: branch and cut failed (glp_intopt code " + std::to_string(code) + ")");
  } else if (status == GLP_OPT) {
    r.status = SolveStatus::Optimal;
  } else if (status == GLP_NOFEAS) {
    r.status = SolveStatus::Infeasible;
  }
  if (found && r.status == SolveStatus::NoSolution) r.status = SolveStatus::Feasible;
  return r;
}

// GLPK's terminal output to the caller's log (`info`: the LogSink); 1: not to stdout.
int termHook(void* info, const char* text) {
  static_cast<rules::LogSink*>(info)->write(text);
  return 1;
}

// One solve of the root LP and the branch and cut (solve_rules.h: Search), GLPK's output to the log.
SolveResult glpkSearch(const MilpModel& m, const SolveOptions& o, Clock::time_point start,
                       bool zeroObjective) {
  rules::LogSink log(o);
  const bool logging = o.logLevel > 0 || log.enabled();
  glp_term_out(logging ? GLP_ON : GLP_OFF);
  if (log.enabled()) glp_term_hook(termHook, &log);  // gone with the environment branchAndCut frees
  const SolveResult r = branchAndCut(m, o, start, zeroObjective, logging ? GLP_MSG_ON : GLP_MSG_OFF);
  log.finish(r, rules::secondsSince(start));
  return r;
}

class GlpkSolver final : public IMilpSolver {
 public:
  std::string_view name() const override { return "glpk"; }
  SolveResult solve(const MilpModel& m, const SolveOptions& o) const override {
    return rules::solveWithRules(m, o, glpkLock(), glpkSearch);
  }
};

}  // namespace

std::unique_ptr<IMilpSolver> makeGlpkSolver() { return std::make_unique<GlpkSolver>(); }

}  // namespace pim::milp

#endif  // PIMSCOPE_HAVE_GLPK
