// SPDX-License-Identifier: Apache-2.0
// Samsung HBM2-PIM (hbm2-pim.md): one command bus per pseudo-channel, refresh per rank with rank 0 first at
// tREFI/2 and closed lazily as DRAMSim2's controller does, tFAW not enforced; its vendor library issues GEMV
// (b = 1), ADD, MUL and RELU as fixed protocols.
#include <functional>

#include "engine/kernel/library.h"
#include "engine/target/dram_pim/dram_pim_target.h"
#include "engine/target/dram_pim/vendor.h"
#include "sim/simulator.h"
#include "sim/vendor_hbm2pim.h"

namespace pim {
namespace {
// Named so that the four device files can share a unity-build unit.
namespace hbm2_pim {

void configure(const Backend&, sim::DeviceConfig& c) {
  c.refreshScope = sim::Scope::Rank;
  c.staggerRefresh = true;
  // The reference's controller is DRAMSim2's (config.h): its refresh, its barrier-group look-ahead, and one
  // bank state per AB-mode half.
  c.lazyRefresh = true;
  c.barrierMode = sim::BarrierMode::Window;
  c.maskTimedByAddressedBank = true;
}

/// The library's loads and read-back for `p`'s residency: its inputs in kernel order, then its output (the
/// library kernels have at most two inputs and one output).
/// With `preload`, the one-time loads of its resident inputs instead.
sim::Hbm2Copies copies(const Problem& p, bool preload = false) {
  std::vector<bool> in, out;
  for (std::size_t t = 0; t < p.kernel().tensors.size(); ++t) {
    const bool moved = p.isResident(static_cast<int>(t)) == preload;
    if (p.kernel().tensors[t].role == TensorRole::Input) in.push_back(moved);
    if (p.kernel().tensors[t].role == TensorRole::Output) out.push_back(moved && !preload);
  }
  return {!in.empty() && in[0], in.size() > 1 && in[1], !out.empty() && out[0]};
}

/// Samsung's library protocol for `p`, simulated as the library issues it, on the backend's pseudo-channels.
Baseline vendor(const ITarget&, const Problem& p, const EvalOptions& o, const sim::DeviceConfig& cfg) {
  Baseline v;
  v.name = "vendor";
  const Kernel& k = p.kernel();
  const std::string lib = libraryKernelOf(k);
  const int channels = p.backend().totalGroups();
  std::function<sim::Program(sim::Hbm2Copies)> program;  // the library's program with the given copies
  if (lib == "gemv") {
    if (p.dimSize("b") != 1) {
      v.reason = "the HBM2-PIM library's GEMV takes one vector (b = 1)";
      return v;
    }
    program = [&](sim::Hbm2Copies c) {
      return sim::hbm2pimGemv(cfg, channels, p.dimSize("out"), p.dimSize("in"), c);
    };
    v.summary = "Samsung PIM library GEMV: 64*C-row output tiles, 128-input tiles split even/odd banks";
  } else if (lib == "va" || lib == "mul" || lib == "relu") {
    const auto op = lib == "va"    ? sim::Hbm2EltOp::Add
                    : lib == "mul" ? sim::Hbm2EltOp::Mul
                                   : sim::Hbm2EltOp::Relu;
    const std::int64_t n = p.dimSize("b") * p.dimSize("n");
    program = [&, op, n](sim::Hbm2Copies c) { return sim::hbm2pimEltwise(cfg, channels, n, op, c); };
    v.summary = "Samsung PIM library " + k.name + ": 2048*C-element tiles, 8 bursts per bank per tile";
  } else {
    v.reason = "the HBM2-PIM vendor library has no " + k.name + " kernel (it has GEMV, ADD, MUL, RELU)";
    return v;
  }
  v.available = true;
  v.eval = vendorEvaluation(sim::simulate(cfg, program(copies(p))), cfg.tCK_ns, p.backend());
  // The compute phase is timed as the reference times a kernel: from a cold start at cycle 0, so that its
  // refresh schedule matches (hbm2-pim.md, "What a kernel's reported time counts"); the loads before it and
  // the read-back after it are the rearrangement phases of the full run.
  v.eval.cycles[1] = sim::simulate(cfg, program(sim::Hbm2Copies::none())).phase(sim::Phase::Compute);
  v.eval.totalCycles = v.eval.cycles[0] + v.eval.cycles[1] + v.eval.cycles[2];
  v.eval.timeNs = static_cast<double>(v.eval.totalCycles) * cfg.tCK_ns;
  if (o.preload && p.residency().any())
    v.eval.preloadCycles = sim::simulate(cfg, program(copies(p, true))).phase(sim::Phase::InputRearrangement);
  return v;
}

/// The pim.* fields document hbm2-pim.md's protocol; the simulator and the vendor programs take the
/// spacings from timing.* and the register layout as the spec fixes it.
void unread(const Backend&, std::vector<UnreadParameter>& out) {
  for (const char* key :
       {"pim.RD_to_PRE", "pim.WR_to_PRE", "pim.RD_to_WR", "pim.WR_to_RD_sameBG", "pim.COL_to_COL_AB"})
    out.push_back({key,
                   "the HBM2-PIM simulator derives this spacing from the JEDEC timing (timing.*) by the "
                   "formula its source gives; edit those fields instead"});
  out.push_back(
      {"pim.refreshOffsetRank0",
       "the simulator staggers rank 0's refresh by half of timing.tREFI itself; edit timing.tREFI"});
  for (const char* key :
       {"pim.crfEntries", "pim.grfAEntries", "pim.grfBEntries", "pim.srfEntries", "pim.controlRow"})
    out.push_back({key,
                   "the vendor library's register files and control row are fixed in its command programs "
                   "as hbm2-pim.md gives them; this field documents them"});
}

}  // namespace hbm2_pim
}  // namespace

DramPimDevice hbm2PimDevice() {
  return {"hbm2-pim",
          "Samsung HBM2-PIM: FP16 SIMD units per bank pair, driven by the vendor's AB-PIM protocol",
          makeHbm2PimCodeGenerator, hbm2_pim::configure, hbm2_pim::vendor, hbm2_pim::unread,
          // 7: a MAC or reduction is written back per block of 8 rows as lane partial sums (GRF_B[col & 7]
          // holds one row each between AB-PIM entries), which the host reads from the odd bank and adds.
          // 8: a MAC's vector is written by the host into GRF_A alone (not also placed in the banks) where
          // every unit of a channel takes the same slice, else FILLed from each unit's banks.
          // 9: each output tensor is read back from its own banks (a kernel mixing lane partial sums with
          // packed results read every tensor from the odd bank only).
          sim::kTimingModelVersion + 3};
}

}  // namespace pim
