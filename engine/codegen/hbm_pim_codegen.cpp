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

class BroadcastSimdCodeGenerator : public ICodeGenerator {
 public:
  BroadcastSimdCodeGenerator(int halves, std::string softmaxWhy)
      : m_halves(halves), m_softmaxWhy(std::move(softmaxWhy)) {}

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
        run(sim::Op::PIM_MAC, w.streamTensor, stream, 0);  // against a ones vector held in the GRF
        out.barrier();
        run(sim::Op::PIM_WB, target, outCols, 0);
        out.barrier();
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

  int m_halves;
  std::string m_softmaxWhy;
};

}  // namespace

std::unique_ptr<ICodeGenerator> makeHbmPimCodeGenerator() {
  return std::make_unique<BroadcastSimdCodeGenerator>(2, "HBM-PIM has no softmax unit");
}

std::unique_ptr<ICodeGenerator> makeGddr6AimCodeGenerator() {
  return std::make_unique<BroadcastSimdCodeGenerator>(1, "GDDR6-AiM has no softmax unit");
}

}  // namespace pim
