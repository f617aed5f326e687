// SPDX-License-Identifier: Apache-2.0
// A hardware family as a target. The shape follows Timeloop's model (a spec, a pre-evaluation check that
// gives every reason a problem cannot run, then evaluate) and Ramulator 2's implementations (declared
// parameters and statistics, registered by name). One implementation per family, in its own folder under
// engine/target/, registered by family name in registerBuiltinTargets() (registry.cpp). Nothing outside a
// target's folder branches on a family name: callers and views ask the target.
#pragma once
#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/common/error.h"
#include "engine/core/candidate_space.h"
#include "engine/core/estimator.h"
#include "engine/core/evaluation.h"
#include "engine/core/kernel_choices.h"
#include "engine/core/problem.h"
#include "engine/hw/schema.h"
#include "engine/mapping/bank_layout.h"
#include "engine/mapping/tile_mapping.h"

namespace pim {

/// The units a family keeps statistics for, as a grid of `outerCount` x `innerCount` (pseudo-channels x
/// banks, ranks x DPUs, chips x cores, ...); unit u sits at outer u / innerCount, inner u % innerCount. Outer
/// units may come in bands, finest first (a PIM group's pseudo-channels, then a device's), that views
/// separate by lines. Views draw heat maps, axes and tooltips from it, and exports address units by it.
struct UnitGeometry {
  /// `width` consecutive outer units ("PIM group", 2 pseudo-channels).
  struct Band {
    std::string name;
    int width = 1;
  };
  std::string outerName, innerName;  // singular: "pseudo-channel", "bank"
  int outerCount = 0, innerCount = 0;
  std::vector<Band> bands;  // finest first; each width a multiple of the one before
  /// Keys of a unit's address in exported statistics: its finest band, and its index within that band (outer
  /// units of the band times inner). Without bands they are the outer and inner index.
  std::string bandKey, unitKey;

  /// A plain grid without bands, exported by outer and inner index.
  static UnitGeometry grid(std::string outer, std::string inner, int outers, int inners) {
    UnitGeometry g;
    g.outerName = std::move(outer);
    g.innerName = std::move(inner);
    g.outerCount = outers;
    g.innerCount = inners;
    return g;
  }
  int units() const { return outerCount * innerCount; }
  int unitsPerBand() const { return (bands.empty() ? 1 : std::max(1, bands.front().width)) * innerCount; }
};

/// One statistic kept per unit (Ramulator's register_stat): what it is called, its unit and meaning.
struct StatDecl {
  std::string key;    // "bytes_read"
  std::string label;  // "bytes read"
  std::string unit;   // "bytes", "cycles", "count", "pJ"
  std::string description;
  bool integral = true;  // a counter (exported as an integer), else a real quantity
  /// More is better (a throughput): the Pareto plot's front maximises it on an axis; else it minimises.
  bool higherIsBetter = false;
};

/// A part of one of the three fixed phases that a family times separately (UPMEM's CPU->DPU transfers and
/// launches, a crossbar's MVM and vector work): Evaluation::subCycles holds one figure per declaration, and
/// the sub-phases of one phase add up to at most that phase.
struct SubPhaseDecl {
  std::string key;    // "dpu_kernel"
  std::string label;  // "DPU kernel"
  int phase = 1;      // 0 input rearrangement, 1 compute, 2 output rearrangement
  std::string description;
};

/// A schedule a family's vendor library (or the GPU beside it) would run, to compare the search against.
struct Baseline {
  std::string name;  // "vendor", "gpu"
  bool available = false;
  std::string reason;          // why not, when unavailable
  std::string summary;         // what the schedule is, one line
  std::optional<Draft> draft;  // when the baseline is a draft of the space
  Evaluation eval;
};

/// Everything the details pane shows of one candidate, from one mapping and one lowering: its tiles, where
/// they sit, the IR, what the hardware executes and the evaluation with per-unit statistics. A part that
/// cannot be made leaves its field empty and says why in `error` (the others are still filled).
struct CandidateAnalysis {
  std::optional<TileMapping> mapping;
  std::optional<BankLayout> layout;
  std::string ir, listing;
  std::optional<Evaluation> evaluation;
  std::string error;
};

/// One segment of a time breakdown as views draw it: a fixed phase, or a sub-phase the target declares.
struct TimeSegment {
  std::string label;  // "Compute", "DPU kernel"
  int phase = 0;      // the fixed phase it belongs to
  double ns = 0;
};

/// A declared parameter no result of a family reads, for a backend as it is now, and why: the what-if form
/// shows it disabled with the reason instead of offering an edit that changes nothing.
struct UnreadParameter {
  std::string key;     // "system.hostTflops"
  std::string reason;  // one sentence
};

/// Which of the problem and search settings beside the candidate space a family reads. The window shows only
/// these; the CLI refuses the others when given (a setting that changes nothing is not silently accepted).
struct SearchSettings {
  bool residency = true;  // resident or streamed tensors (--resident, --streamed; the Resident tensors field)
  bool pruneRules = true;       // DCC's prune rules, switched on and off in the window
  bool dccLowering = true;      // DCC 4.3's optimizers I and II (--no-staged, --no-group-commands)
  bool labelModels = true;      // the DCC artifact's labelling models (--model dcc-*)
  bool crossbarTiming = false;  // the crossbar profiler's timing mode (--timing; SimSettings::crossbarTiming)
};

/// What a target's preparation of a problem is stopped by and reports to (ITarget::prepare).
struct PrepareControl {
  const std::atomic<bool>* cancel = nullptr;  // polled; once true the preparation stops
  /// One line on what it is doing ("mapping the layer (latency): 12,000 of 20,000 proposals, best ...").
  std::function<void(const std::string&)> report;
};

class ITarget;
/// `e`'s time by the target's declarations, in phase order: each fixed phase, or where the target declares
/// sub-phases of it, those (and "Other <phase>" for what they leave). Cycles are scaled by `nsPerCycle`
/// (Evaluation::tCKns, or timeNs / totalCycles on a common scale). The segments add up to the total.
std::vector<TimeSegment> timeBreakdown(const ITarget& t, const Evaluation& e, double nsPerCycle);
/// Whether `t` can spend time in fixed phase `phase` (0 input rearrangement, 1 compute, 2 output
/// rearrangement): every phase when it declares no sub-phases (the three phases themselves), else the phases
/// its sub-phases belong to.
bool timesPhase(const ITarget& t, int phase);

class ITarget {
 public:
  virtual ~ITarget() = default;
  /// The name backend files give in "family".
  virtual std::string_view family() const = 0;
  /// One line: what kind of hardware this is and how it is modelled.
  virtual std::string_view description() const = 0;
  /// What this family's backend files must and may carry.
  virtual const BackendSchema& schema() const = 0;

  /// Every reason `k` cannot run on `b` at any shape (unsupported statement, data type, missing unit, no cost
  /// model); empty when it can. Timeloop's PreEvaluationCheck.
  virtual std::vector<std::string> check(const Backend& b, const Kernel& k) const = 0;
  /// Every reason the problem cannot run: a network on a family that does not compile networks, else
  /// checkProblem()'s.
  std::vector<std::string> check(const Problem& p) const;
  /// Whether the family compiles whole networks (Problem::network()); no by default.
  virtual bool compilesNetworks() const { return false; }

  /// The work the family does once per problem before its candidates can be listed (pim-hierarchy: the
  /// searches that make its candidate list), reporting as it goes; false when `control.cancel` stopped it
  /// (nothing is kept: the next call starts again). Callers that show progress call it first; candidates()
  /// does the same work silently when nobody did. Nothing to do by default.
  virtual bool prepare(const Problem&, const PrepareControl&) const { return true; }

  /// The candidates of `p` a search walks, with `enabled` switching the rules of `rules` (empty: all on).
  /// Default: DCC's tiling drafts and prune rules (DraftCandidateSpace), with the family's choiceAxes()
  /// beside them when it has any (ChoiceCandidateSpace). A family with a space of its own overrides it; its
  /// candidates are Drafts whose id is dense in that space, which its evaluate() and listing() decode. The
  /// space memoises: one per thread.
  virtual std::unique_ptr<ICandidateSpace> candidates(
      const Problem& p, std::vector<bool> enabled = {},
      const PruneRuleRegistry& rules = PruneRuleRegistry::builtin()) const;

  /// The kernel-level choices this family makes beside a draft for `p` (UPMEM: tasklets, caching tile, how
  /// tasklets share a reduction), each axis starting with the backend's own value; none by default. With
  /// axes, candidates() addresses every draft with every choice (kernel_choices.h) and evaluate(),
  /// listing() and violations() read the choices from the candidate's id.
  virtual ChoiceAxes choiceAxes(const Problem&) const { return {}; }
  /// The candidate ids of `p`: its drafts and choiceAxes().
  CandidateIds candidateIds(const Problem& p) const { return CandidateIds(p.space().size(), choiceAxes(p)); }

  /// The verifier: every hardware limit the candidate breaks (tasklets, memories, transfer sizes), each
  /// with its value, without evaluating it; empty when it can run (and by default). evaluate() refuses the
  /// same list with a LimitError, so strategies and the explorer count refusals by limit.
  virtual std::vector<LimitViolation> violations(const Problem&, const Draft&) const { return {}; }

  /// Cost of one draft. Throws InputError when the draft cannot run (tiles that do not fit, ...), LimitError
  /// when it breaks a limit of violations(). Callers check() the problem first.
  virtual Evaluation evaluate(const Problem& p, const Draft& d, const EvalOptions& o) const = 0;
  /// What the family's hardware executes for the draft, readable (commands, instructions), for the details
  /// pane and export; at most `maxLines` lines.
  virtual std::string listing(const Problem& p, const Draft& d, const EvalOptions& o,
                              std::size_t maxLines) const = 0;

  /// Where a mapped candidate's data sits on the units of geometry(), without evaluating it (the heat map's
  /// placement and the units-used axis of drafts that were not simulated); nullopt for a family that does not
  /// place data unit by unit. Throws InputError when the tiles do not fit.
  virtual std::optional<BankLayout> place(const Problem&, const TileMapping&) const { return std::nullopt; }

  /// Mapping, placement, IR, listing and evaluation of one candidate. The default maps, asks place(),
  /// listing() and evaluate(); a target overrides it to place its data and to map and lower once.
  virtual CandidateAnalysis analyse(const Problem& p, const Draft& d, const EvalOptions& o) const;

  /// The vendor library's schedule, and GPU-only execution on the host where the family sits beside a GPU;
  /// unavailable with the reason otherwise.
  virtual Baseline vendor(const Problem& p, const EvalOptions& o) const = 0;
  virtual Baseline gpu(const Problem& p) const = 0;
  /// Baselines of the family beyond the vendor's and the GPU's, each with its name (UPMEM: "prim-search",
  /// PrIM's schedule with its DPUs, tasklets and block grid-searched, IMTP's "PrIM+search"); none by default.
  virtual std::vector<Baseline> familyBaselines(const Problem&, const EvalOptions&) const { return {}; }

  /// The declared parameters of `b` that no result (draft counts, baselines, evaluations, estimates) reads
  /// with `b`'s values as they are (a spacing used only when another flag is off is unread while it is on);
  /// none by default. Energies are not listed (tests/test_what_if_parameters.cpp checks the others).
  virtual std::vector<UnreadParameter> unreadParameters(const Backend&) const { return {}; }

  /// Per-unit statistics of an evaluation (Evaluation::unitStats): geometry of `b`, and what is kept per
  /// unit, in column order.
  virtual UnitGeometry geometry(const Backend& b) const = 0;
  virtual const std::vector<StatDecl>& statistics() const = 0;

  /// The settings this family reads (SearchSettings); by default DCC's, as candidates() is.
  virtual SearchSettings searchSettings() const { return {}; }

  /// Sub-phases this family's evaluate() times (Evaluation::subCycles, in this order); none by default.
  virtual const std::vector<SubPhaseDecl>& subPhases() const;
  /// Whether evaluate() reports Evaluation::paddingBytes (bytes a placement adds so that a group's cores
  /// share address offsets); a family that places no data in groups has none to report, not zero.
  virtual bool reportsPadding() const { return false; }
  /// Figures of a candidate's evaluation beside the fixed ones (Evaluation::facts by key) that the drafts
  /// table shows as columns (pim-hierarchy: DRAM row activations per tensor); none by default.
  virtual const std::vector<StatDecl>& factColumns() const;
  /// How fact `key` of evaluate() combines over runs one after another (a mapping's sub-maps,
  /// engine/workflow/sub_map_run.h): a count adds (the default); a fact describing the machine in use
  /// (UPMEM's DPUs and tasklets) takes the largest.
  virtual bool factAddsOverRuns(std::string_view) const { return true; }

  /// Names of the features its estimator computes, in order: the schema its predictor models are trained
  /// on; empty when the family has no estimate.
  virtual const std::vector<std::string>& featureNames() const;
  /// The family's analytic estimate for `p` under `o`, or nullptr when it has none (then nothing screens its
  /// spaces, no predictor can be trained for it and the compute-centric search refuses it).
  virtual std::unique_ptr<ICandidateEstimator> estimator(const Problem& p, const OptimizerOptions& o) const;
  /// Whether the estimate sums the very templates evaluate() runs, closely enough to rank drafts of a kernel
  /// no trained model has seen (then explore ranks by it, not by the model). False by default: the DRAM-PIM
  /// estimates only screen (ranked by them, hbm-pim's GEMM pick was 1.7x slower than the model's).
  virtual bool estimateRanksUnseenKernels() const { return false; }
  /// Whether a network's CONV layers are worth running here one by one as conv kernels (a family that maps
  /// convolution loop nests onto its hierarchy): compare on a network asks, and runs FC layers as GEMV
  /// elsewhere. False by default.
  virtual bool mapsConvLayers() const { return false; }

  /// Version of this family's cost model: stored labels and lookup entries are keyed by it, so a change to
  /// one family's model invalidates only that family's labels.
  virtual int modelVersion() const = 0;

 protected:
  /// The reasons check() gives of a problem it does not refuse as a network: the kernel-level reasons, then
  /// any the shape adds.
  virtual std::vector<std::string> checkProblem(const Problem& p) const {
    return check(p.backend(), p.kernel());
  }
};

}  // namespace pim
