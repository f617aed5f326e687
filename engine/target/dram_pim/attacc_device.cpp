// SPDX-License-Identifier: Apache-2.0
// AttAcc (attacc.md): HBM3 with a GEMV unit per bank and a softmax unit per channel, all-bank PIM commands
// with their own spacings (under the power constraint MACAB every 6 cycles); its vendor schedule is AttAcc's
// decode-attention layout, and the vendor tiling of dcc-backends.md for GEMV and reductions.
#include "engine/kernel/library.h"
#include "engine/target/dram_pim/device_config.h"
#include "engine/target/dram_pim/dram_pim_target.h"
#include "engine/target/dram_pim/hbm3_buses.h"
#include "engine/target/dram_pim/vendor.h"
#include "sim/simulator.h"
#include "sim/vendor_attacc.h"

namespace pim {
namespace {
// Named so that the four device files can share a unity-build unit.
namespace attacc {

void configure(const Backend& b, sim::DeviceConfig& c) {
  configureHbm3Buses(b, c);
  const bool power = pimParameter(b, "power_constraint") != 0;
  c.rrdFawScope = pimParameter(b, "rrd_faw_scope_rank") != 0 ? sim::Scope::Rank : sim::Scope::PseudoChannel;
  c.pimActToMac = static_cast<int>(pimParameter(b, "ACTAB_to_MACAB"));
  c.pimMacToMac = static_cast<int>(pimParameter(b, power ? "MACAB_to_MACAB" : "MACAB_to_MACAB_nopower"));
  c.pimMacToPre = static_cast<int>(pimParameter(b, "MACAB_to_PREA"));
  c.pimPreToAct = static_cast<int>(pimParameter(b, "PREA_to_ACTAB"));
  c.pimActToAct = static_cast<int>(pimParameter(b, "ACTAB_to_ACTAB"));
  c.pimActToPre = static_cast<int>(pimParameter(b, "ACTAB_to_PREA"));
  c.macOwnDataPath = true;
}

/// Decode attention: AttAcc's own program for the compute phase (attacc.md, calibrated, K and V resident);
/// placing K, V and the query in that layout and reading the output back are the rearrangement phases of the
/// same tiling as a draft (dcc-backends.md), so the breakdown compares with DCC's drafts part for part.
Baseline vendor(const ITarget& self, const Problem& p, const EvalOptions& o, const sim::DeviceConfig& cfg) {
  if (libraryKernelOf(p.kernel()) != "attn") return vendorTilingBaseline(self, p, o, cfg);
  Baseline v;
  v.name = "vendor";
  const auto prog =
      sim::attaccDecodeAttention(cfg, p.dimSize("b"), p.dimSize("h"), p.dimSize("l"), p.dimSize("d"));
  v.available = true;
  v.summary = "AttAcc decode attention: heads over the 16 channels of each stack (K/V placed in that layout)";
  v.eval = vendorEvaluation(sim::simulate(cfg, prog), cfg.tCK_ns, p.backend());
  v.draft = vendorTilingDraft(p);
  if (v.draft) {
    // Only the copies: the draft's own compute is not what runs (timing it cost half of this call, and its
    // reads and writes were counted in the vendor's energy).
    EvalOptions copies = o;
    copies.optimizer.rearrangementOnly = true;
    const Evaluation placement = self.evaluate(p, *v.draft, copies);
    v.eval.cycles[0] = placement.cycles[0];
    v.eval.cycles[2] = placement.cycles[2];
    v.eval.preloadCycles = placement.preloadCycles;
    v.eval.energyPj += placement.energy.rdWr_pJ + placement.energy.hostIo_pJ;
  }
  v.eval.totalCycles = v.eval.cycles[0] + v.eval.cycles[1] + v.eval.cycles[2];
  v.eval.timeNs = static_cast<double>(v.eval.totalCycles) * cfg.tCK_ns;
  return v;
}

/// The MAC spacing without the power constraint is in force only when pim.power_constraint is off (the
/// estimate reads pim.MACAB_to_MACAB either way, so that one is never unread).
void unread(const Backend& b, std::vector<UnreadParameter>& out) {
  if (pimParameter(b, "power_constraint") != 0)
    out.push_back({"pim.MACAB_to_MACAB_nopower",
                   "used only when pim.power_constraint is 0 (it is 1); set that to 0 to edit this"});
}

}  // namespace attacc
}  // namespace

DramPimDevice attaccDevice() {
  return {"attacc",
          "AttAcc: HBM3 with a GEMV unit per bank and a softmax unit per channel",
          makeAttaccCodeGenerator,
          attacc::configure,
          attacc::vendor,
          attacc::unread};
}

}  // namespace pim
