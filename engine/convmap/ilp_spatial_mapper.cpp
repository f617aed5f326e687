// SPDX-License-Identifier: Apache-2.0
// `ilp-spatial`: the MILP split by level 0's spatial assignment (docs/convmap.md "The MILP per spatial
// assignment"). Every mapping has exactly one spatial assignment (its H, W and Internal factors), and the
// analytic bound gives each a bound of its own. With one fixed the MILP loses those choices and CBC solves
// what it cannot whole (ResNet-18's stage-4 3 x 3 layer: an assignment in 10-20 s; the whole MILP moves no
// bound in 400 nodes). So: the heuristic's mapping as the incumbent, then the assignments best first (least
// bound: an unsolved one's analytic bound, an open one's last solve's), each MILP cut off above the
// incumbent, until the least bound is no better than the incumbent, which proves it optimal. In a
// relaxation (latency, the blend, a latency bound) a solve's optimum may decode to a mapping that breaks the
// bound or costs more than the relaxation says; that mapping is excluded and the assignment goes back with
// the solve's bound. Stopped earlier (time, cancel, gap), the proven bound is the least over the assignments
// not closed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/convmap/lower_bound.h"
#include "engine/convmap/mapper.h"
#include "engine/convmap/mapping_milp.h"
#include "engine/convmap/milp_solve.h"

namespace pim::convmap {

namespace {

/// Relaxed optima of one assignment excluded at most (each a solve of its own; on ResNet-18's stage-4
/// shortcut under latency thousands of mappings lie below the relaxation's optimum, so it must stop).
constexpr int kMaxExcludedMappings = 16;

/// An assignment solved but not closed, to be solved again without the mappings it gave so far.
struct OpenAssignment {
  double bound = 0;           // proven: no mapping of it but the excluded ones costs less
  std::size_t candidate = 0;  // index into the candidates, least analytic bound first
  std::vector<ConvMapping> excluded;
};
bool looser(const OpenAssignment& a, const OpenAssignment& b) { return a.bound > b.bound; }  // min-heap

/// One run of the split, best first: the next assignment is whichever has the least bound, an unsolved
/// one by its analytic bound or an open one by what its last solve proved. The incumbent, what is proven
/// about the assignments walked so far, and the clock.
class SpatialSplit {
 public:
  SpatialSplit(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
               std::vector<SpatialCandidate> candidates, MapResult start,
               const std::function<void(const MapProgress&)>& progress)
      : layer_(layer),
        h_(h),
        o_(o),
        candidates_(std::move(candidates)),
        best_(std::move(start)),
        progress_(progress),
        began_(std::chrono::steady_clock::now() -
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(best_.seconds))) {}

  MapResult run() {
    // Until proven, out of time or cancelled, or nothing is left to solve (the stuck ones keep their bounds).
    while (!proven(leastBound()) && (next_ < candidates_.size() || !open_.empty()) &&
           o_.timeLimitSeconds - elapsed() >= kLeastMilpSeconds && !(o_.cancel && o_.cancel->load())) {
      if (nextBound() <= openBound()) {
        ++solved_;
        solve({candidates_[next_].bound, next_, {}});
        ++next_;
      } else {
        std::pop_heap(open_.begin(), open_.end(), looser);
        OpenAssignment a = std::move(open_.back());
        open_.pop_back();
        solve(std::move(a));
      }
    }
    return finished();
  }

 private:
  double nextBound() const {
    return next_ < candidates_.size() ? candidates_[next_].bound : std::numeric_limits<double>::infinity();
  }
  double openBound() const {
    return open_.empty() ? std::numeric_limits<double>::infinity() : open_.front().bound;
  }
  /// The least objective a mapping not yet found may have: over the unsolved, open and stuck assignments.
  double leastBound() const { return std::min({nextBound(), openBound(), stuck_}); }
  bool proven(double b) const {
    return b >= best_.objective * (1 - 1e-12) || withinGap(o_, best_.objective, b);
  }
  /// The assignments that may hold a better mapping than the incumbent, by their analytic bounds.
  std::size_t belowBest() const {
    return static_cast<std::size_t>(
        std::lower_bound(candidates_.begin(), candidates_.end(), best_.objective,
                         [](const SpatialCandidate& c, double v) { return c.bound < v; }) -
        candidates_.begin());
  }
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count();
  }

  /// Solves assignment `a` once. In a relaxation, an optimum whose mapping breaks the latency bound or costs
  /// more than the relaxation says closes nothing, but that mapping is then accounted for (the evaluator's
  /// cost is the incumbent's to beat), so the assignment goes back among the open ones with that mapping
  /// excluded and the solve's bound, up to kMaxExcludedMappings times; after that its bound stays.
  void solve(OpenAssignment a) {
    const SpatialCandidate& c = candidates_[a.candidate];
    auto milp = buildMappingMilp(layer_, h_, {o_.objective, o_.maxLatencyCycles});
    fixSpatial(milp, c.factors);
    // Only a mapping no worse than the incumbent matters; the cut-off lets CBC prune against it at once.
    cutOffAbove(milp, best_.objective * (1 + 1e-9));
    for (const ConvMapping& m : a.excluded) excludeMapping(milp, m);
    if (spatialOf(best_.mapping) == c.factors &&
        std::find(a.excluded.begin(), a.excluded.end(), best_.mapping) == a.excluded.end())
      milp.model.start = mappingValues(milp, best_.mapping);
    const auto s = solveOnce(milp, a);
    const auto m = decoded(milp, s, layer_, h_, o_);
    if (m && feasible(o_, m->cost) && m->objective < best_.objective) {
      best_.mapping = m->mapping;
      best_.cost = m->cost;
      best_.objective = m->objective;
      best_.bestSoFar.push_back(best_.objective);
    }
    // Closed: nothing of this assignment (but the mappings excluded) beats the incumbent, or its best is
    // known: in a relaxation only when its mapping keeps the bound and costs what the relaxation says.
    if (s.status == milp::SolveStatus::Infeasible ||
        (s.status == milp::SolveStatus::Optimal &&
         (milp.exact || (m && feasible(o_, m->cost) && m->objective <= s.objective * (1 + 1e-9)))))
      return;
    a.bound = std::max(a.bound, std::isfinite(s.bestBound) ? s.bestBound : a.bound);
    if (s.status != milp::SolveStatus::Optimal || !m ||
        static_cast<int>(a.excluded.size()) + 1 >= kMaxExcludedMappings) {
      stuck_ = std::min(stuck_, a.bound);
      return;
    }
    a.excluded.push_back(m->mapping);
    open_.push_back(std::move(a));
    std::push_heap(open_.begin(), open_.end(), looser);
  }

  /// One solve of `a`'s MILP in the time left, reporting on the whole split.
  milp::SolveResult solveOnce(const MappingMilp& milp, const OpenAssignment& a) {
    MapOptions sub = o_;
    sub.timeLimitSeconds = o_.timeLimitSeconds - elapsed();
    std::function<void(const MapProgress&)> report;
    if (progress_)
      report = [&](const MapProgress& p) {
        MapProgress q = p;
        q.incumbent = std::min(best_.objective, p.incumbent.value_or(best_.objective));
        q.bound = std::min({best_.objective, leastBound(), std::max(a.bound, p.bound.value_or(a.bound))});
        q.nodes = nodes_ + p.nodes.value_or(0);
        q.seconds = elapsed();
        q.stage =
            stage() + ", assignment " + std::to_string(a.candidate + 1) + " of the " +
            std::to_string(belowBest()) + " whose bound is below the best (" +
            std::to_string(candidates_.size()) + " in all)" +
            (a.excluded.empty() ? ""
                                : ", " + std::to_string(a.excluded.size()) + " of its mappings excluded");
        progress_(q);
      };
    auto s = milp::makeSolver(o_.solver)->solve(milp.model, solveOptions(sub, milp.exact, report));
    nodes_ += s.nodes;
    ++solves_;
    return s;
  }

  std::string stage() const { return "ilp-spatial (" + o_.solver + ")"; }

  MapResult finished() {
    const double b = leastBound();
    const bool optimal = b >= best_.objective * (1 - 1e-12);
    best_.status = optimal ? "optimal" : "feasible";
    best_.bound = optimal ? best_.objective : b;
    best_.gap = best_.objective > 0 ? (best_.objective - *best_.bound) / best_.objective : 0.0;
    best_.boundSource = "MILP per spatial assignment (" + o_.solver + "; " + std::to_string(solved_) +
                        " of " + std::to_string(candidates_.size()) + " solved, the rest by their bounds)";
    best_.mapper += " + " + stage();
    best_.nodes = nodes_;
    best_.evaluated += solves_;
    best_.valid += solves_;
    best_.seconds = elapsed();
    return std::move(best_);
  }

  const ConvLayer& layer_;
  const Hierarchy& h_;
  const MapOptions& o_;
  const std::vector<SpatialCandidate> candidates_;
  MapResult best_;
  const std::function<void(const MapProgress&)>& progress_;
  std::chrono::steady_clock::time_point began_;
  std::size_t next_ = 0;                                    // the first assignment not yet solved
  std::vector<OpenAssignment> open_;                        // a min-heap by bound
  double stuck_ = std::numeric_limits<double>::infinity();  // least bound of those not to be solved again
  std::int64_t nodes_ = 0;
  int solved_ = 0;  // assignments solved at least once
  int solves_ = 0;  // MILPs solved
};

class IlpSpatialMapper final : public IConvMapper {
 public:
  std::string name() const override { return "ilp-spatial"; }
  std::string description() const override {
    return "the MILP once per spatial assignment (the PE array's use), best first, each cut "
           "off above the best mapping so far: proves optima the whole MILP cannot reach on 3 x 3 layers";
  }
  MapResult solve(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                  const std::function<void(const MapProgress&)>& progress) const override {
    requireFits(layer, h);
    requireMilp(o);
    bool complete = false;
    auto candidates = leastBoundSpatials(layer, h, o.objective,
                                         static_cast<std::size_t>(kMaxBoundSpatialAssignments), &complete);
    if (!complete)
      throw InputError(candidates.empty()
                           ? "ilp-spatial: layer " + layer.name + ": no spatial assignment fits the PE array"
                           : "ilp-spatial: layer " + layer.name + " has more than " +
                                 std::to_string(kMaxBoundSpatialAssignments) +
                                 " spatial assignments to split by (use --mapper ilp)");
    auto start = startOf(layer, h, o, progress);
    if (start.status == "optimal") return start;
    return SpatialSplit(layer, h, o, std::move(candidates), std::move(start), progress).run();
  }

 private:
  /// As `ilp`: under energy alone MapOptions::start when it is valid; otherwise the heuristic's mapping (a
  /// share of the time limit, at most its proposal budget, from the start if given), since a relaxed
  /// MILP's own mappings may break the latency it does not see whole.
  static MapResult startOf(const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                           const std::function<void(const MapProgress&)>& progress) {
    const bool energyAlone = o.objective.kind == Objective::Energy && !o.maxLatencyCycles;
    if (energyAlone && o.start && isValid(layer, h, *o.start)) {
      MapResult r;
      r.mapper = "start";
      r.mapping = *o.start;
      r.cost = evaluate(layer, h, r.mapping);
      r.objective = objectiveValue(o.objective, r.cost);
      r.status = "feasible";
      r.evaluated = r.valid = 1;
      r.bestSoFar.push_back(r.objective);
      return r;
    }
    MapOptions first = o;
    first.timeLimitSeconds = o.timeLimitSeconds * kMilpHeuristicShare;
    return makeMapper("heuristic")->solve(layer, h, first, progress);
  }
};

}  // namespace

std::unique_ptr<IConvMapper> makeIlpSpatialMapper() { return std::make_unique<IlpSpatialMapper>(); }

}  // namespace pim::convmap
