// SPDX-License-Identifier: Apache-2.0
#include "engine/target/pim_hierarchy/hierarchy_evaluation.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "engine/common/text_lines.h"

#include "engine/convmap/trace_bridge.h"

namespace pim {
namespace {

namespace cm = convmap;

enum SubPhase : int { Compute = 0, PeBuffers, Buffers, DramTransfer, DramActivation, kSubPhases };

/// The model's latency is max(compute, each level's time) (compute and memory overlap, pimopt eq. 40): a
/// sum of parts would overstate it. So the compute phase is the one bound that sets the latency, and the
/// sub-phases split exactly that bound (a DRAM bound into its transfer and its row activations, which are
/// serial in the tensor's bank); the bounds that did not set it are facts ("cycles_<level>", ...). The first
/// of equal bounds wins, in the evaluator's order (compute, then the levels innermost first).
std::vector<std::int64_t> boundSplit(const cm::Hierarchy& h, const cm::ConvCost& c) {
  std::vector<std::int64_t> s(kSubPhases, 0);
  if (c.latencyCycles == c.computeCycles) {
    s[Compute] = c.latencyCycles;
    return s;
  }
  const int dram = h.dramLevel();
  for (int lv = 0; lv < dram; ++lv)
    if (c.levels[static_cast<std::size_t>(lv)].cycles == c.latencyCycles) {
      s[lv == 0 ? PeBuffers : Buffers] = c.latencyCycles;
      return s;
    }
  int worst = 0;
  for (int t = 1; t < cm::kTensors; ++t)
    if (c.dramCycles[t] > c.dramCycles[worst]) worst = t;
  s[DramActivation] = c.rowActs.count[worst] * h.timing.activationCycles();
  s[DramTransfer] = c.dramCycles[worst] - s[DramActivation];
  return s;
}

void fillEnergy(const cm::Hierarchy& h, const cm::ConvCost& c, Evaluation& e) {
  const int dram = h.dramLevel();
  std::string buffers;
  for (int lv = 0; lv < dram; ++lv) {
    e.energy.bufferMoves_pJ += c.levels[static_cast<std::size_t>(lv)].energyPj;
    buffers += (buffers.empty() ? "" : ", ") + h.levels[static_cast<std::size_t>(lv)].name;
  }
  e.energy.rdWr_pJ = c.levels[static_cast<std::size_t>(dram)].energyPj;
  e.energy.pimCompute_pJ = c.macEnergyPj;
  e.energy.sources = {
      {"pimCompute", "hierarchy: MACs x pe_array.mac_energy_pj"},
      {"bufferMoves", "hierarchy: bytes read and written at " + buffers + " per block x access_energy_pj"},
      {"rdWr", "hierarchy: bytes read and written at " + h.dram().name + " per block x access_energy_pj"}};
  e.energyPj = c.energyPj;
}

void fillFacts(const cm::Hierarchy& h, const cm::ConvMapping& m, const cm::ConvCost& c, Evaluation& e) {
  const double pes = static_cast<double>(cm::spatialProduct(m, cm::SlotH) * cm::spatialProduct(m, cm::SlotW));
  e.facts = {{"macs", static_cast<double>(c.macs)},
             {"pes_used", pes},
             {"cycles_compute", static_cast<double>(c.computeCycles)}};
  for (std::size_t lv = 0; lv < c.levels.size(); ++lv) {
    e.facts.emplace_back("cycles_" + h.levels[lv].name, static_cast<double>(c.levels[lv].cycles));
    e.facts.emplace_back("energy_pj_" + h.levels[lv].name, c.levels[lv].energyPj);
  }
  for (int t = 0; t < cm::kTensors; ++t) {
    const std::string name(cm::kTensorNames[t]);
    e.facts.emplace_back("row_acts_" + name, static_cast<double>(c.rowActs.count[t]));
    e.facts.emplace_back("dram_cycles_" + name, static_cast<double>(c.dramCycles[t]));
  }
  e.facts.emplace_back("row_acts_total", static_cast<double>(c.rowActs.total()));
}

/// "the input's bank; iterations 0-1,567 of 25,088 of the nest P14 > C4 > ..." (loops outer to inner).
std::string unitNote(const std::vector<cm::NestLoop>& loops, int bank, std::int64_t first, std::int64_t last,
                     std::int64_t total) {
  std::string nest;
  for (const auto& l : loops)
    nest += (nest.empty() ? "" : " > ") + std::string(cm::kDimNames[l.dim]) + std::to_string(l.bound);
  return "the " + std::string(cm::kTensorNames[bank]) + "'s bank; tile iterations " + std::to_string(first) +
         "-" + std::to_string(last) + " of " + std::to_string(total) +
         (nest.empty() ? std::string() : " of the nest " + nest + " (outer to inner, levels above the PEs)");
}

/// Row statistics per (time slice, bank) from the trace; false with the reason when it would walk too long.
bool fillUnitStats(const HierarchyContext& c, const cm::ConvMapping& m, Evaluation& e, std::string& why) {
  const sim::ConvTraceSpec spec = cm::traceSpec(c.layer(), c.hierarchy(), m, kTraceSlices);
  const double steps = sim::traceWalkSteps(spec);
  if (steps > static_cast<double>(kMaxStatsTraceSteps)) {
    char buf[320];
    std::snprintf(
        buf, sizeof buf,
        "no per-bank statistics: the trace would take up to %.3g steps for its %.3g tile iterations, "
        "the periodic ones skipped (at most %.3g for a heat map); larger tiles below DRAM shorten "
        "it, and `map --trace` takes up to %.3g",
        steps, cm::traceIterations(m), static_cast<double>(kMaxStatsTraceSteps),
        static_cast<double>(cm::kMaxTraceSteps));
    why = buf;
    return false;
  }
  const auto r = sim::traceConv(spec);
  const std::size_t stats = hierarchyStatistics().size();
  e.unitStats.statCount = stats;
  e.unitStats.values.assign(static_cast<std::size_t>(kTraceSlices * kTraceBanks) * stats, 0.0);
  e.unitStats.notes.assign(static_cast<std::size_t>(kTraceSlices * kTraceBanks), std::string());
  const auto loops = cm::temporalLoops(m, 1);
  for (std::size_t s = 0; s < r.slices.size() && s < static_cast<std::size_t>(kTraceSlices); ++s)
    for (std::size_t b = 0; b < static_cast<std::size_t>(kTraceBanks) && b < r.slices[s].banks.size(); ++b) {
      e.unitStats.notes[s * kTraceBanks + b] = unitNote(
          loops, static_cast<int>(b), r.slices[s].firstIteration, r.slices[s].lastIteration, r.iterations);
      const sim::RowStats& x = r.slices[s].banks[b];
      const double row[] = {static_cast<double>(x.activations), static_cast<double>(x.rowHits),
                            static_cast<double>(x.bytesRead), static_cast<double>(x.bytesWritten)};
      std::copy(std::begin(row), std::end(row),
                e.unitStats.values.begin() + static_cast<std::ptrdiff_t>((s * kTraceBanks + b) * stats));
    }
  return true;
}

std::string triple(const std::array<std::int64_t, cm::kTensors>& a) {
  return std::to_string(a[0]) + "/" + std::to_string(a[1]) + "/" + std::to_string(a[2]);
}

}  // namespace

const std::vector<SubPhaseDecl>& hierarchySubPhases() {
  static const std::vector<SubPhaseDecl> s = {
      {"compute", "MACs", 1, "the PE array's MACs at its rate, when they set the latency"},
      {"pe_buffers", "PE buffers", 1, "the PE buffers' reads and writes, when they set the latency"},
      {"buffers", "buffers", 1,
       "the busiest level between the PE buffers and DRAM, when it sets the latency"},
      {"dram_transfer", "DRAM transfer", 1, "the bound tensor's DRAM bytes at DRAM's bandwidth"},
      {"dram_activation", "DRAM row activations", 1, "the bound tensor's row activations x (tRCD + tRP)"},
  };
  return s;
}

const std::vector<StatDecl>& hierarchyStatistics() {
  static const std::vector<StatDecl> s = {
      {"activations", "row activations", "count",
       "rows the bank opened in the slice (bank 0 holds the input, 1 the weight, 2 the output)"},
      {"row_hits", "row hits", "count", "accesses that found their row open"},
      {"bytes_read", "bytes read", "bytes", "bytes of tile fetches read from the bank"},
      {"bytes_written", "bytes written", "bytes", "bytes of output write-backs into the bank"},
  };
  return s;
}

const std::vector<StatDecl>& hierarchyFactColumns() {
  static const std::vector<StatDecl> s = {
      {"row_acts_input", "row acts input", "count", "DRAM row activations of the input (model)"},
      {"row_acts_weight", "row acts weight", "count", "DRAM row activations of the weight (model)"},
      {"row_acts_output", "row acts output", "count",
       "DRAM row activations of the output, write-backs included"},
      {"row_acts_total", "row acts total", "count", "DRAM row activations of the three tensors (model)"},
  };
  return s;
}

Evaluation hierarchyEvaluation(const HierarchyContext& c, const cm::ConvMapping& m, std::uint64_t id,
                               const EvalOptions& o, std::string* traceNote) {
  const cm::Hierarchy& h = c.hierarchy();
  const cm::ConvCost cost = cm::evaluate(c.layer(), h, m);
  Evaluation e;
  e.draft = id;
  e.provenance = Provenance::Analytic;
  e.tCKns = 1.0 / h.pe.frequencyGhz;
  e.cycles = {0, cost.latencyCycles, 0};
  e.totalCycles = cost.latencyCycles;
  e.timeNs = static_cast<double>(e.totalCycles) * e.tCKns;
  e.subCycles = boundSplit(h, cost);
  fillEnergy(h, cost, e);
  fillFacts(h, m, cost, e);
  std::string why;
  if (o.keepUnitStats && !fillUnitStats(c, m, e, why) && traceNote) *traceNote = why;
  e.unitsUsed = kTraceBanks;  // every tensor has its own bank (the model's placement)
  return e;
}

std::string hierarchyListing(const HierarchyContext& c, const cm::ConvMapping& m, std::size_t maxLines) {
  const cm::Hierarchy& h = c.hierarchy();
  const cm::ConvLayer& layer = c.layer();
  const cm::ConvCost cost = cm::evaluate(layer, h, m);
  std::ostringstream s;
  s << "layer " << layer.name << " (" << cm::shapeText(layer) << ") on " << h.name << "\n"
    << "mapping  " << mappingText(h, m) << "\n"
    << "latency  " << cost.latencyCycles << " cycles, bound by " << cost.boundBy << " (compute "
    << cost.computeCycles << ")\n"
    << "energy   " << cost.energyPj / 1000 << " nJ (MACs " << cost.macEnergyPj / 1000 << " nJ)\n"
    << "row activations (model)";
  for (int t = 0; t < cm::kTensors; ++t)
    s << (t ? "," : "") << " " << cm::kTensorNames[t] << " " << cost.rowActs.count[t] << " ("
      << cost.rowActs.regime[t] << ")";
  s << "\n\nlevel: cycles, energy nJ, bytes read / written / MAC operands (input/weight/output)\n";
  for (std::size_t lv = 0; lv < cost.levels.size(); ++lv) {
    const auto& l = cost.levels[lv];
    auto operands = l.operandRead;
    operands[cm::Output] += l.operandWritten[cm::Output];
    s << "  " << h.levels[lv].name << ": " << l.cycles << ", " << l.energyPj / 1000 << ", "
      << triple(l.bytesRead) << " / " << triple(l.bytesWritten) << " / " << triple(operands) << "\n";
  }
  s << "\nloop nest:\n" << cm::loopNestText(h, m);
  return firstLines(s.str(), maxLines);
}

}  // namespace pim
