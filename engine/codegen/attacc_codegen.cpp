// SPDX-License-Identifier: Apache-2.0
// AttAcc (attacc.md): a GEMV unit per bank fed by all-bank MACAB commands over the open row of every bank of
// the channel, an input vector broadcast into the GEMV buffers (WRGB), partial results moved to the channel's
// softmax buffer (MVSB), softmax (SFM) and its result moved back (MVGB). No element-wise units.
#include <algorithm>

#include "engine/codegen/codegen_common.h"
#include "engine/codegen/emit.h"
#include "engine/codegen/rearrangement.h"

namespace pim {
namespace {

using codegen::bursts;
using codegen::burstsPerBank;

class AttaccCodeGenerator final : public ICodeGenerator {
 public:
  std::string unsupportedReason(const Kernel& k) const override {
    return codegen::firstUnsupported(
        k, false, true,
        "AttAcc has no element-wise units (only a GEMV unit per bank and a softmax unit per channel)", "");
  }

  void emitCompute(const LoweringInput& in, const GroupView& group, sim::ProgramBuilder& out) const override {
    const Kernel& k = in.problem.kernel();
    const sim::DeviceConfig& d = in.device;
    const BankRegions& r = group.regions;
    const std::vector<int>& live = group.liveBanks;
    const std::int64_t liveCores = static_cast<std::int64_t>(live.size());
    const bool broadcast = codegen::useGroupCommands(in);
    for (const StatementWork& w : group.work) {
      const int target = k.statements[w.statement].target.tensor;
      if (w.kind == StatementWork::Kind::Softmax) {
        emit::bufferCommands(out, d, sim::Op::SFM, 1);
        out.barrier();
        emit::bufferCommands(out, d, sim::Op::MVGB, bursts(in, target, w.outputElems));
        out.barrier();
        continue;
      }
      // The vector operand into the GEMV buffers; a reduction multiplies by a ones vector, one WRGB per bank
      // as in DCC's artifact (dcc-backends.md: WR_GB = BK per channel).
      const std::int64_t wrgb =
          w.kind == StatementWork::Kind::Reduce
              ? liveCores
              : std::max<std::int64_t>(1, bursts(in, w.broadcastTensor, w.broadcastElems));
      emit::bufferCommands(out, d, sim::Op::WRGB, wrgb);
      out.barrier();
      // A reduction's rows are segmented (one output per run of MACABs): the GEMV unit's adder tree sums the
      // 16 lanes of every MACAB into the row's accumulator, so a column never mixes two rows.
      const std::int64_t macs = w.kind == StatementWork::Kind::Reduce
                                    ? reductionRows(in.problem, w, d.bytesPerColumn).columns()
                                    : burstsPerBank(in, w.streamTensor, w.streamElems);
      if (broadcast) {
        emit::broadcastStream(out, sim::Op::MACAB, r.tensorRow[w.streamTensor], macs, 0, sim::kFlagAllBanks);
      } else {
        emit::interleavedStream(out, d, sim::Op::RD, live, r.tensorRow[w.streamTensor], macs, 0,
                                sim::kFlagPim);
      }
      out.barrier();
      // Partial results of every bank to the softmax buffer: per output column, one MVSB per 4 banks
      // (dcc-backends.md: MV_SB = s0 * ceil(BK/4) per channel for a reduction).
      emit::bufferCommands(out, d, sim::Op::MVSB, bursts(in, target, w.outputElems) * ((liveCores + 3) / 4));
      out.barrier();
    }
  }

  std::string laneReduction(const LoweringInput&, const ReductionRows&) const override {
    return "lanes: the GEMV unit's adder tree sums each MACAB's 16 products into the row's accumulator; MVSB "
           "moves the sums to the softmax buffer (one per 4 banks per 16 outputs), which adds the partial "
           "sums of "
           "banks sharing a row";
  }
};

}  // namespace

std::unique_ptr<ICodeGenerator> makeAttaccCodeGenerator() { return std::make_unique<AttaccCodeGenerator>(); }

}  // namespace pim
