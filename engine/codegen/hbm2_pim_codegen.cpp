// SPDX-License-Identifier: Apache-2.0
// Samsung HBM2-PIM (hbm2-pim.md): DCC drafts run under the same protocol as the vendor library — park-in,
// SB->AB, CRF programming, AB-PIM bursts to all even or all odd banks of the pseudo-channel (each executing
// the CRF instruction in all 8 units), AB->SB, park-out. Inputs of a GEMV are broadcast into GRF_A by host
// writes to the register row; results leave GRF_B by a write-back burst. There are no bank-level PIM
// commands, so the group-command pass cannot be switched off here.
#include <algorithm>

#include "engine/codegen/codegen_common.h"
#include "engine/codegen/rearrangement.h"
#include "sim/hbm2pim_protocol.h"

namespace pim {
namespace {

using codegen::bursts;
using codegen::burstsPerBank;
constexpr int kGrf = 8;

class Hbm2PimCodeGenerator final : public ICodeGenerator {
 public:
  std::string unsupportedReason(const Kernel& k) const override {
    return codegen::firstUnsupported(k, true, false, "", "HBM2-PIM has no softmax unit");
  }

  std::string laneReduction(const LoweringInput&, const ReductionRows&) const override {
    return "lanes: HBM2-PIM's units cannot sum lanes; GRF_B holds the 16-lane partial sums and the "
           "write-back "
           "is timed as the packed outputs (one column per 16), not as one 16-lane column per row";
  }

  void emitCompute(const LoweringInput& in, const GroupView& group, sim::ProgramBuilder& out) const override {
    const Kernel& k = in.problem.kernel();
    const BankRegions& r = group.regions;
    sim::Hbm2Emitter e(in.device, out);
    e.park();
    e.sbToAb();
    e.programCrf(kGrf);
    for (const StatementWork& w : group.work) {
      const int target = k.statements[w.statement].target.tensor;
      const std::int64_t stream = burstsPerBank(in, w.streamTensor, w.streamElems);
      const std::int64_t outCols = burstsPerBank(in, target, w.outputElems);
      e.setPimMode(true);  // entering AB-PIM zeroes GRF_B
      for (int parity = 0; parity < 2; ++parity) {
        if (w.kind == StatementWork::Kind::Elementwise) {
          emitElementwise(e, r, w, target, parity, stream);
          continue;
        }
        if (w.kind == StatementWork::Kind::Mac) {
          // Per 128 inputs: 8 WR broadcast them into GRF_A, then the MAC bursts that use them.
          const std::int64_t vec = std::max<std::int64_t>(1, bursts(in, w.broadcastTensor, w.broadcastElems));
          const std::int64_t chunks = (vec + kGrf - 1) / kGrf;
          const std::int64_t perChunk = (stream + chunks - 1) / chunks;
          for (std::int64_t c = 0, done = 0; c < chunks && done < stream; ++c, done += perChunk) {
            e.wrAll(1, sim::kHbm2RegRow, 8, kGrf, false);
            e.b.barrier();
            macBursts(e, r.tensorRow[w.streamTensor], parity, done, std::min(perChunk, stream - done));
          }
        } else {
          // A reduction against GRF_A = ones over its segmented rows (reductionRows), one column per MAC.
          macBursts(e, r.tensorRow[w.streamTensor], parity, 0,
                    reductionRows(in.problem, w, e.cfg.bytesPerColumn).columns());
        }
        writeBack(e, r.tensorRow[target], parity, outCols);
      }
      e.setPimMode(false);
    }
    e.abToSb();
    e.park();
  }

 private:
  static void macBursts(sim::Hbm2Emitter& e, std::uint32_t row, int parity, std::int64_t offset,
                        std::int64_t n) {
    const int cols = e.cfg.columns;
    for (std::int64_t done = 0; done < n; done += kGrf) {  // a barrier per 8 bursts, as the vendor library
      const std::int64_t at = offset + done;
      e.rdAll(parity, row + static_cast<std::uint32_t>(at / cols), static_cast<std::uint32_t>(at % cols),
              static_cast<int>(std::min<std::int64_t>(kGrf, n - done)), true);
      e.b.barrier();
    }
  }
  static void writeBack(sim::Hbm2Emitter& e, std::uint32_t row, int parity, std::int64_t n) {
    const int cols = e.cfg.columns;
    for (std::int64_t done = 0; done < n; done += kGrf) {
      e.wrAll(parity, row + static_cast<std::uint32_t>(done / cols), static_cast<std::uint32_t>(done % cols),
              static_cast<int>(std::min<std::int64_t>(kGrf, n - done)), true);
      e.b.barrier();
    }
  }
  // As the vendor ADD/MUL/RELU: per 8 bursts, FILL from input 0, AUTO op with input 1, write back.
  static void emitElementwise(sim::Hbm2Emitter& e, const BankRegions& r, const StatementWork& w, int target,
                              int parity, std::int64_t stream) {
    const std::int64_t tiles = stream / kGrf;
    auto tile = [&](std::int64_t at, int n, bool loop) {
      const int step = loop ? kGrf : 0;
      const int cols = e.cfg.columns;
      auto row = [&](int t) { return r.tensorRow[t] + static_cast<std::uint32_t>(at / cols); };
      const auto col = static_cast<std::uint32_t>(at % cols);
      e.rdAll(parity, row(w.streamTensor), col, n, true, 0, step);
      e.b.barrier();
      if (w.secondStream >= 0) {
        e.rdAll(parity, row(w.secondStream), col, n, true, 0, step);
        e.b.barrier();
      }
      e.wrAll(parity, row(target), col, n, true, 0, step);
      e.b.barrier();
    };
    if (tiles > 0) {
      e.b.beginLoop(tiles);
      tile(0, kGrf, true);
      e.b.endLoop();
    }
    if (stream % kGrf) tile(tiles * kGrf, static_cast<int>(stream % kGrf), false);
  }
};

}  // namespace

std::unique_ptr<ICodeGenerator> makeHbm2PimCodeGenerator() {
  return std::make_unique<Hbm2PimCodeGenerator>();
}

}  // namespace pim
