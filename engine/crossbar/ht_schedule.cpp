// SPDX-License-Identifier: Apache-2.0
// The HT scheduler's driver (../shared/specs/crossbar.md, "Scheduling", HT): builds each instruction group in
// PIMCOMP-NN's pass order (pimcomp-nn main.cpp: BatchPipelineSchedule, MemoryAllocation, DataReload,
// InstructionOptimization, ElementPlacement mode 0) and hands it to the sink before building the next.
#include "engine/crossbar/ht_schedule.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/crossbar/ht_internal.h"

namespace pim::crossbar {
namespace {

// Copies the drafts into the sink's IG and counts them.
void fill(xbar::InstructionGroup& ig, std::vector<ht::CoreList>& lists, HtScheduleSummary& s) {
  ig.cores.resize(lists.size());
  for (std::size_t c = 0; c < lists.size(); ++c) {
    ig.cores[c].clear();
    for (const ht::Draft& d : lists[c]) {
      ig.cores[c].push_back(d.inst);
      ++s.perOpcode[static_cast<std::size_t>(d.inst.op)];
      ++s.instructions;
    }
  }
}

}  // namespace

std::int64_t htInstructionGroups(const CompilePlan& plan) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < plan.layers.size(); ++i)
    n = std::max(n, (plan.layers[i].windows + plan.replicas[i] - 1) / plan.replicas[i]);
  return n;
}

HtScheduleSummary scheduleHt(const CompilePlan& plan, xbar::IProgramSink& sink, const HtOptions& options) {
  ht::Context ctx(plan);
  HtScheduleSummary s;
  s.instructionGroups = ctx.igCount;
  xbar::InstructionGroup ig;
  for (std::int64_t g = 0; g < ctx.igCount; ++g) {
    std::vector<ht::CoreList> lists = ht::buildBody(ctx, g);
    if (g == 0) ht::allocateInputBuffers(ctx, lists);
    for (ht::CoreList& list : lists) list = ht::withDataMovement(ctx, list);
    fill(ig, lists, s);
    if (!sink.group(ig)) {
      s.cancelled = true;
      break;
    }
  }
  if (!s.cancelled && options.postNodes) {
    s.cancelled = !ht::emitPostNodes(plan, [&](std::vector<ht::CoreList>& lists) {
      fill(ig, lists, s);
      ++s.postGroups;
      return sink.group(ig);
    });
  }
  s.mvms = s.count(xbar::Opcode::Mvmul);
  s.sendRecvPairs = s.count(xbar::Opcode::Send);
  return s;
}

}  // namespace pim::crossbar
