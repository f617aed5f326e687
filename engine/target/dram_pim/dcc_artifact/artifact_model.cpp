// SPDX-License-Identifier: Apache-2.0
#include "engine/target/dram_pim/dcc_artifact/artifact_model.h"

#include <sstream>

#include "engine/common/error.h"
#include "engine/kernel/library.h"
#include "engine/target/dram_pim/device_config.h"
#include "engine/target/dram_pim/program.h"
#include "engine/target/dram_pim/vendor.h"
#include "sim/simulator.h"

namespace pim::dcc {
namespace {

/// The artifact's kernel behind a PIMScope library kernel, and its dimensions from the shape: 3-D kernels
/// divide their heads (or batch rows) over the system's stacks before tiling (dcc-artifact.md); 2-D kernels
/// run on one stack as given.
struct KernelMap {
  const char* library;
  const char* artifact;
  std::vector<std::vector<std::string>> loopVars;   // per artifact dimension
  std::vector<std::vector<std::string>> shapeDims;  // multiplied per artifact dimension
};

const std::vector<KernelMap>& kernelMaps() {
  static const std::vector<KernelMap> maps = {
      {"red", "RED", {{"b"}, {"i"}}, {{"b"}, {"n"}}},
      {"va", "VA", {{"b"}, {"i"}}, {{"b"}, {"n"}}},
      {"relu", "RELU", {{"b"}, {"i"}}, {{"b"}, {"n"}}},
      {"gemv", "GEMV", {{"b"}, {"i"}, {"o"}}, {{"b"}, {"in"}, {"out"}}},
      {"mmtv", "GEMV", {{"i"}, {"k"}, {"j"}}, {{"i"}, {"k"}, {"j"}}},
      {"attn", "ATTN", {{"x", "y"}, {"e"}, {"t"}}, {{"b", "h"}, {"d"}, {"l"}}},
  };
  return maps;
}

/// The HBM3-PIM fork's all-bank MAC spacing under the power constraint (its HBM3_5.2Gbps preset, nCCDAB).
constexpr int kForkCcdAb = 6;

Evaluation labelOf(const ArtifactTrace& tr, const sim::DeviceConfig& device, const Backend& b) {
  sim::SimOptions so;
  // The artifact's frontend sends the one trace in order and a channel takes a PIM_BARRIER only once it has
  // drained; each barrier goes to all channels in turn, so no channel sees the next phase's requests before
  // the slowest channel has drained: a barrier is a global step. Between barriers a full request buffer
  // stops the whole trace (sim/frontend.h).
  so.globalBarriers = true;
  so.frontend = &tr.sink.frontendOrder();
  Evaluation e = vendorEvaluation(sim::simulate(device, tr.program, so), device.tCK_ns, b);
  e.unitsUsed = static_cast<int>(
      std::min<std::int64_t>(channelsOf(tr.rounded) * banksOf(tr.rounded), std::int64_t{kGroups} * kCores));
  return e;
}

}  // namespace

ArtifactKernel artifactKernel(const Problem& p) {
  const std::string family = p.backend().family;
  const std::string lib = libraryKernelOf(p.kernel());
  for (const KernelMap& m : kernelMaps()) {
    if (lib != m.library) continue;
    ArtifactKernel k;
    k.recipe = findRecipe(family, m.artifact);
    if (!k.recipe) {
      throw InputError(std::string("DCC artifact mode: the artifact has no ") + m.artifact + " trace for " +
                       family + " (hbm-pim: RED, VA, RELU, GEMV; attacc: RED, GEMV, ATTN)");
    }
    k.loopVars = m.loopVars;
    for (const auto& names : m.shapeDims) {
      std::int64_t n = 1;
      for (const std::string& d : names) n *= p.dimSize(d);
      k.dims.push_back(n);
    }
    if (k.dims.size() == 3) k.dims[0] = ceilDiv(k.dims[0], std::max(1, p.backend().system.devices));
    return k;
  }
  throw InputError("DCC artifact mode: kernel '" + p.kernel().name +
                   "' is none of the artifact's (red, va, relu, gemv/mmtv as GEMV, attn as ATTN)");
}

ArtifactTrace artifactTrace(const ArtifactKernel& k, const Tiling& t, bool inference) {
  ArtifactTrace tr;
  tr.rounded = roundToPowersOfTwo(t);
  tr.rounds = roundsFor(*k.recipe, tr.rounded);
  if (tr.rounds == 0) {
    throw InputError("DCC artifact mode: " + tilingLabel(t) +
                     ": one row of its per-core tiles does not fit a 16-MiB bank");
  }
  tr.rounded[0].tile = ceilDiv(t[0].tile, tr.rounds);
  k.recipe->emit(tr.rounded, tr.rounds, inference, tr.sink);
  tr.program = tr.sink.take();
  return tr;
}

sim::DeviceConfig artifactDevice(sim::DeviceConfig c) {
  c.barrierMode = sim::BarrierMode::Drain;  // PIM_BARRIER blocks until every buffer of the channel drained
  c.separateRowColumnBus = true;            // a row and a column command may issue in the same cycle
  c.pimMacToMac = kForkCcdAb;
  c.pimOpsByAddress = true;        // HBM-PIM's LD_OP1/ADD_OP1/MAC_OP1 by address, WB/RELU/ACC_RESET untimed
  c.allBankRowsByChannel = true;   // its PREA and ACTAB held by the channel's constraints only
  c.oneRowCommandPerCycle = true;  // its row bus carries one command a cycle
  c.rankByActivate = true;         // its controller picks by command: a PRE's request ranked by its ACT
  c.finalize();
  return c;
}

Tiling tilingOfDraft(const Problem& p, const ArtifactKernel& k, const Draft& d) {
  const DraftSpace& space = p.space();
  std::vector<std::int64_t> groups(k.dims.size(), 1), cores(k.dims.size(), 1);
  for (int i = 0; i < space.partCount(); ++i) {
    const std::string& var = p.kernel().loops[space.representative(i, d.parts[i]).var].var;
    std::size_t dim = 0;
    while (dim < k.loopVars.size() &&
           std::find(k.loopVars[dim].begin(), k.loopVars[dim].end(), var) == k.loopVars[dim].end())
      ++dim;
    if (dim == k.loopVars.size()) {
      throw InputError("DCC artifact mode: draft part " + std::to_string(i) + " partitions loop '" + var +
                       "', which has no dimension in the artifact's " + k.recipe->kernel);
    }
    groups[dim] *= d.parts[i].groups;
    cores[dim] *= d.parts[i].cores;
  }
  Tiling t;
  for (std::size_t i = 0; i < k.dims.size(); ++i)
    t.push_back({groups[i], cores[i], ceilDiv(k.dims[i], groups[i] * cores[i])});
  return t;
}

Evaluation evaluateTiling(const Problem& p, const Tiling& t, const EvalOptions& o,
                          const sim::DeviceConfig& backendDevice) {
  const ArtifactKernel k = artifactKernel(p);
  const Tiling checked = checkedTiling(k.dims, t);
  const ArtifactTrace tr = artifactTrace(k, checked, o.model == LabelModel::DccInference);
  return labelOf(tr, artifactDevice(backendDevice), p.backend());
}

Evaluation evaluateTiling(const Problem& p, const Tiling& t, const EvalOptions& o) {
  return evaluateTiling(p, t, o, deviceConfigFor(p.backend(), o.sim));
}

std::vector<Tiling> artifactDrafts(const Problem& p) { return generateDrafts(artifactKernel(p).dims); }

Evaluation evaluateDraft(const Problem& p, const Draft& d, const EvalOptions& o,
                         const sim::DeviceConfig& backendDevice) {
  Evaluation e = evaluateTiling(p, tilingOfDraft(p, artifactKernel(p), d), o, backendDevice);
  e.draft = d.id;
  return e;
}

Baseline vendorBaseline(const Problem& p, const EvalOptions& o, const sim::DeviceConfig& backendDevice) {
  Baseline v;
  v.name = "vendor";
  const ArtifactKernel k = artifactKernel(p);
  const Tiling t = vendorTiling(k.dims);
  v.available = true;
  v.summary =
      "DCC artifact's vendor tiling " + tilingLabel(t) + " (" + std::string(labelModelName(o.model)) + ")";
  v.eval = evaluateTiling(p, t, o, backendDevice);
  return v;
}

std::string listing(const Problem& p, const Tiling& t, const EvalOptions& o, std::size_t maxLines) {
  const ArtifactKernel k = artifactKernel(p);
  const ArtifactTrace tr = artifactTrace(k, checkedTiling(k.dims, t), o.model == LabelModel::DccInference);
  std::ostringstream os;
  os << "; DCC artifact " << k.recipe->family << " " << k.recipe->kernel << " " << tilingLabel(t)
     << ", rounded " << tilingLabel(tr.rounded) << " (rows per round), " << tr.rounds << " round(s)\n;";
  for (int c = 0; c < kCmdCount; ++c)
    if (const std::int64_t n = tr.sink.count(static_cast<Cmd>(c)))
      os << " " << cmdName(static_cast<Cmd>(c)) << "=" << n;
  os << "\n" << commandListing(tr.program, maxLines);
  return os.str();
}

}  // namespace pim::dcc
