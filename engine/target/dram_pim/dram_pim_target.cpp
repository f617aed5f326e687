// SPDX-License-Identifier: Apache-2.0
#include "engine/target/dram_pim/dram_pim_target.h"

#include <sstream>

#include "engine/codegen/ir_text.h"
#include "engine/codegen/rearrangement.h"
#include "engine/common/error.h"
#include "engine/mapping/bank_layout.h"
#include "engine/target/dram_pim/bank_statistics.h"
#include "engine/target/dram_pim/capacity.h"
#include "engine/target/dram_pim/dcc_artifact/artifact_model.h"
#include "engine/target/dram_pim/device_config.h"
#include "engine/target/dram_pim/features.h"
#include "engine/target/dram_pim/program.h"
#include "engine/target/gpu_baseline.h"
#include "engine/target/registry.h"
#include "sim/simulator.h"

namespace pim {
namespace {

/// The simulator's device description of a problem's backend, built once per problem.
struct DramPimContext final : ITargetContext {
  sim::DeviceConfig refreshOn, refreshOff;
  const sim::DeviceConfig& device(const SimSettings& s) const { return s.refresh ? refreshOn : refreshOff; }
};

class DramPimTarget final : public ITarget {
 public:
  explicit DramPimTarget(DramPimDevice device)
      : m_device(std::move(device)), m_generator(m_device.generator()), m_schema(dramPimSchema()) {}

  std::string_view family() const override { return m_device.family; }
  std::string_view description() const override { return m_device.description; }
  const BackendSchema& schema() const override { return m_schema; }
  const DramPimDevice& device() const { return m_device; }

  using ITarget::check;
  std::vector<std::string> check(const Backend&, const Kernel& k) const override {
    if (std::string why = m_generator->unsupportedReason(k); !why.empty()) return {std::move(why)};
    return {};
  }
  std::vector<std::string> checkProblem(const Problem& p) const override {
    std::vector<std::string> reasons = check(p.backend(), p.kernel());
    if (auto why = capacityReason(p)) reasons.push_back(std::move(*why));
    return reasons;
  }

  Evaluation evaluate(const Problem& p, const Draft& d, const EvalOptions& o) const override;
  std::optional<BankLayout> place(const Problem& p, const TileMapping& m) const override {
    return placeOnBanks(p.kernel(), m, p.backend());
  }
  CandidateAnalysis analyse(const Problem& p, const Draft& d, const EvalOptions& o) const override;

  std::string listing(const Problem& p, const Draft& d, const EvalOptions& o,
                      std::size_t maxLines) const override {
    if (o.model != LabelModel::PimScope)
      return dcc::listing(p, dcc::tilingOfDraft(p, dcc::artifactKernel(p), d), o, maxLines);
    return commandListing(program(p, d, o, false), maxLines);
  }

  Baseline vendor(const Problem& p, const EvalOptions& o) const override {
    if (o.model != LabelModel::PimScope) return dcc::vendorBaseline(p, o, context(p).device(o.sim));
    return m_device.vendor(*this, p, o, context(p).device(o.sim));
  }
  Baseline gpu(const Problem& p) const override { return a100Baseline(p); }
  std::vector<UnreadParameter> unreadParameters(const Backend& b) const override {
    std::vector<UnreadParameter> out;
    if (std::string why = hostGpuUnreadReason(b); !why.empty())
      for (const char* key : {"system.hostBandwidthGBps", "system.hostTflops"}) out.push_back({key, why});
    out.push_back({"core.registerBytes",
                   "the DRAM-PIM model has no register-file capacity: a device's registers are part of its "
                   "command programs"});
    out.push_back({"core.dataMemoryBytes", "DRAM-PIM units have no scratchpad in this model"});
    out.push_back({"core.clockMHz",
                   "DRAM-PIM units are timed by DRAM command timing (dram.tCKns, timing.*, pim.*), not by a "
                   "core clock"});
    out.push_back({"core.threads", "DRAM-PIM units run one command stream (threads are UPMEM tasklets)"});
    out.push_back(
        {"timing.tRTPS",
         "a precharge follows a read of its own bank, so the simulator spaces it by timing.tRTPL (same "
         "bank group); the other-bank-group figure constrains no command"});
    if (m_device.unread) m_device.unread(b, out);
    return out;
  }

  UnitGeometry geometry(const Backend& b) const override { return bankGeometry(b); }
  const std::vector<StatDecl>& statistics() const override { return bankStatisticDecls(); }
  bool reportsPadding() const override { return true; }
  const std::vector<std::string>& featureNames() const override { return dramPimFeatureNames(); }
  std::unique_ptr<ICandidateEstimator> estimator(const Problem& p, const OptimizerOptions& o) const override {
    return std::make_unique<FeatureExtractor>(p, o);
  }
  int modelVersion() const override { return m_device.modelVersion; }

  /// The command program evaluate() simulates (naive rearrangement is composed outside it).
  sim::Program program(const Problem& p, const Draft& d, const EvalOptions& o, bool preload) const {
    requireRunnable(p);
    const DraftFootprints mapping = mapFootprints(p.space(), d, o.indexing);
    placementTotals(p.kernel(), mapping,
                    p.backend());  // refuses drafts beyond the backend's groups and cores
    OptimizerOptions opt = o.optimizer;
    opt.computeOnly = o.computeOnly;
    return lowerDraft(LoweringInput{p, mapping, context(p).device(o.sim), *m_generator, opt, preload});
  }

 private:
  /// The one-time placement of `call`'s resident inputs, copied as the run's rearrangement pass copies.
  static std::int64_t preloadCycles(const LoweringInput& call, const DraftViews& views,
                                    const EvalOptions& o) {
    LoweringInput in = call;
    in.preload = true;
    if (!o.optimizer.stagedRearrangement) return naiveRearrangement(in).inputCycles;
    return sim::simulate(in.device, lowerDraft(in, views)).phase(sim::Phase::InputRearrangement);
  }
  /// Simulates a lowered draft and composes its evaluation (naive rearrangement added outside the program).
  Evaluation simulate(const LoweringInput& in, const DraftViews& views, const PlacementTotals& placed,
                      const Draft& d, const EvalOptions& o) const;
  const DramPimContext& context(const Problem& p) const {
    return static_cast<const DramPimContext&>(p.targetContext([&] {
      auto c = std::make_unique<DramPimContext>();
      c->refreshOn = deviceConfigFor(p.backend(), SimSettings{true}, m_device);
      c->refreshOff = deviceConfigFor(p.backend(), SimSettings{false}, m_device);
      return c;
    }));
  }

  DramPimDevice m_device;
  std::unique_ptr<ICodeGenerator> m_generator;
  BackendSchema m_schema;
};

Evaluation DramPimTarget::evaluate(const Problem& p, const Draft& d, const EvalOptions& o) const {
  requireRunnable(p);
  if (o.model != LabelModel::PimScope) return dcc::evaluateDraft(p, d, o, context(p).device(o.sim));
  // The simulation needs footprints only; the index sets people read come from mapDraft/placeOnBanks.
  const DraftFootprints mapping = mapFootprints(p.space(), d, o.indexing);
  const PlacementTotals placed = placementTotals(p.kernel(), mapping, p.backend());
  OptimizerOptions opt = o.optimizer;
  opt.computeOnly = o.computeOnly;
  const LoweringInput in{p, mapping, context(p).device(o.sim), *m_generator, opt};
  return simulate(in, groupViews(in), placed, d, o);
}

CandidateAnalysis DramPimTarget::analyse(const Problem& p, const Draft& d, const EvalOptions& o) const {
  CandidateAnalysis a;
  try {
    a.mapping = mapDraft(p.space(), d, o.indexing);
    a.ir = irText(p.space(), *a.mapping);
    requireRunnable(p);
    if (o.model != LabelModel::PimScope) {  // the artifact's trace: no PIMScope placement or lowering
      a.listing = listing(p, d, o, 400);
      a.evaluation = evaluate(p, d, o);
      return a;
    }
    a.layout = place(p, *a.mapping);
    // One mapping and one lowering for everything the pane shows (footprints of the full mapping equal
    // mapFootprints', EvaluateConformance.FootprintsEqualTheFullMapping).
    const DraftFootprints fp = footprintsOf(p.kernel(), *a.mapping);
    const PlacementTotals placed{a.layout->placedBytes, a.layout->paddingBytes, a.layout->banksUsed};
    OptimizerOptions opt = o.optimizer;
    opt.computeOnly = o.computeOnly;
    const LoweringInput in{p, fp, context(p).device(o.sim), *m_generator, opt};
    const DraftViews views = groupViews(in);
    a.ir += reductionText(in);
    a.listing = commandListing(lowerDraft(in, views), 400);
    a.evaluation = simulate(in, views, placed, d, o);
  } catch (const InputError& e) {
    a.error = e.what();
  }
  return a;
}

Evaluation DramPimTarget::simulate(const LoweringInput& in, const DraftViews& views,
                                   const PlacementTotals& placed, const Draft& d,
                                   const EvalOptions& o) const {
  const sim::Program program = lowerDraft(in, views);
  const sim::DeviceConfig& device = in.device;
  sim::SimOptions so;
  so.trace = o.trace;
  so.fastForward = !o.trace.enabled;
  so.stopAfterCycles = o.stopAfterCycles;
  so.cache = o.cache;
  sim::Result r = sim::simulate(device, program, so);

  Evaluation e;
  e.draft = d.id;
  e.tCKns = device.tCK_ns;
  if (r.stoppedEarly) {
    e.lowerBound = true;
    e.totalCycles = r.totalCycles;
    e.timeNs = static_cast<double>(e.totalCycles) * e.tCKns;
    return e;
  }
  for (int ph = 0; ph < 3; ++ph) e.cycles[ph] = r.phaseCycles[ph];
  e.energy = r.energy;
  e.commands = r.commandsIssued;
  e.commandBusUtilisation = r.commandBusUtilisation;
  if (!o.optimizer.stagedRearrangement && !o.computeOnly) {
    // Serial copies: their time adds to the simulated compute phase, their bursts to the bank statistics.
    const SerialRearrangement s = naiveRearrangement(in);
    e.cycles[0] += s.inputCycles;
    e.cycles[2] += s.outputCycles;
    e.serialSegments = s.segments;
    e.energy.rdWr_pJ += s.energyPj;
    for (std::size_t i = 0; i < r.banks.size() && i < s.bankDeltas.size(); ++i) {
      auto& b = r.banks[i];
      const auto& dl = s.bankDeltas[i];
      b.bytesRead += dl.bytesRead;
      b.bytesWritten += dl.bytesWritten;
      b.columnCommands += dl.columnCommands;
      b.activations += dl.activations;
      b.energy_pJ += dl.energy_pJ;
    }
  }
  e.totalCycles = e.cycles[0] + e.cycles[1] + e.cycles[2];
  e.timeNs = static_cast<double>(e.totalCycles) * e.tCKns;
  e.energyPj = e.energy.total_pJ();
  e.unitsUsed = placed.banksUsed;
  e.placedBytes = placed.placedBytes;
  e.paddingBytes = placed.paddingBytes;
  if (o.preload && in.problem.residency().any() && !o.computeOnly)
    e.preloadCycles = preloadCycles(in, views, o);
  if (o.keepUnitStats) e.unitStats = bankStatistics(r.banks, bankGeometry(in.problem.backend()));
  if (o.trace.enabled) e.traceJson = r.chromeTraceJson();
  return e;
}

}  // namespace

std::unique_ptr<ITarget> makeDramPimTarget(DramPimDevice device) {
  return std::make_unique<DramPimTarget>(std::move(device));
}

sim::DeviceConfig deviceConfigFor(const Backend& b, const SimSettings& s) {
  const auto* t = dynamic_cast<const DramPimTarget*>(&targetOf(b));
  if (!t)
    throw InputError(b.name + " (family " + b.family + ") is not a DRAM-PIM backend: it has no DRAM device");
  return deviceConfigFor(b, s, t->device());
}

sim::Program draftProgram(const Problem& p, const Draft& d, const EvalOptions& o) {
  const auto* t = dynamic_cast<const DramPimTarget*>(&targetOf(p.backend()));
  if (!t)
    throw InputError(p.backend().name + " is not a DRAM-PIM backend: its drafts have no command program");
  return t->program(p, d, o, false);
}

sim::Program preloadProgram(const Problem& p, const Draft& d, const EvalOptions& o) {
  const auto* t = dynamic_cast<const DramPimTarget*>(&targetOf(p.backend()));
  if (!t)
    throw InputError(p.backend().name + " is not a DRAM-PIM backend: its drafts have no command program");
  return t->program(p, d, o, true);
}

std::string commandListing(const sim::Program& prog, std::size_t maxLines) {
  std::ostringstream os;
  std::size_t lines = 0;
  for (std::size_t i = 0; i < prog.programs.size() && lines < maxLines; ++i) {
    int channels = 0;
    for (int c : prog.channelMap) channels += c == static_cast<int>(i);
    os << "; program " << i << " on " << channels << " channel(s), " << prog.programs[i].commandCount()
       << " commands\n";
    for (const sim::Block& b : prog.programs[i].blocks) {
      if (lines >= maxLines) break;
      const std::string indent = b.repeat > 1 ? "    " : "  ";
      if (b.repeat > 1) os << "  repeat " << b.repeat << " {\n";
      for (const sim::Command& c : b.cmds) {
        if (++lines > maxLines) break;
        os << indent << sim::phaseName(c.phase)[0] << " " << sim::opName(c.op);
        if (c.op != sim::Op::BARRIER) {
          if (c.bankMask) {
            os << " banks=0x" << std::hex << c.bankMask << std::dec;
          } else {
            os << " pch" << int(c.pch) << " r" << int(c.rank) << " bg" << int(c.bg) << " b" << int(c.bank);
          }
          os << " row=" << c.row << " col=" << c.col;
          if (c.repeat > 1) os << " x" << c.repeat;
          if (c.colStep || c.rowStep) os << " step(row " << c.rowStep << ", col " << c.colStep << ")";
          if (c.flags & sim::kFlagPim) os << " [pim]";
          if (c.flags & sim::kFlagModeSwitch) os << " [mode switch]";
        }
        os << "\n";
      }
      if (b.repeat > 1) os << "  }\n";
    }
  }
  if (lines >= maxLines) os << "; ... (listing cut at " << maxLines << " lines)\n";
  return os.str();
}

}  // namespace pim
