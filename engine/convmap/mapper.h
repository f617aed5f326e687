// SPDX-License-Identifier: Apache-2.0
// Conv mappers (docs/convmap.md "Mappers"): each searches the mapspace of one layer on one hierarchy for the
// mapping with the least objective, within a time limit, reporting its incumbent as it goes. One registry,
// filled by registerBuiltinMappers().
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/convmap/evaluator.h"
#include "engine/convmap/pareto.h"

namespace pim::convmap {

struct MapOptions {
  ObjectiveSpec objective;
  double timeLimitSeconds = 10;
  std::uint64_t seed = 1;
  std::int64_t maxEvaluations = 200000;  // heuristic: proposals evaluated at most
  const std::atomic<bool>* cancel = nullptr;
  bool collectFront = false;  // keep the non-dominated mappings seen (latency, energy, row activations)
  /// Stop once the incumbent is proven within this relative gap of the analytic lower bound (0: only when it
  /// meets it). Not while collecting a front, which needs the whole search.
  double gap = 0;
  /// Only mappings of at most this latency count (an epsilon-constraint); none: any.
  std::optional<std::int64_t> maxLatencyCycles;
  /// A warm start: a valid mapping the heuristic anneals from and the exhaustive walk takes as its first
  /// incumbent (ignored when invalid or over maxLatencyCycles); none: the trivial mapping.
  std::optional<ConvMapping> start;
  /// exhaustive: pass over what the walk's bounds show cannot matter (mapping_bound.h); false: evaluate
  /// every mapping (what the tests check the bounds against).
  bool pruneByBounds = true;
  std::string solver = "cbc";  // ilp: the registered MILP solver (engine/milp)
  int threads = 1;             // ilp: the solver's threads
  /// ilp: stop the MILP after this many branch-and-bound nodes (milp::SolveOptions::maxNodes; with one
  /// thread the same answer on every machine); 0: no limit.
  std::int64_t maxNodes = 0;
  /// ilp: the MILP solver's own log, line by line (milp::SolveOptions::onLog); none: no log.
  std::function<void(const std::string&)> solverLog;
};

/// What a mapper reports as it searches (about ten times a second, and on each better mapping of the MILP).
struct MapProgress {
  std::int64_t evaluated = 0, valid = 0;  // mappings proposed or walked, and the valid ones (the MILP: 0)
  std::optional<double> incumbent;        // best objective so far
  double seconds = 0;                     // since the mapper began (a later stage counts the earlier ones)
  std::optional<double> bound;            // a proven lower bound on the objective, when the stage has one
  std::optional<std::int64_t> nodes;      // branch-and-bound nodes (the MILP)
  std::string stage;                      // the search reporting: "heuristic", "exhaustive", "ilp (cbc)"
};

/// A value of the objective with its unit: "464,128 cycles", "46.0676 nJ", "0.8123" (blended, normalised).
std::string objectiveValueText(const ObjectiveSpec& o, double value);
/// A progress report as one line, figures first: "ilp (cbc): best 46.0676 nJ, bound 46.0213 nJ, gap 0.1 % ·
/// 151 nodes · 1.2 s". With `proposalBudget`, the count reads "12,000 of 20,000 mappings evaluated".
std::string progressText(const ObjectiveSpec& o, const MapProgress& p,
                         std::optional<std::int64_t> proposalBudget = std::nullopt);

struct MapResult {
  std::string mapper;
  std::string status;                // "optimal", "feasible", "no mapping" (as a solver reports it)
  std::optional<double> bound, gap;  // proven bound and relative gap (objective - bound) / objective
  std::string boundSource;           // what proves the bound: "exhaustive walk", "analytic lower bound"
  ConvMapping mapping;
  ConvCost cost;
  double objective = 0, seconds = 0;
  std::int64_t evaluated = 0, valid = 0;
  std::optional<std::int64_t> nodes;  // branch-and-bound nodes (ilp)
  std::vector<double> bestSoFar;      // the incumbent after each improvement
  ParetoFront front;  // when MapOptions::collectFront: exact if status is "optimal" (exhaustive)
};

class IConvMapper {
 public:
  virtual ~IConvMapper() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  /// InputError when no valid mapping exists (naming the level and sizes that refuse the layer).
  virtual MapResult solve(const ConvLayer& layer, const Hierarchy& h, const MapOptions& options,
                          const std::function<void(const MapProgress&)>& progress) const = 0;
};

void registerBuiltinMappers();
std::vector<std::string> mapperNames();
/// InputError naming the unknown mapper and the built-in ones.
std::unique_ptr<IConvMapper> makeMapper(const std::string& name);

/// True when the mapper named `mapper` solves a MILP under `objective` (the ilp mappers; `auto`, but under
/// latency alone, and in a front's collection), so that a caller offering a solver choice offers it exactly
/// then.
bool usesMilp(const std::string& mapper, Objective objective);

/// The most mappings `auto` has the exhaustive mapper walk (5 * 10^6, docs/knobs.md; a larger space it
/// searches heuristically), and the exhaustive mapper without its bounds (MapOptions::pruneByBounds).
inline constexpr std::int64_t kMaxExhaustiveMappings = 5'000'000;
/// The most choices of factors the exhaustive mapper takes on (10^9, counted over every place a factor may
/// sit, before the array's limits; docs/knobs.md): a larger space is refused with its size.
inline constexpr double kMaxExhaustiveFactorChoices = 1e9;
/// Whether the exhaustive mapper takes a layer on: at most kMaxExhaustiveFactorChoices choices of factors.
bool exhaustiveTakesOn(const ConvLayer& layer, const Hierarchy& h);
/// Whether the exhaustive mapper would walk at most `limit` mappings for a layer (factor choices x bypass
/// choices x orders, docs/convmap.md "Mappers"); counted without evaluating any.
bool exhaustiveFits(const ConvLayer& layer, const Hierarchy& h, double limit);

/// True when `c` satisfies the options' constraints (maxLatencyCycles).
bool feasible(const MapOptions& o, const ConvCost& c);

/// True when `objective` is within `o.gap` of `bound` and the search may stop (never while collecting a
/// front).
bool withinGap(const MapOptions& o, double objective, double bound);

/// Gives a result that proves nothing itself (a heuristic, a walk stopped early) the analytic lower bound
/// (lower_bound.h) and the gap to it.
void applyAnalyticBound(MapResult& r, const ConvLayer& layer, const Hierarchy& h, const ObjectiveSpec& o);

/// A second search from a first one's mapping (the MILP, the exhaustive walk): its result under the options
/// given (MapOptions::start the first's mapping, the time limit its share), reporting to the progress given.
using SecondStage =
    std::function<MapResult(const MapOptions&, const std::function<void(const MapProgress&)>&)>;
/// `from` refined by `second` for `seconds`, keeping the better mapping and the higher bound; `from` itself
/// when it is proven (optimal, or within MapOptions::gap), less than kLeastMilpSeconds is left or the run
/// was cancelled. The mapper is named "<from's> + <second's>".
MapResult refineWith(MapResult from, const MapOptions& o, double seconds,
                     const std::function<void(const MapProgress&)>& progress, const SecondStage& second);
/// The MILP (`ilp`) from `from`'s mapping for `seconds` (refineWith); named "<from's> + ilp (<solver>)".
MapResult refineWithMilp(MapResult from, const ConvLayer& layer, const Hierarchy& h, const MapOptions& o,
                         double seconds, const std::function<void(const MapProgress&)>& progress);
/// Less time than this is not worth building and starting the MILP.
inline constexpr double kLeastMilpSeconds = 0.5;
/// The share of the time limit the MILP mappers give the heuristic first, for a start (the trivial mapping
/// leaves CBC far from anything good on large layers).
inline constexpr double kMilpHeuristicShare = 0.2;

/// Refuses a layer no mapping can fit, naming the level and sizes (the smallest tiles: one element of every
/// tensor at each level that must keep it). Called by every mapper before it searches.
void requireFits(const ConvLayer& layer, const Hierarchy& h);

}  // namespace pim::convmap
