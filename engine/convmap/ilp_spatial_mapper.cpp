// SPDX-License-Identifier: Apache-2.0
// `ilp-spatial`: the MILP split by level 0's spatial assignment (docs/convmap.md "The MILP per spatial
// assignment"). Every mapping has exactly one spatial assignment (its H, W and Internal factors), and the
// analytic bound gives each a bound of its own. With one fixed the MILP loses those choices and CBC solves
// what it cannot whole (ResNet-18's stage-4 3 x 3 layer: an assignment in 10-20 s; the whole MILP moves no
// bound in 400 nodes). So: the heuristic's mapping as the incumbent, then each assignment least bound first,
// its MILP cut off above the incumbent, until the next assignment's bound is no better than the incumbent,
// which proves it optimal. Stopped earlier (time, cancel, gap), the proven bound is the least over the
// assignments not closed: a solved one's solver bound, an unsolved one's own analytic bound.
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

/// One run of the split: the incumbent, what is proven about the assignments walked so far, and the clock.
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
    for (; next_ < candidates_.size(); ++next_) {
      if (proven(candidates_[next_].bound) || o_.timeLimitSeconds - elapsed() < kLeastMilpSeconds ||
          (o_.cancel && o_.cancel->load()))
        break;
      solveOne(candidates_[next_]);
    }
    return finished();
  }

 private:
  /// The least objective a mapping may have, with the assignment being solved bounded by `current`.
  double bound(double current) const {
    double b = std::min({best_.objective, open_, current});
    if (next_ + 1 < candidates_.size()) b = std::min(b, candidates_[next_ + 1].bound);
    return b;
  }
  bool proven(double nextBound) const {
    const double b = std::min(open_, nextBound);
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

  void solveOne(const SpatialCandidate& c) {
    auto milp = buildMappingMilp(layer_, h_, {o_.objective, o_.maxLatencyCycles});
    fixSpatial(milp, c.factors);
    // Only a mapping no worse than the incumbent matters; the cut-off lets CBC prune against it at once.
    cutOffAbove(milp, best_.objective * (1 + 1e-9));
    if (spatialOf(best_.mapping) == c.factors) milp.model.start = mappingValues(milp, best_.mapping);
    MapOptions sub = o_;
    sub.timeLimitSeconds = o_.timeLimitSeconds - elapsed();
    std::function<void(const MapProgress&)> report;
    if (progress_)
      report = [&](const MapProgress& p) {
        MapProgress q = p;
        q.incumbent = std::min(best_.objective, p.incumbent.value_or(best_.objective));
        q.bound = bound(std::max(c.bound, p.bound.value_or(c.bound)));
        q.nodes = nodes_ + p.nodes.value_or(0);
        q.seconds = elapsed();
        q.stage = stage() + ", assignment " + std::to_string(next_ + 1) + " of the " +
                  std::to_string(belowBest()) + " whose bound is below the best (" +
                  std::to_string(candidates_.size()) + " in all)";
        progress_(q);
      };
    const auto s = milp::makeSolver(o_.solver)->solve(milp.model, solveOptions(sub, milp.exact, report));
    nodes_ += s.nodes;
    ++solved_;
    const auto m = decoded(milp, s, layer_, h_, o_);
    if (m && feasible(o_, m->cost) && m->objective < best_.objective) {
      best_.mapping = m->mapping;
      best_.cost = m->cost;
      best_.objective = m->objective;
      best_.bestSoFar.push_back(best_.objective);
    }
    // Closed: nothing of this assignment beats the incumbent, or its best is known. In a relaxation an
    // optimum is that assignment's best only when its mapping costs what the relaxation says and keeps
    // the latency bound the relaxation sees only in part.
    const bool closed =
        s.status == milp::SolveStatus::Infeasible ||
        (s.status == milp::SolveStatus::Optimal &&
         (milp.exact || (m && feasible(o_, m->cost) && m->objective <= s.objective * (1 + 1e-9))));
    if (!closed)
      open_ = std::min(open_, std::max(c.bound, std::isfinite(s.bestBound) ? s.bestBound : c.bound));
  }

  std::string stage() const { return "ilp-spatial (" + o_.solver + ")"; }

  MapResult finished() {
    const double b = next_ < candidates_.size() ? std::min(open_, candidates_[next_].bound) : open_;
    const bool optimal = b >= best_.objective * (1 - 1e-12);
    best_.status = optimal ? "optimal" : "feasible";
    best_.bound = optimal ? best_.objective : b;
    best_.gap = best_.objective > 0 ? (best_.objective - *best_.bound) / best_.objective : 0.0;
    best_.boundSource = "MILP per spatial assignment (" + o_.solver + "; " + std::to_string(solved_) +
                        " of " + std::to_string(candidates_.size()) + " solved, the rest by their bounds)";
    best_.mapper += " + " + stage();
    best_.nodes = nodes_;
    best_.evaluated += solved_;
    best_.valid += solved_;
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
  std::size_t next_ = 0;                                   // the first assignment not yet solved
  double open_ = std::numeric_limits<double>::infinity();  // least bound of the solved, not closed
  std::int64_t nodes_ = 0;
  int solved_ = 0;
};

class IlpSpatialMapper final : public IConvMapper {
 public:
  std::string name() const override { return "ilp-spatial"; }
  std::string description() const override {
    return "the MILP once per spatial assignment (the PE array's use), least analytic bound first, each cut "
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
    if (energyAlone && o.start && violations(layer, h, *o.start).empty()) {
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
