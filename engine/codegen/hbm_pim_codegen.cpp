// SPDX-License-Identifier: Apache-2.0
// DCC's HBM3-based HBM-PIM (dcc-backends.md): a 16-way FP16 FPU shared by two banks with an 8-entry GRF per
// bank; LD / MAC / ADD / MUL / WB commands are broadcast to the channel over the open row of every bank and
// serialise like column commands. Banks pair up as even and odd halves (bank index mod 4 in {0,1} vs {2,3}),
// and a kernel processes one half, then the other. GDDR6-AiM uses the same pattern without halves (a MAC unit
// per bank, no sharing).
#include <algorithm>

#include "engine/codegen/codegen_common.h"
#include "engine/codegen/emit.h"
#include "engine/codegen/rearrangement.h"

namespace pim {
namespace {

using codegen::bursts;
using codegen::burstsPerBank;

constexpr std::int64_t kGrfEntries = 8;

// Where a reduction's 16 lanes become one value: HBM-PIM's FPU has no lane reduction, so the GRF sums them by
// halving steps (DCC section 4.3: the MAC tree in the registers); GDDR6-AiM's MAC unit ends in an adder tree.
enum class LaneReduction : std::uint8_t { RegisterTree, AdderTree };

class BroadcastSimdCodeGenerator : public ICodeGenerator {
 public:
  BroadcastSimdCodeGenerator(int halves, LaneReduction lanes, std::string softmaxWhy)
      : m_halves(halves), m_lanes(lanes), m_softmaxWhy(std::move(softmaxWhy)) {}

  std::string unsupportedReason(const Kernel& k) const override {
    return codegen::firstUnsupported(k, true, false, "", m_softmaxWhy);
  }

  void emitCompute(const LoweringInput& in, const GroupView& group, sim::ProgramBuilder& out) const override {
    const sim::DeviceConfig& d = in.device;
    const BankRegions& r = group.regions;
    const std::vector<int>& live = group.liveBanks;
    const bool broadcast = codegen::useGroupCommands(in);
    for (int half = 0; half < m_halves; ++half) {
      std::vector<int> banks;
      for (int f = 0; f < d.banksPerChannel(); ++f) {
        const bool inHalf = m_halves == 1 || (f % 4 < 2) == (half == 0);
        // Group commands act on every bank of the half (padded tiles); bank-level ones only on live banks.
        if (inHalf && (broadcast || std::find(live.begin(), live.end(), f) != live.end())) banks.push_back(f);
      }
      if (banks.empty()) continue;
      for (const StatementWork& w : group.work) emitStatement(in, r, w, banks, broadcast, out);
    }
  }

 private:
  // One GRF-sized chunk at a time: load, operate, write back, each over its own row region.
  void emitStatement(const LoweringInput& in, const BankRegions& r, const StatementWork& w,
                     const std::vector<int>& banks, bool broadcast, sim::ProgramBuilder& out) const {
    const Kernel& k = in.problem.kernel();
    const int target = k.statements[w.statement].target.tensor;
    const std::int64_t stream = burstsPerBank(in, w.streamTensor, w.streamElems);
    const std::int64_t outCols = burstsPerBank(in, target, w.outputElems);
    auto run = [&](sim::Op op, int tensor, std::int64_t n, std::int64_t offset) {
      if (n <= 0) return;
      if (broadcast) {
        sim::Command c;
        c.op = op;
        c.row = r.tensorRow[tensor] + static_cast<std::uint32_t>(offset / in.device.columns);
        c.col = static_cast<std::uint32_t>(offset % in.device.columns);
        c.bankMask = emit::maskOf(banks);
        c.repeat = static_cast<std::uint32_t>(n);
        out.add(c);
      } else {
        const sim::Op bankOp = op == sim::Op::PIM_WB ? sim::Op::WR : sim::Op::RD;
        emit::interleavedStream(out, in.device, bankOp, banks, r.tensorRow[tensor], n, offset, sim::kFlagPim);
      }
    };
    switch (w.kind) {
      case StatementWork::Kind::Mac: {
        // The vector chunk into the GRF, then the MACs that use it, chunk after chunk; results written back.
        const std::int64_t vec =
            std::max<std::int64_t>(1, burstsPerBank(in, w.broadcastTensor, w.broadcastElems));
        const std::int64_t chunks = (vec + kGrfEntries - 1) / kGrfEntries;
        const std::int64_t perChunk = (stream + chunks - 1) / chunks;
        for (std::int64_t c = 0, done = 0; c < chunks; ++c) {
          run(sim::Op::PIM_LD, w.broadcastTensor, std::min(kGrfEntries, vec - c * kGrfEntries),
              c * kGrfEntries);
          run(sim::Op::PIM_MAC, w.streamTensor, std::min(perChunk, stream - done), done);
          done += perChunk;
          out.barrier();
        }
        run(sim::Op::PIM_WB, target, outCols, 0);
        out.barrier();
        break;
      }
      case StatementWork::Kind::Reduce:
        emitReduce(in, w, target, run, out);
        break;
      case StatementWork::Kind::Elementwise: {
        const bool binary = w.secondStream >= 0;
        const auto ops = k.requiredOps();
        const bool multiply = std::find(ops.begin(), ops.end(), "mul") != ops.end();
        auto chunk = [&](std::int64_t n, std::int64_t done) {
          run(sim::Op::PIM_LD, w.streamTensor, n, done);  // FILL (with ReLU for relu)
          out.barrier();
          if (binary) {
            run(multiply ? sim::Op::PIM_MUL : sim::Op::PIM_ADD, w.secondStream, n, done);
            out.barrier();
          }
          run(sim::Op::PIM_WB, target, n, done);
          out.barrier();
        };
        const std::int64_t full = stream / kGrfEntries;
        if (broadcast && full > 1) {
          // Every GRF-sized chunk is the same three commands 8 columns further on: one repeated block.
          out.beginLoop(full);
          chunk(kGrfEntries, 0);
          for (auto& c : out.lastBlock().cmds) {
            if (c.op != sim::Op::BARRIER) c.colStep = static_cast<std::int32_t>(kGrfEntries);
          }
          out.endLoop();
        } else {
          for (std::int64_t i = 0; i < full; ++i) chunk(kGrfEntries, i * kGrfEntries);
        }
        if (stream % kGrfEntries) chunk(stream % kGrfEntries, full * kGrfEntries);
        break;
      }
      case StatementWork::Kind::Softmax:
        break;  // refused by unsupportedReason
    }
  }

  // Rows go in blocks of the registers that hold their sums; `treeSteps` halving steps sum a register's
  // lanes.
  struct ReduceBlocks {
    std::int64_t rowsPerBlock = 1, treeSteps = 0;
  };
  ReduceBlocks blocksOf(const LoweringInput& in, const ReductionRows& rr) const {
    const Backend& b = in.problem.backend();
    ReduceBlocks out;
    if (m_lanes == LaneReduction::AdderTree) {  // one sum per row into the result latch
      const std::int64_t outBytes = dtypeBytes(in.problem.kernel().tensors[rr.target].dtype);
      out.rowsPerBlock = std::max<std::int64_t>(1, b.core.registerBytes / outBytes);
      return out;
    }
    out.rowsPerBlock = kGrfEntries;
    // A row of n <= lanes elements needs ceil(log2 n) steps; longer rows first accumulate into the lanes.
    const std::int64_t lanesUsed = std::min<std::int64_t>(rr.rowElems, b.core.simdLanes);
    while ((std::int64_t{1} << out.treeSteps) < lanesUsed) ++out.treeSteps;
    return out;
  }

  std::string laneReduction(const LoweringInput& in, const ReductionRows& rr) const override {
    const ReduceBlocks bl = blocksOf(in, rr);
    const std::string block = std::to_string(bl.rowsPerBlock);
    if (m_lanes == LaneReduction::AdderTree)
      return "lanes: the MAC unit's adder tree sums each row; one write-back per " + block +
             " rows (the result latch)";
    return "lanes: " + std::to_string(bl.treeSteps) +
           " halving ADD step(s) per row in the GRF; one write-back per " + block +
           " rows (the GRF's entries)";
  }

  // Per block, each row's segmented columns accumulate into a register of its own (an ADD of the bank column:
  // no ones vector needed), the lanes of each register are summed, and the block's sums are written back
  // into the column that holds them.
  template <typename Run>
  void emitReduce(const LoweringInput& in, const StatementWork& w, int target, Run& run,
                  sim::ProgramBuilder& out) const {
    const ReductionRows rr = reductionRows(in.problem, w, in.device.bytesPerColumn);
    if (rr.rows == 0) return;  // nothing on this group
    const ReduceBlocks bl = blocksOf(in, rr);
    const std::int64_t outBytes = dtypeBytes(in.problem.kernel().tensors[target].dtype);
    for (std::int64_t first = 0; first < rr.rows; first += bl.rowsPerBlock) {
      const std::int64_t rows = std::min(bl.rowsPerBlock, rr.rows - first);
      const std::int64_t at = first * rr.columnsPerRow, cols = rows * rr.columnsPerRow;
      run(sim::Op::PIM_ADD, w.streamTensor, cols, at);
      // Each step is a GRF-to-GRF ADD, still triggered by a column command to the open row.
      run(sim::Op::PIM_ADD, w.streamTensor, bl.treeSteps * rows, at + cols - 1);
      out.barrier();
      run(sim::Op::PIM_WB, target, 1, first * outBytes / in.device.bytesPerColumn);
      out.barrier();
    }
  }

  int m_halves;
  LaneReduction m_lanes;
  std::string m_softmaxWhy;
};

}  // namespace

std::unique_ptr<ICodeGenerator> makeHbmPimCodeGenerator() {
  return std::make_unique<BroadcastSimdCodeGenerator>(2, LaneReduction::RegisterTree,
                                                      "HBM-PIM has no softmax unit");
}

std::unique_ptr<ICodeGenerator> makeGddr6AimCodeGenerator() {
  return std::make_unique<BroadcastSimdCodeGenerator>(1, LaneReduction::AdderTree,
                                                      "GDDR6-AiM has no softmax unit");
}

}  // namespace pim
