// SPDX-License-Identifier: Apache-2.0
#include "engine/target/crossbar/layer_evaluation.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "engine/common/number_text.h"
#include "engine/common/text_lines.h"
#include "engine/crossbar/instruction_dump.h"
#include "engine/target/crossbar/core_statistics.h"

namespace pim {
namespace {

namespace cb = crossbar;

/// The compile's time for one sample: LL's latency, or HT's first batch (its period times its stages).
double sampleNs(const NetworkCompileResult& r) {
  if (r.latencyNs) return *r.latencyNs;
  return r.firstBatchLatencyNs.value_or(0.0);
}

/// The slowest core's MVM, vector, memory and communication time, in that order, each cut so that they add
/// up to at most `total` (PIMCOMP-NN's per-core shares; the rest of the core's time is waiting).
std::vector<std::int64_t> slowestCoreSplit(const xbar::ProfileResult& p, std::int64_t total) {
  std::vector<std::int64_t> split(crossbarSubPhases().size(), 0);
  const auto slowest = std::max_element(p.cores.begin(), p.cores.end(),
                                        [](const auto& a, const auto& b) { return a.endNs < b.endNs; });
  if (slowest == p.cores.end()) return split;
  const std::int64_t shares[] = {slowest->mvmNs, slowest->vectorNs, slowest->memoryNs,
                                 slowest->commSyncNs + slowest->commTransferNs};
  std::int64_t left = total;
  for (std::size_t i = 0; i < split.size(); ++i) {
    split[i] = std::clamp<std::int64_t>(shares[i], 0, left);
    left -= split[i];
  }
  return split;
}

void fillEnergy(const xbar::EnergyBreakdown& x, Evaluation& e) {
  constexpr double kPjPerNj = 1000.0;
  e.energy.pimCompute_pJ = (x.pimmuNj + x.vfuNj) * kPjPerNj;
  e.energy.bufferMoves_pJ = (x.localMemoryNj + x.controlUnitNj + x.routerNj) * kPjPerNj;
  e.energy.rdWr_pJ = x.globalMemoryNj * kPjPerNj;
  e.energy.hostIo_pJ = x.hyperTransportNj * kPjPerNj;
  e.energy.sources = {
      {"pimCompute", "crossbar: PIMMU and vector unit, busy at their rated power, idle at its leakage share"},
      {"bufferMoves", "crossbar: local memory, control unit and routers, busy and idle likewise"},
      {"rdWr", "crossbar: global memory, busy and idle likewise"},
      {"hostIo", "crossbar: the inter-chip link (HyperTransport), busy and idle likewise"}};
  e.energyPj = x.totalNj * kPjPerNj;
}

std::int64_t totalReplicas(const NetworkCompileResult& r) {
  std::int64_t n = 0;
  for (const CompiledLayer& l : r.layers) n += l.replicas;
  return n;
}

void fillFacts(const NetworkCompileResult& r, Evaluation& e) {
  if (r.periodNs) {
    e.facts.emplace_back("period_ns", *r.periodNs);
    e.facts.emplace_back("throughput_per_s", r.throughputPerS.value_or(0));
  }
  if (r.latencyNs) e.facts.emplace_back("latency_ns", *r.latencyNs);
  e.facts.emplace_back("replicas", static_cast<double>(totalReplicas(r)));
  e.facts.emplace_back("crossbars_used", static_cast<double>(r.crossbarsUsed));
  e.facts.emplace_back("crossbars_total", static_cast<double>(r.crossbarsTotal));
  e.facts.emplace_back("mvms", static_cast<double>(r.mvmCount));
  e.facts.emplace_back("instructions", static_cast<double>(r.instructions));
  e.facts.emplace_back("instruction_groups", static_cast<double>(r.instructionGroups));
  e.facts.emplace_back("energy_idle_nj", r.energy.idleNj);
}

/// Each layer as a stage: its time on its busiest core by sub-phase (HT, whose period they bound) and its
/// span.
void fillStages(const NetworkCompileResult& r, Evaluation& e) {
  for (const CompiledLayer& l : r.layers) {
    const xbar::NodeProfile& t = l.time;
    StageTiming s{
        .name = l.name, .subCycles = {}, .startCycles = t.firstStartNs, .finishCycles = t.lastFinishNs};
    if (r.periodNs) s.subCycles = {t.busiestMvmNs, t.busiestVectorNs, t.busiestMemoryNs, t.busiestCommNs};
    e.stages.push_back(std::move(s));
  }
  if (r.periodNs) e.periodCycles = std::llround(*r.periodNs);
}

int coresUsed(const NetworkCompileResult& r) {
  return static_cast<int>(
      std::count_if(r.coreLayers.begin(), r.coreLayers.end(), [](const auto& l) { return !l.empty(); }));
}

/// A network's layers as the compile window's pipeline chart draws them, as text: HT, each layer's time on
/// its busiest core by kind with the bottleneck marked; LL, each layer's first start and last finish.
std::string layerPipeline(const NetworkCompileResult& r, const Evaluation& e) {
  const bool ht = r.periodNs.has_value();
  const int bottleneck = bottleneckStage(e.stages);
  int width = 5;  // "layer"
  for (const CompiledLayer& l : r.layers) width = std::max(width, static_cast<int>(l.name.size()));
  std::ostringstream s;
  s << (ht ? "layer pipeline (ns on each layer's busiest core; * bounds the period):\n"
           : "layer timeline (ns from the start of the inference):\n");
  auto cell = [&s](const auto& v, int w, bool left = false) {
    s << ' ' << (left ? std::left : std::right) << std::setw(w) << v;
  };
  s << ' ';
  cell("layer", width, true);
  cell("replicas", 8), cell("unfolding", 9, true);
  for (const char* h : ht ? std::vector<const char*>{"MVM", "vector", "memory", "comm"}
                          : std::vector<const char*>{"start", "finish"})
    cell(h, 9);
  s << "\n";
  for (std::size_t i = 0; i < r.layers.size(); ++i) {
    const CompiledLayer& l = r.layers[i];
    const xbar::NodeProfile& t = l.time;
    s << (static_cast<int>(i) == bottleneck ? '*' : ' ');
    cell(l.name, width, true);
    cell(l.replicas, 8), cell(l.unfolding, 9, true);
    if (ht)
      cell(t.busiestMvmNs, 9), cell(t.busiestVectorNs, 9), cell(t.busiestMemoryNs, 9),
          cell(t.busiestCommNs, 9);
    else
      cell(t.firstStartNs, 9), cell(t.lastFinishNs, 9);
    s << "\n";
  }
  return s.str();
}

/// What was compiled and its figures, the candidates left out and then `program` (the first instructions),
/// at most `maxLines` lines in all.
std::string listingOf(const CrossbarLayerContext& c, std::uint64_t id, const NetworkCompileResult& r,
                      const Evaluation& e, const std::string& program, std::size_t maxLines) {
  std::ostringstream s;
  auto count = [](std::int64_t n) { return withThousands(n); };
  auto ns = [](double v) { return withThousands(std::llround(v)) + " ns"; };
  s << choiceText(c.choice(id)) << " on " << r.backend << " (" << r.acceleratorSummary << ")\n";
  if (r.layers.size() == 1) {
    const CompiledLayer& layer = r.layers.front();
    s << layer.op << " layer, batch 1, " << xbar::timingModelName(r.timing) << " timing, "
      << r.accelerator.elementBits
      << "-bit data and weights as the accelerator holds them (the kernel's element types are not read)\n"
      << count(layer.replicas) << " replica(s) of " << count(layer.agsPerReplica) << " array group(s), ";
  } else {
    s << r.network << ": " << r.layers.size() << " CONV and FC layers, batch 1, "
      << xbar::timingModelName(r.timing) << " timing, " << r.accelerator.elementBits
      << "-bit data and weights" << (r.gaChoice.empty() ? "" : "; the genetic search's pick: " + r.gaChoice)
      << "\n"
      << count(totalReplicas(r)) << " layer replicas, ";
  }
  s << count(r.crossbarsUsed) << " of " << count(r.crossbarsTotal) << " crossbars, " << coresUsed(r)
    << " core(s)\n";
  if (r.periodNs)
    s << "period " << ns(*r.periodNs) << " (" << withDecimals(r.throughputPerS.value_or(0), 1)
      << " samples/s), first sample " << ns(sampleNs(r)) << "\n";
  else
    s << "latency " << ns(sampleNs(r)) << "\n";
  s << "energy " << withDecimals(r.energyNj, 1) << " nJ (idle leakage " << withDecimals(r.energy.idleNj, 1)
    << " nJ); " << count(r.mvmCount) << " MVMs, " << count(r.instructions) << " instructions in "
    << count(r.instructionGroups) << " instruction groups\n";
  if (r.layers.size() > 1) s << layerPipeline(r, e);
  for (const std::string& why : c.leftOut()) s << "not listed: " << why << "\n";
  if (const std::string note = compileNote(r); !note.empty()) s << note << "\n";
  s << "\n";
  const std::string header = firstLines(s.str(), maxLines);
  const auto lines = static_cast<std::size_t>(std::count(header.begin(), header.end(), '\n'));
  return header + firstLines(program, maxLines - lines);
}

}  // namespace

const std::vector<SubPhaseDecl>& crossbarSubPhases() {
  static const std::vector<SubPhaseDecl> s = {
      {"mvm", "MVM", 1, "the slowest core's matrix-vector multiplications (PIMCOMP-NN's accounting)"},
      {"vector", "vector", 1, "the slowest core's vector operations and local-memory moves"},
      {"memory", "global memory", 1, "the slowest core's loads and stores (and its wait for loaded inputs)"},
      {"communication", "communication", 1, "the slowest core's transfers and rendezvous waits"},
  };
  return s;
}

const std::vector<StatDecl>& crossbarFactColumns() {
  static const std::vector<StatDecl> s = {
      {"period_ns", "period", "ns", "HT: the steady state's time per sample (empty in LL)", false},
      {"throughput_per_s", "throughput", "samples/s", "HT: samples per second in the steady state", false,
       true},
      {"replicas", "replicas", "count", "copies of the layers' weights in the arrays, summed over layers"},
      {"crossbars_used", "crossbars used", "count", "crossbars the layers' array groups hold"},
      {"mvms", "MVMs", "count", "MVMUL instructions of one sample"},
  };
  return s;
}

Evaluation layerEvaluation(const NetworkCompileResult& r, std::uint64_t id, const EvalOptions& o) {
  Evaluation e;
  e.draft = id;
  e.provenance = Provenance::Simulated;
  e.tCKns = 1.0;  // the profiler counts nanoseconds: a cycle here is 1 ns
  const auto total = static_cast<std::int64_t>(std::llround(sampleNs(r)));
  e.cycles = {0, total, 0};
  e.totalCycles = total;
  e.timeNs = static_cast<double>(total);
  e.subCycles = slowestCoreSplit(r.profile, total);
  fillEnergy(r.energy, e);
  fillFacts(r, e);
  fillStages(r, e);
  if (o.keepUnitStats) e.unitStats = coreStatistics(r);
  e.unitsUsed = coresUsed(r);
  return e;
}

LayerAnalysis analyseLayer(const CrossbarLayerContext& c, std::uint64_t id, const EvalOptions& o,
                           std::size_t maxLines) {
  cb::InstructionText program(maxLines);
  const NetworkCompileResult r = c.compile(id, o.sim.crossbarTiming, &program, o.cancel);
  Evaluation e = layerEvaluation(r, id, o);
  std::string listing = listingOf(c, id, r, e, program.text(), maxLines);
  return {std::move(e), std::move(listing)};
}

}  // namespace pim
