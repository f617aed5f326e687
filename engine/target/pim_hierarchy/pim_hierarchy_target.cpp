// SPDX-License-Identifier: Apache-2.0
#include "engine/target/pim_hierarchy/pim_hierarchy_target.h"

#include <variant>

#include "engine/convmap/evaluator.h"
#include "engine/target/conv_recognition.h"
#include "engine/target/pim_hierarchy/hierarchy_backend.h"
#include "engine/target/pim_hierarchy/hierarchy_evaluation.h"
#include "engine/target/pim_hierarchy/mapping_candidates.h"

namespace pim {
namespace {

namespace cm = convmap;

/// The estimate is the model itself: it is exact and takes microseconds (2.5-400 us a mapping), so it ranks
/// and screens with no trained model. Features: the model's own figures.
class HierarchyEstimator final : public ICandidateEstimator {
 public:
  explicit HierarchyEstimator(const HierarchyContext& c) : m_c(c) {}
  void features(const Draft& d, std::vector<float>& out) const override {
    const cm::ConvCost c = cost(d);
    out.insert(out.end(), {static_cast<float>(c.latencyCycles), static_cast<float>(c.computeCycles),
                           static_cast<float>(c.energyPj), static_cast<float>(c.rowActs.total())});
  }
  CandidateEstimate estimate(const Draft& d) const override {
    const cm::ConvCost c = cost(d);
    return {static_cast<float>(static_cast<double>(c.latencyCycles) / m_c.hierarchy().pe.frequencyGhz),
            static_cast<float>(c.computeCycles)};
  }

 private:
  cm::ConvCost cost(const Draft& d) const {
    return cm::evaluate(m_c.layer(), m_c.hierarchy(), m_c.mapping(d.id));
  }
  const HierarchyContext& m_c;
};

class PimHierarchyTarget final : public ITarget {
 public:
  PimHierarchyTarget() : m_schema(pimHierarchySchema()) {}
  std::string_view family() const override { return "pim-hierarchy"; }
  std::string_view description() const override {
    return "a conv or FC layer on a PE array under PE buffers, buffers, a row buffer and DRAM: PIM "
           "Optimizer's exact model of tiling, loop order, bypass and DRAM layout (docs/convmap.md)";
  }
  const BackendSchema& schema() const override { return m_schema; }

  using ITarget::check;
  std::vector<std::string> check(const Backend&, const Kernel& k) const override {
    const auto pattern = recogniseConv(k);
    if (const auto* why = std::get_if<std::string>(&pattern)) return {*why};
    return {};
  }
  std::vector<std::string> checkProblem(const Problem& p) const override {
    return hierarchyContext(p).reasons();
  }

  std::unique_ptr<ICandidateSpace> candidates(const Problem& p, std::vector<bool>,
                                              const PruneRuleRegistry& rules) const override {
    return makeMappingSpace(p, rules);
  }
  std::vector<LimitViolation> violations(const Problem& p, const Draft& d) const override {
    const HierarchyContext& c = hierarchyContext(p);
    return cm::violations(c.layer(), c.hierarchy(), c.mapping(d.id));
  }
  Evaluation evaluate(const Problem& p, const Draft& d, const EvalOptions& o) const override {
    const HierarchyContext& c = hierarchyContext(p);
    return hierarchyEvaluation(c, c.mapping(d.id), d.id, o);
  }
  std::string listing(const Problem& p, const Draft& d, const EvalOptions&,
                      std::size_t maxLines) const override {
    const HierarchyContext& c = hierarchyContext(p);
    return hierarchyListing(c, c.mapping(d.id), maxLines);
  }
  /// No tile mapping or placement of DCC's kind: the loop nest stands for the IR, and a mapping without
  /// per-bank statistics says why in `error` (the heat map shows it).
  CandidateAnalysis analyse(const Problem& p, const Draft& d, const EvalOptions& o) const override {
    CandidateAnalysis a;
    try {
      const HierarchyContext& c = hierarchyContext(p);
      const cm::ConvMapping& m = c.mapping(d.id);
      a.ir = cm::loopNestText(c.hierarchy(), m);
      a.listing = hierarchyListing(c, m, 400);
      a.evaluation = hierarchyEvaluation(c, m, d.id, o, &a.error);
    } catch (const std::exception& e) {
      a.error = e.what();
    }
    return a;
  }

  Baseline vendor(const Problem& p, const EvalOptions& o) const override {
    Baseline b{"vendor",     false, {}, "every loop in DRAM (the trivial mapping, candidate 0)",
               Draft{0, {}}, {}};
    try {
      const HierarchyContext& c = hierarchyContext(p);
      b.eval = hierarchyEvaluation(c, cm::trivialMapping(c.layer(), c.hierarchy()), 0, o);
      b.available = true;
    } catch (const InputError& e) {
      b.reason = e.what();
      b.draft.reset();
    }
    return b;
  }
  Baseline gpu(const Problem&) const override {
    return {"gpu", false, "a conv-mapping hierarchy models no host GPU", "", {}, {}};
  }
  std::vector<UnreadParameter> unreadParameters(const Backend&) const override {
    const char* why = "reported with the hierarchy; the model charges DRAM by bandwidth and tRCD + tRP";
    return {{"dram_timing.RL", why},
            {"dram_timing.WL", why},
            {"dram_timing.BL", why},
            {"dram_timing.tCCDL", why},
            {"dram_timing.column_bits", why}};
  }

  UnitGeometry geometry(const Backend&) const override {
    return UnitGeometry::grid("time slice", "bank", kTraceSlices, kTraceBanks);
  }
  const std::vector<StatDecl>& statistics() const override { return hierarchyStatistics(); }
  const std::vector<SubPhaseDecl>& subPhases() const override { return hierarchySubPhases(); }
  const std::vector<StatDecl>& factColumns() const override { return hierarchyFactColumns(); }
  // Every tensor starts in DRAM in its chosen layout and the mapper's space is not DCC's: none of DCC's
  // settings applies.
  SearchSettings searchSettings() const override {
    return {.residency = false, .pruneRules = false, .dccLowering = false, .labelModels = false};
  }
  bool prepare(const Problem& p, const PrepareControl& control) const override {
    return hierarchyContext(p).prepare(control);
  }
  const std::vector<std::string>& featureNames() const override {
    static const std::vector<std::string> names = {"latency_cycles", "compute_cycles", "energy_pj",
                                                   "row_activations"};
    return names;
  }
  std::unique_ptr<ICandidateEstimator> estimator(const Problem& p, const OptimizerOptions&) const override {
    return std::make_unique<HierarchyEstimator>(hierarchyContext(p));
  }
  bool estimateRanksUnseenKernels() const override { return true; }  // it is the model, exactly
  bool mapsConvLayers() const override { return true; }
  // 2: the candidate list comes from the heuristic that starts from the bound's array uses (ids moved), and
  // the residency is none (store keys moved).
  int modelVersion() const override { return 2; }

 private:
  BackendSchema m_schema;
};

}  // namespace

std::unique_ptr<ITarget> makePimHierarchyTarget() { return std::make_unique<PimHierarchyTarget>(); }

}  // namespace pim
