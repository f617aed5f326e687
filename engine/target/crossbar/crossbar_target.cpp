// SPDX-License-Identifier: Apache-2.0
#include "engine/target/crossbar/crossbar_target.h"

#include <variant>

#include "engine/common/error.h"
#include "engine/hw/backend.h"
#include "engine/target/conv_recognition.h"
#include "engine/target/crossbar/core_statistics.h"
#include "engine/target/crossbar/crossbar_backend.h"
#include "engine/target/crossbar/layer_candidates.h"
#include "engine/target/crossbar/layer_evaluation.h"

namespace pim {
namespace {

class CrossbarTarget final : public ITarget {
 public:
  CrossbarTarget() : m_schema(crossbarSchema()) {}
  std::string_view family() const override { return "crossbar"; }
  std::string_view description() const override {
    return "crossbar (RRAM) accelerators holding a whole network's weights in their arrays, compiled "
           "PIMCOMP-style: whole networks with pimscope-cli compile, a conv or FC kernel as a one-layer "
           "network";
  }
  const BackendSchema& schema() const override { return m_schema; }
  bool compilesNetworks() const override { return true; }

  using ITarget::check;
  std::vector<std::string> check(const Backend& b, const Kernel& k) const override {
    const auto pattern = recogniseConv(k);
    if (const auto* why = std::get_if<std::string>(&pattern)) return {notOneLayer(*why, b)};
    return {};
  }
  std::vector<std::string> checkProblem(const Problem& p) const override {
    return crossbarLayerContext(p).reasons();
  }

  std::unique_ptr<ICandidateSpace> candidates(const Problem& p, std::vector<bool>,
                                              const PruneRuleRegistry& rules) const override {
    return makeLayerCompileSpace(p, rules);
  }
  Evaluation evaluate(const Problem& p, const Draft& d, const EvalOptions& o) const override {
    return layerEvaluation(crossbarLayerContext(p).compile(d.id, o.sim.crossbarTiming, nullptr, o.cancel),
                           d.id, o);
  }
  std::string listing(const Problem& p, const Draft& d, const EvalOptions& asked,
                      std::size_t maxLines) const override {
    EvalOptions o = asked;
    o.keepUnitStats = false;
    return analyseLayer(crossbarLayerContext(p), d.id, o, maxLines).listing;
  }
  /// No tile mapping or placement of DCC's kind: the compiled program stands for the listing, and one
  /// compile gives the evaluation with its per-core statistics.
  CandidateAnalysis analyse(const Problem& p, const Draft& d, const EvalOptions& o) const override {
    CandidateAnalysis a;
    try {
      const CrossbarLayerContext& c = crossbarLayerContext(p);
      a.ir = choiceText(c.choice(d.id));
      LayerAnalysis compiled = analyseLayer(c, d.id, o, 400);
      a.listing = std::move(compiled.listing);
      a.evaluation = std::move(compiled.evaluation);
    } catch (const std::exception& e) {
      a.error = e.what();
    }
    return a;
  }
  /// PIMCOMP-NN's own compile: HT, im2col, balance (candidate 0).
  Baseline vendor(const Problem& p, const EvalOptions& o) const override {
    Baseline b{"vendor",     false, {}, "PIMCOMP-NN's default: HT, im2col, balance replication (candidate 0)",
               Draft{0, {}}, {}};
    try {
      b.eval = layerEvaluation(crossbarLayerContext(p).compile(0, o.sim.crossbarTiming), 0, o);
      b.available = true;
    } catch (const InputError& e) {
      b.reason = e.what();
      b.draft.reset();
    }
    return b;
  }
  Baseline gpu(const Problem&) const override {
    return {"gpu", false, "a crossbar accelerator models no host GPU", "", {}, {}};
  }
  // core.outOfOrder, chip.synchronousCommunication and the MVM's parts are read by the intended timing mode
  // (the pimcomp-nn mode runs PIMCOMP-NN's patterns and 800-ns MVM whatever they say); the mode is a run
  // setting (SimSettings::crossbarTiming), not part of the backend, so they are not unread: the what-if
  // form must let them be edited for an intended run.
  std::vector<UnreadParameter> unreadParameters(const Backend&) const override {
    return {{"chip.globalMemoryBytes", "reported with the backend; no schedule is bounded by global memory"}};
  }
  /// The accelerator's X x Y grid of cores (rows of X cores), each chip a band of whole rows; exported by
  /// chip and core within the chip. Chips that do not hold whole rows: chips x cores per chip.
  UnitGeometry geometry(const Backend& b) const override {
    const crossbar::Accelerator a = acceleratorOf(b);
    const auto perChip = static_cast<int>(a.cores() / a.chips);
    if (perChip % a.coresX != 0)
      return UnitGeometry::grid("chip", "core", static_cast<int>(a.chips), perChip);
    UnitGeometry g =
        UnitGeometry::grid("core row", "core", static_cast<int>(a.coresY), static_cast<int>(a.coresX));
    g.bands = {{"chip", perChip / static_cast<int>(a.coresX)}};
    g.bandKey = "chip";
    g.unitKey = "core";
    return g;
  }
  const std::vector<StatDecl>& statistics() const override { return crossbarCoreStatistics(); }
  const std::vector<SubPhaseDecl>& subPhases() const override { return crossbarSubPhases(); }
  const std::vector<StatDecl>& factColumns() const override { return crossbarFactColumns(); }
  SearchSettings searchSettings() const override {
    return {.residency = false,
            .pruneRules = false,
            .dccLowering = false,
            .labelModels = false,
            .crossbarTiming = true};
  }
  // 2: a conv or FC kernel compiles as a one-layer network (1 refused every kernel).
  int modelVersion() const override { return 2; }

 private:
  BackendSchema m_schema;
};

}  // namespace

std::unique_ptr<ITarget> makeCrossbarTarget() { return std::make_unique<CrossbarTarget>(); }

}  // namespace pim
