// SPDX-License-Identifier: Apache-2.0
// Samsung HBM2-PIM (hbm2-pim.md): DCC drafts run under the same protocol as the vendor library — park-in,
// SB->AB, CRF programming, AB-PIM bursts to all even or all odd banks of the pseudo-channel (each executing
// the CRF instruction in all 8 units), AB->SB, park-out. A MAC's vector goes into GRF_A either by host
// writes to the register row, which reach every unit of the pseudo-channel with the same data (the vendor
// GEMV; the vector is then not placed in the banks), or, where the draft gives a channel's units slices of
// their own, by FILL reads from each unit's banks. Results leave GRF_B by a write-back burst. There are no
// bank-level PIM commands, so the group-command pass cannot be switched off here.
#include <algorithm>
#include <optional>
#include <string>

#include "engine/codegen/codegen_common.h"
#include "engine/codegen/rearrangement.h"
#include "engine/common/int_math.h"
#include "sim/hbm2pim_protocol.h"

namespace pim {
namespace {

using codegen::bursts;
using codegen::burstsPerBank;
constexpr int kGrf = 8;

// How a MAC or reduction statement uses a unit's accumulators. MAC adds a column into GRF_B[col & 7], so the
// rows summed between two write-backs must own distinct entries, and only entering AB-PIM zeroes them (the
// vendor GEMV re-enters it per output tile of 8 rows). A block is such a set of rows; after it, one WR per
// entry used stores its 16 lane partial sums (one 32-B column) in the odd bank, and the host adds the lanes.
struct AccumulatorPlan {
  bool passPerBank = false;  // each bank of the pair holds rows of its own: a pass over each
  std::int64_t rows = 0;     // rows per pass
  std::int64_t columnsPerRow = 1, rowsPerBlock = kGrf;
  std::int64_t blocks() const { return ceilDiv(rows, rowsPerBlock); }
  std::int64_t rowsIn(std::int64_t b) const { return std::min(rowsPerBlock, rows - b * rowsPerBlock); }
  std::int64_t entries(std::int64_t b) const {
    return std::min<std::int64_t>(kGrf, rowsIn(b) * columnsPerRow);
  }
  std::int64_t passes() const { return passPerBank ? 2 : 1; }
  std::int64_t columnsPerPass() const { return rows > 0 ? kGrf * (blocks() - 1) + entries(blocks() - 1) : 0; }
};

// Segmented rows of m columns: floor(8 / m) of them own distinct entries; a row of 8 or more columns takes
// every entry itself.
AccumulatorPlan reducePlan(const ReductionRows& rr) {
  AccumulatorPlan a;
  a.rows = rr.rows;
  a.columnsPerRow = std::max<std::int64_t>(1, rr.columnsPerRow);
  a.rowsPerBlock = std::max<std::int64_t>(1, kGrf / a.columnsPerRow);
  a.passPerBank = rr.banksPerRow < 2;  // with fewer rows than banks a row's halves share the accumulators
  return a;
}

std::optional<AccumulatorPlan> accumulatorPlan(const Problem& p, const StatementWork& w, int bytesPerColumn) {
  AccumulatorPlan a;
  if (w.kind == StatementWork::Kind::Mac) {
    // GEMV as the vendor lays it out: a block is 8 output rows, both banks add into them (even input tiles
    // in the even bank, odd ones in the odd), one entry per row. Only where every output dots its own row of
    // the stream with the one broadcast vector; other products (GEMM, batched GEMV) keep the packed model.
    if (w.streamElems != w.outputElems * w.broadcastElems) return std::nullopt;
    a.rows = w.outputElems;
    return a;
  }
  if (w.kind != StatementWork::Kind::Reduce) return std::nullopt;
  return reducePlan(reductionRows(p, w, bytesPerColumn));
}

// How a MAC's vector reaches GRF_A, one input tile of 8 bursts (128 inputs) at a time: 8 WR to the register
// row (bank 1, row 0x3FFF) write the same data into every unit, or, when the vector is placed in the banks
// (registerOperandBursts: units with slices of their own, or a resident vector), 8 RD of tile j from bank
// j % 2 execute FILL into GRF_A in each unit, from its own banks.
struct GrfALoad {
  const BankRegions& regions;
  int tensor = -1;
  std::int64_t bursts = 1;  // of the vector
  std::int64_t tiles() const { return ceilDiv(bursts, kGrf); }
  std::int64_t burstsIn(std::int64_t t) const { return std::min<std::int64_t>(kGrf, bursts - t * kGrf); }
  void emit(sim::Hbm2Emitter& e, std::int64_t t) const {
    if (tensor < 0 || regions.tensorBurstsPerBank[tensor] == 0) {
      e.wrAll(1, sim::kHbm2RegRow, 8, kGrf, false);
    } else {
      const int cols = e.cfg.columns;
      const std::int64_t at = (t / 2) * kGrf;
      e.rdAll(static_cast<int>(t % 2), regions.tensorRow[tensor] + static_cast<std::uint32_t>(at / cols),
              static_cast<std::uint32_t>(at % cols), static_cast<int>(burstsIn(t)), true);
    }
    e.b.barrier();
  }
};

class Hbm2PimCodeGenerator final : public ICodeGenerator {
 public:
  std::string unsupportedReason(const Kernel& k) const override {
    return codegen::firstUnsupported(k, true, false, "", "HBM2-PIM has no softmax unit");
  }

  std::string laneReduction(const LoweringInput&, const ReductionRows& rr) const override {
    const AccumulatorPlan a = reducePlan(rr);
    return "lanes: HBM2-PIM's units cannot sum lanes; MAC adds into GRF_B[col & 7], so rows go in blocks "
           "of " +
           std::to_string(a.rowsPerBlock) + ", each entered in AB-PIM (zeroing GRF_B) and written back as " +
           std::to_string(a.entries(0)) +
           " column(s) of 16 lane partial sums in the odd bank; the host reads them and adds the lanes";
  }

  std::optional<LanePartials> lanePartials(const Problem& p, const StatementWork& w,
                                           int bytesPerColumn) const override {
    const auto a = accumulatorPlan(p, w, bytesPerColumn);
    if (!a || a->rows <= 0) return std::nullopt;
    return LanePartials{a->passes() * a->columnsPerPass(), 1};
  }

  std::optional<std::int64_t> registerOperandBursts(const LoweringInput& in,
                                                    const StatementWork& w) const override {
    const int t = w.broadcastTensor;
    if (!in.problem.isResident(t) && sameTileOnEveryCore(in.problem, in.mapping.draft, t)) return 0;
    // Input tile j (8 bursts, one GRF_A load) in bank j % 2, as the MACs that use it read their weights.
    return kGrf * ceilDiv(ceilDiv(std::max<std::int64_t>(1, bursts(in, t, w.broadcastElems)), kGrf), 2);
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
      const auto plan = accumulatorPlan(in.problem, w, e.cfg.bytesPerColumn);
      const std::int64_t stream = burstsPerBank(in, w.streamTensor, w.streamElems);
      // The broadcast vector, in bursts: only a MAC has one.
      const std::int64_t vec =
          w.broadcastTensor < 0 ? 1
                                : std::max<std::int64_t>(1, bursts(in, w.broadcastTensor, w.broadcastElems));
      if (w.kind == StatementWork::Kind::Elementwise) {
        e.setPimMode(true);
        for (int parity = 0; parity < 2; ++parity) emitElementwise(e, r, w, target, parity, stream);
        e.setPimMode(false);
      } else if (!plan) {
        emitPackedMac(e, r, stream, GrfALoad{r, w.broadcastTensor, vec},
                      burstsPerBank(in, target, w.outputElems), w.streamTensor, target);
      } else if (w.kind == StatementWork::Kind::Mac) {
        emitMac(e, *plan, GrfALoad{r, w.broadcastTensor, vec}, r.tensorRow[w.streamTensor],
                r.tensorRow[target]);
      } else {
        emitReduce(e, *plan, r.tensorRow[w.streamTensor], r.tensorRow[target]);
      }
    }
    e.abToSb();
    e.park();
  }

 private:
  // Per block: enter AB-PIM, then per input tile of 128 (8 bursts, even tiles in the even bank, odd ones in
  // the odd) load it into GRF_A and the block's rows MAC over it; then the write-back.
  static void emitMac(sim::Hbm2Emitter& e, const AccumulatorPlan& a, const GrfALoad& vec,
                      std::uint32_t streamRow, std::uint32_t targetRow) {
    std::int64_t offset[2] = {0, 0};
    for (std::int64_t b = 0; b < a.blocks(); ++b) {
      e.setPimMode(true);  // entering AB-PIM zeroes GRF_B
      for (int parity = 0; parity < 2; ++parity) {
        for (std::int64_t t = parity; t < vec.tiles(); t += 2) {
          vec.emit(e, t);
          const std::int64_t n = a.rowsIn(b) * vec.burstsIn(t);
          macBursts(e, streamRow, parity, offset[parity], n);
          offset[parity] += n;
        }
      }
      writeBack(e, targetRow, kGrf * b, a.entries(b));
      e.setPimMode(false);
    }
  }
  // A product that is not one vector against rows (GEMM, batched GEMV), as timing model 6 has it: per parity
  // the stream in chunks, each after a GRF_A load, and the packed output tile written back.
  static void emitPackedMac(sim::Hbm2Emitter& e, const BankRegions& r, std::int64_t stream,
                            const GrfALoad& vec, std::int64_t outCols, int streamTensor, int target) {
    e.setPimMode(true);
    for (int parity = 0; parity < 2; ++parity) {
      const std::int64_t chunks = vec.tiles(), perChunk = ceilDiv(stream, chunks);
      for (std::int64_t c = 0, done = 0; c < chunks && done < stream; ++c, done += perChunk) {
        vec.emit(e, c);
        macBursts(e, r.tensorRow[streamTensor], parity, done, std::min(perChunk, stream - done));
      }
      for (std::int64_t done = 0; done < outCols; done += kGrf) {
        const int cols = e.cfg.columns;
        e.wrAll(parity, r.tensorRow[target] + static_cast<std::uint32_t>(done / cols),
                static_cast<std::uint32_t>(done % cols),
                static_cast<int>(std::min<std::int64_t>(kGrf, outCols - done)), true);
        e.b.barrier();
      }
    }
    e.setPimMode(false);
  }
  // A reduction against GRF_A = ones over its segmented rows, one column per MAC, block by block.
  static void emitReduce(sim::Hbm2Emitter& e, const AccumulatorPlan& a, std::uint32_t streamRow,
                         std::uint32_t targetRow) {
    for (std::int64_t pass = 0; pass < a.passes(); ++pass) {
      for (std::int64_t b = 0; b < a.blocks(); ++b) {
        e.setPimMode(true);
        const std::int64_t at = b * a.rowsPerBlock * a.columnsPerRow, n = a.rowsIn(b) * a.columnsPerRow;
        for (int parity = 0; parity < 2; ++parity) {
          if (a.passPerBank && parity != pass) continue;
          macBursts(e, streamRow, parity, at, n);
        }
        writeBack(e, targetRow, pass * a.columnsPerPass() + kGrf * b, a.entries(b));
        e.setPimMode(false);
      }
    }
  }
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
  // `n` entries of GRF_B into the odd bank (a WR there stores GRF_B[col & 7]) from column `first` (a multiple
  // of 8) of the output tile.
  static void writeBack(sim::Hbm2Emitter& e, std::uint32_t row, std::int64_t first, std::int64_t n) {
    const int cols = e.cfg.columns;
    e.wrAll(1, row + static_cast<std::uint32_t>(first / cols), static_cast<std::uint32_t>(first % cols),
            static_cast<int>(n), true);
    e.b.barrier();
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
