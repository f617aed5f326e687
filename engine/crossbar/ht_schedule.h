// SPDX-License-Identifier: Apache-2.0
// The HT (batch pipeline, high-throughput) scheduler: per instruction group (IG), per core, the pseudo-
// instructions PIMCOMP-NN's batch-pipeline flow ends with (../shared/specs/crossbar.md, "Scheduling", HT;
// tcad Algorithm 1; pimcomp-nn BatchPipelineSchedule.cpp, MemoryAllocation.cpp, DataReload.cpp,
// InstructionOptimization.cpp). IGs go to an IProgramSink one at a time.
#pragma once
#include <array>
#include <cstdint>

#include "engine/crossbar/compile.h"
#include "sim/crossbar/xbar_program.h"

namespace pim::crossbar {

struct HtOptions {
  /// Append one IG per POOL/ELTWISE/CONCAT/RELU/TANH/SIGMOID node after the pipeline's IGs, its work spread
  /// over the cores (PIMCOMP-NN's SchedulePickOnePostOperation). Off by default: PIMCOMP-NN's ScheduleMain
  /// has that call commented out, so its HT period never includes post nodes.
  bool postNodes = false;
};

struct HtScheduleSummary {
  std::int64_t instructionGroups = 0;  // pipeline IGs: max over CONV/FC of ceil(windows / replicas)
  std::int64_t postGroups = 0;         // IGs of post nodes (HtOptions::postNodes)
  std::int64_t mvms = 0;
  std::int64_t instructions = 0;
  std::array<std::int64_t, 12> perOpcode{};  // indexed by xbar::Opcode
  std::int64_t sendRecvPairs = 0;
  bool cancelled = false;  // the sink returned false

  std::int64_t count(xbar::Opcode op) const { return perOpcode[static_cast<std::size_t>(op)]; }
};

/// Emits the HT program of `plan` to `sink`. Every CONV layer's unfolding must multiply whole windows
/// (multipliesWholeWindows: im2col, I,O,K2, IK,O,K): throws InputError naming the first that does not.
HtScheduleSummary scheduleHt(const CompilePlan& plan, xbar::IProgramSink& sink,
                             const HtOptions& options = {});

/// ceil(windows / replicas), maximised over CONV/FC layers: the pipeline's IG count.
std::int64_t htInstructionGroups(const CompilePlan& plan);

}  // namespace pim::crossbar
