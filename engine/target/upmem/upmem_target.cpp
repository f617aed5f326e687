// SPDX-License-Identifier: Apache-2.0
#include "engine/target/upmem/upmem_target.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/codegen/upmem_codegen.h"
#include "engine/common/error.h"
#include "engine/hw/backend.h"
#include "engine/kernel/intrinsics.h"
#include "engine/target/upmem/upmem_choices.h"
#include "engine/target/upmem/upmem_estimate.h"
#include "engine/target/upmem/upmem_params.h"
#include "engine/target/upmem/upmem_vendor.h"

namespace pim {
namespace {

// The parameters and the kernel-level choices, read once per problem (what-if edits make a new problem).
class UpmemContext final : public ITargetContext {
 public:
  explicit UpmemContext(const Problem& p)
      : params(upmemParams(p.backend())),
        ids(p.space().size(), upmemChoiceAxes(p.kernel(), params.codegen)) {}
  UpmemParams params;
  CandidateIds ids;
};

const UpmemContext& contextOf(const Problem& p) {
  return static_cast<const UpmemContext&>(p.targetContext([&] { return std::make_unique<UpmemContext>(p); }));
}

const UpmemParams& paramsOf(const Problem& p) { return contextOf(p).params; }

// The code generator's options for candidate `id`: the backend's, with the candidate's choices and the
// boundary-check passes `o` switches.
UpmemCodegenOptions optionsOf(const Problem& p, std::uint64_t id, const OptimizerOptions& o = {}) {
  const UpmemContext& c = contextOf(p);
  UpmemCodegenOptions options = upmemChoicesOf(c.ids, id, c.params.codegen);
  options.style.passes = o.boundary;
  return options;
}

// PrIM's own code (the vendor baselines).
// PrIM's other implementation of a kernel, beside the vendor's: a family baseline of its own.
struct PrimVariant {
  std::string name;
  UpmemCodegenOptions options;
};

UpmemCodegenOptions primOptions(const Problem& p);

std::vector<PrimVariant> primVariants(const Problem& p) {
  auto calls = [&](Intrinsic id) {
    return std::any_of(p.kernel().statements.begin(), p.kernel().statements.end(),
                       [id](const Statement& s) { return intrinsicOf(s) == id; });
  };
  std::vector<PrimVariant> out;
  if (calls(Intrinsic::Hist)) {  // HST-L: one histogram per DPU under a mutex; its Makefile passes BL=8
    PrimVariant v{"prim-hst-l", primOptions(p)};
    v.options.sharedHistogram = true;
    v.options.blockBytes = 256;
    out.push_back(std::move(v));
  }
  if (calls(Intrinsic::Prefix)) {  // SCAN-RSS: reduce, host scan, scan
    PrimVariant v{"prim-scan-rss", primOptions(p)};
    v.options.scanReducesFirst = true;
    out.push_back(std::move(v));
  }
  return out;
}

UpmemCodegenOptions primOptions(const Problem& p) {
  UpmemCodegenOptions o = withPrimCode(paramsOf(p).codegen);
  // PrIM's BS Makefile passes no BL, so its header default of 2^8 B holds; TS (the kernel with an argmin=)
  // uses 256-B blocks too (upmem.md, PrIM's configurations), and keeps its query and its block of the series
  // in WRAM (PrIM repo, TS/dpu/task.c).
  for (const Statement& st : p.kernel().statements) {
    if (intrinsicOf(st) == Intrinsic::Search || st.op == AssignOp::ArgMin) o.blockBytes = 256;
    if (st.op == AssignOp::ArgMin) o.style.cacheOperands = true;
  }
  return o;
}

// Statistics per DPU, in DpuTotals' terms.
const std::vector<StatDecl>& dpuStatistics() {
  static const std::vector<StatDecl> s = {
      {"kernel_cycles", "busy cycles", "cycles", "cycles from launch until the DPU's last tasklet finished"},
      {"instructions", "instructions", "count", "instructions issued by all of the DPU's tasklets"},
      {"dma_requests", "DMA requests", "count", "MRAM<->WRAM transfers (mram_read, mram_write)"},
      {"dma_bytes", "DMA bytes", "bytes", "bytes moved between MRAM and WRAM"},
      {"host_bytes_in", "host bytes in", "bytes", "bytes the host wrote to the DPU's MRAM, padding included"},
      {"host_bytes_out", "host bytes out", "bytes",
       "bytes the host read from the DPU's MRAM, padding included"},
      {"guards", "boundary checks", "count",
       "dynamic boundary checks its tasklets executed (IMTP's guards; each one issue slot)"},
  };
  return s;
}

// Boundary checks per DPU of the plan: its kernels' in every launch (UpmemProgram::kernelLoops).
std::vector<std::int64_t> guardsPerDpu(const UpmemProgram& prog) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(prog.plan.dpus), 0);
  std::size_t launch = 0;
  for (const sim::dpu::HostStep& s : prog.plan.steps) {
    if (s.kind != sim::dpu::HostStep::Kind::Launch) continue;
    const auto& loops = prog.kernelLoops.at(launch++);
    for (std::size_t u = 0; u < s.kernelOf.size() && u < out.size(); ++u)
      if (s.kernelOf[u] >= 0) out[u] += loops.at(static_cast<std::size_t>(s.kernelOf[u])).guards;
  }
  return out;
}

// The five UPMEM phases, in UpmemPhase order, as sub-phases of the three fixed ones.
const std::vector<SubPhaseDecl>& upmemPhases() {
  static const std::vector<SubPhaseDecl> s = {
      {"cpu_dpu", "CPU->DPU", 0, "host-to-MRAM transfers (parallel, broadcast, serial)"},
      {"dpu_kernel", "DPU kernel", 1, "each dpu_launch, its overhead included, until its slowest DPU ends"},
      {"dpu_cpu", "DPU->CPU", 2, "MRAM-to-host transfers"},
      {"inter_dpu", "inter-DPU", 1, "exchanges between DPUs through the host"},
      {"host", "host merge", 2, "the host adding the DPUs' partial results"},
  };
  return s;
}

// Every tensor spread over every DPU must fit their MRAM, or no draft can run.
std::string capacityReason(const Problem& p) {
  const Kernel& k = p.kernel();
  double bytes = 0;
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    double n = static_cast<double>(dtypeBytes(k.tensors[t].dtype));
    for (auto e : tensorExtents(k, static_cast<int>(t), p.shape())) n *= static_cast<double>(e);
    bytes += n;
  }
  const double dpus = static_cast<double>(p.backend().totalGroups()) * p.backend().coresPerGroup();
  const double mram = paramsOf(p).codegen.mramBytes;
  if (bytes / dpus <= mram) return {};
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%s does not fit: its tensors take %.4g B, %.4g B per DPU on all %.0f DPUs, above the %.0f B "
                "of MRAM each (pim.MRAM_bytes)",
                p.title().c_str(), bytes, bytes / dpus, dpus, mram);
  return buf;
}

class UpmemTarget final : public ITarget {
 public:
  UpmemTarget() : m_schema(dccLevelsSchema()) {
    m_schema.sections.insert(m_schema.sections.end(), {"pim", "energy"});
    m_schema.openSections = {"pim", "energy"};
    for (const ParamDecl& d : upmemParamDecls()) m_schema.params.push_back(d);
  }
  std::string_view family() const override { return "upmem"; }
  std::string_view description() const override {
    return "UPMEM: a 350 MHz in-order DPU with WRAM and MRAM per DRAM bank, 64 per rank; timed by CoMoNM's "
           "pipeline and DMA model and the host's transfers and launches";
  }
  const BackendSchema& schema() const override { return m_schema; }
  using ITarget::check;
  std::vector<std::string> check(const Backend&, const Kernel& k) const override {
    if (std::string why = upmemUnsupportedReason(k); !why.empty()) return {std::move(why)};
    return {};
  }
  std::vector<std::string> checkProblem(const Problem& p) const override {
    std::vector<std::string> reasons = check(p.backend(), p.kernel());
    if (reasons.empty())
      if (std::string why = capacityReason(p); !why.empty()) reasons.push_back(std::move(why));
    return reasons;
  }

  ChoiceAxes choiceAxes(const Problem& p) const override { return contextOf(p).ids.axes(); }
  std::vector<LimitViolation> violations(const Problem& p, const Draft& d) const override {
    return upmemViolations(p, d, optionsOf(p, d.id));
  }
  Evaluation evaluate(const Problem& p, const Draft& d, const EvalOptions& o) const override {
    return evaluation(p, lowerUpmem(p, d, optionsOf(p, d.id, o.optimizer)), d.id, o);
  }
  std::string listing(const Problem& p, const Draft& d, const EvalOptions& o,
                      std::size_t maxLines) const override {
    return upmemListing(lowerUpmem(p, d, optionsOf(p, d.id, o.optimizer)), maxLines);
  }
  Baseline vendor(const Problem& p, const EvalOptions& o) const override {
    UpmemCodegenOptions prim = primOptions(p);
    prim.split = TaskletSplit::Outputs;
    return primBaseline(*this, p, contextOf(p).ids, prim, runner(p, o), o.vendorUnits);
  }
  std::vector<Baseline> familyBaselines(const Problem& p, const EvalOptions& o) const override {
    std::vector<Baseline> out = {
        primSearchBaseline(*this, p, contextOf(p).ids, primOptions(p), runner(p, o))};
    for (const PrimVariant& v : primVariants(p)) {
      Baseline b = primBaseline(*this, p, contextOf(p).ids, v.options, runner(p, o), o.vendorUnits);
      b.name = v.name;
      out.push_back(std::move(b));
    }
    return out;
  }
  Baseline gpu(const Problem&) const override {
    return {"gpu", false, "UPMEM DIMMs sit beside a CPU host, not a GPU", "", {}, {}};
  }
  std::vector<UnreadParameter> unreadParameters(const Backend&) const override {
    return {
        {"system.hostBandwidthGBps",
         "the per-rank and aggregate transfer rates (pim.*GBps) time the host's transfers"},
        {"system.hostOnChipBytes",
         "UPMEM's host copies tiles straight to each rank; nothing is staged on chip"},
        {"system.hostTflops", "the host's only work is adding partial results, at pim.hostMergeGops"},
        {"core.registerBytes", "the DPU model counts instructions, not registers"},
        {"core.fpuSharedBy", "each DPU has its own pipeline"},
        {"core.banksPerCore", "a DPU's bank is its MRAM, sized by pim.MRAM_bytes"},
        {"group.broadcast", "broadcast transfers are always available (pim.broadcast*GBps)"},
    };
  }
  UnitGeometry geometry(const Backend& b) const override {
    return UnitGeometry::grid("rank", "DPU", b.totalGroups(), b.coresPerGroup());
  }
  const std::vector<StatDecl>& statistics() const override { return dpuStatistics(); }
  // DPUs are not driven by DRAM commands: DCC 4.3's lowering passes and the artifact's labels do not apply.
  SearchSettings searchSettings() const override {
    return {.residency = true, .pruneRules = true, .dccLowering = false, .labelModels = false};
  }
  const std::vector<SubPhaseDecl>& subPhases() const override { return upmemPhases(); }
  bool reportsPadding() const override { return true; }
  // evaluation()'s facts: launches and simulated kernels count; DPUs, tasklets and the extrapolation flag
  // describe the run.
  bool factAddsOverRuns(std::string_view key) const override {
    return key == "launches" || key == "simulated_kernels";
  }
  const std::vector<std::string>& featureNames() const override { return upmemFeatureNames(); }
  // Spearman 0.997-0.999 against the DPU model on random candidates (tests/test_upmem_estimate.cpp).
  bool estimateRanksUnseenKernels() const override { return true; }
  std::unique_ptr<ICandidateEstimator> estimator(const Problem& p, const OptimizerOptions& o) const override {
    return makeUpmemEstimator(p, paramsOf(p), [&p, o](std::uint64_t id) { return optionsOf(p, id, o); });
  }
  int modelVersion() const override { return 4; }  // 4: launches split where a statement reads another DPU

 private:
  Evaluation evaluation(const Problem& p, const UpmemProgram& prog, std::uint64_t draft,
                        const EvalOptions& o) const;
  // A candidate run with explicitly given choices (the PrIM baselines), reported under `d`'s id.
  UpmemRunner runner(const Problem& p, const EvalOptions& o) const {
    return [this, &p, &o](const Draft& d, const UpmemCodegenOptions& choices) {
      return evaluation(p, lowerUpmem(p, d, choices), d.id, o);
    };
  }
  BackendSchema m_schema;
};

Evaluation UpmemTarget::evaluation(const Problem& p, const UpmemProgram& prog, std::uint64_t draft,
                                   const EvalOptions& o) const {
  const UpmemParams& up = paramsOf(p);
  const sim::dpu::PlanRun run = sim::dpu::simulatePlan(
      up.dpu, up.rates, prog.plan,
      o.sim.extrapolate ? sim::dpu::KernelTiming::Sliced : sim::dpu::KernelTiming::Full);
  Evaluation e;
  e.draft = draft;
  e.tCKns = 1000.0 / up.dpu.clockMHz;
  for (const auto& decl : upmemPhases()) {
    const auto i = e.subCycles.size();
    e.subCycles.push_back(std::llround(run.cycles[i]));
    e.cycles[static_cast<std::size_t>(decl.phase)] += e.subCycles.back();
  }
  e.totalCycles = e.cycles[0] + e.cycles[1] + e.cycles[2];
  e.timeNs = static_cast<double>(e.totalCycles) * e.tCKns;

  const Backend& b = p.backend();
  const UnitGeometry g = geometry(b);
  const auto& stats = dpuStatistics();
  if (o.keepUnitStats) {
    e.unitStats.statCount = stats.size();
    e.unitStats.values.assign(static_cast<std::size_t>(g.units()) * stats.size(), 0.0);
  }
  const std::vector<std::int64_t> guards = guardsPerDpu(prog);
  double kernelCycles = 0, dmaBytes = 0, hostBytes = 0;
  for (std::size_t u = 0; u < run.perDpu.size(); ++u) {
    const auto& d = run.perDpu[u];
    const double row[] = {d.kernelCycles,
                          static_cast<double>(d.instructions),
                          static_cast<double>(d.dmaRequests),
                          static_cast<double>(d.dmaBytes),
                          static_cast<double>(d.hostBytesIn),
                          static_cast<double>(d.hostBytesOut),
                          static_cast<double>(u < guards.size() ? guards[u] : 0)};
    if (o.keepUnitStats && u < static_cast<std::size_t>(g.units()))
      std::copy(std::begin(row), std::end(row),
                e.unitStats.values.begin() + static_cast<std::ptrdiff_t>(u * stats.size()));
    kernelCycles += d.kernelCycles;
    dmaBytes += static_cast<double>(d.dmaBytes);
    hostBytes += static_cast<double>(d.hostBytesIn + d.hostBytesOut);
    e.unitsUsed += d.kernelCycles > 0 || d.hostBytesIn > 0;
  }
  // Energy: no UPMEM energy is published (upmem.md, Energy); the backend file's figures are assumptions.
  auto energy = [&](const char* key) {
    const auto it = b.energyPj.find(std::string("energy.") + key);
    return it == b.energyPj.end() ? 0.0 : it->second;
  };
  e.energy.pimCompute_pJ = kernelCycles * energy("DPU_CYCLE");
  e.energy.rdWr_pJ = dmaBytes / 8 * energy("RD");
  e.energy.hostIo_pJ = hostBytes * energy("HOST_IO_BYTE");
  e.energy.sources = {{"pimCompute", "assumed: energy.DPU_CYCLE per busy DPU cycle"},
                      {"rdWr", "assumed: energy.RD per 8 B of MRAM<->WRAM DMA"},
                      {"hostIo", "assumed: energy.HOST_IO_BYTE per byte moved between host and MRAM"}};
  e.energyPj = e.energy.total_pJ();
  e.facts = {{"launches", run.launches},
             {"dpus", prog.dpusUsed},
             {"tasklets", prog.tasklets},
             {"simulated_kernels", run.distinctKernels},
             {"extrapolated", run.extrapolated ? 1 : 0}};
  e.placedBytes = static_cast<std::int64_t>(hostBytes);
  e.paddingBytes = std::max<std::int64_t>(0, e.placedBytes - prog.tileBytes);
  return e;
}

}  // namespace

std::unique_ptr<ITarget> makeUpmemTarget() { return std::make_unique<UpmemTarget>(); }

}  // namespace pim
