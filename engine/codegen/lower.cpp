// SPDX-License-Identifier: Apache-2.0
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "engine/codegen/codegen_common.h"
#include "engine/codegen/lowering.h"
#include "engine/codegen/rearrangement.h"

namespace pim {

namespace {
bool stagedCopies(const LoweringInput& in) {
  return in.options.stagedRearrangement && !in.options.computeOnly;
}
void setHostShare(const LoweringInput& in, int group, GroupView& v) {
  if (!stagedCopies(in)) return;
  v.hostInput = hostShare(in, TensorRole::Input, group);
  v.hostOutput = hostShare(in, TensorRole::Output, group);
}
}  // namespace

bool movedByHost(const LoweringInput& in, int t) {
  const bool resident = in.problem.isResident(t);
  return in.preload ? resident && in.problem.kernel().tensors[t].role == TensorRole::Input : !resident;
}

GroupView groupView(const LoweringInput& in, int group) {
  return groupView(in, group, statementOperands(in.problem.kernel()));
}

GroupView groupView(const LoweringInput& in, int group, const std::vector<StatementOperands>& statements) {
  GroupView v;
  v.live = group < in.mapping.groupsUsed;
  // Idle groups may still hold part of the host layout at the same rows, so they take part in staged
  // rearrangement with group 0's regions.
  if (v.live) v.work = groupWork(statements, in.mapping, group);
  v.regions = bankRegions(in, v.live ? group : 0, v.live ? &v.work : nullptr);
  setHostShare(in, group, v);
  if (!v.live) return v;
  v.liveBanks = liveBanks(in, group);
  v.outputReads = outputReads(in, group, v.work);
  return v;
}

DraftViews groupViews(const LoweringInput& in) {
  DraftViews out;
  out.preload = in.preload;
  std::vector<GroupView>& views = out.groups;
  const int groups = in.problem.backend().totalGroups();
  views.reserve(static_cast<std::size_t>(groups));
  std::optional<GroupView> idle;  // idle groups differ only in their host share
  const std::vector<StatementOperands> statements = statementOperands(in.problem.kernel());
  for (int g = 0; g < groups; ++g) {
    if (g >= in.mapping.groupsUsed && idle) {
      views.push_back(*idle);
      setHostShare(in, g, views.back());
      continue;
    }
    views.push_back(groupView(in, g, statements));
    if (!views.back().live) idle = views.back();
  }
  return out;
}

sim::Program lowerDraft(const LoweringInput& in) { return lowerDraft(in, groupViews(in)); }

sim::Program lowerDraft(const LoweringInput& in, const DraftViews& views) {
  const ICodeGenerator* gen = &in.generator;
  sim::Program prog;
  std::unordered_multimap<std::uint64_t, int> byHash;
  std::vector<std::pair<GroupView, int>> lowered;  // distinct views and their program (a handful per draft)
  const bool staged = stagedCopies(in);
  for (int g = 0; g < static_cast<int>(views.groups.size()); ++g) {
    // Views of the call for its preload (or back): the host shares follow what this lowering moves. Otherwise
    // the view as it is (no copy: a draft has tens of groups and this is exploration's hot path).
    std::optional<GroupView> moved;
    if (views.preload != in.preload) {
      moved = views.groups[static_cast<std::size_t>(g)];
      setHostShare(in, g, *moved);
    }
    const GroupView& view = moved ? *moved : views.groups[static_cast<std::size_t>(g)];
    const auto same =
        std::find_if(lowered.begin(), lowered.end(), [&](const auto& l) { return l.first == view; });
    if (same != lowered.end()) {
      prog.channelMap.push_back(same->second);
      continue;
    }
    sim::ProgramBuilder pb;
    if (staged) emitStagedInput(in, view, pb);
    if (!in.preload) {
      pb.setPhase(sim::Phase::Compute);
      if (view.live && !in.options.rearrangementOnly) gen->emitCompute(in, view, pb);
      if (staged) emitStagedOutput(in, view, pb);
    }
    sim::ChannelProgram cp = pb.take();
    // A hash match is only a candidate: two programs are one only if they are equal.
    const std::uint64_t h = cp.hash();
    int index = -1;
    for (auto [it, end] = byHash.equal_range(h); it != end && index < 0; ++it)
      if (prog.programs[it->second] == cp) index = it->second;
    if (index < 0) {
      index = static_cast<int>(prog.programs.size());
      byHash.emplace(h, index);
      prog.programs.push_back(std::move(cp));
    }
    prog.channelMap.push_back(index);
    lowered.emplace_back(view, index);
  }
  return prog;
}

std::string reductionText(const LoweringInput& in) {
  const Kernel& k = in.problem.kernel();
  std::string out;
  for (const StatementWork& w : groupWork(k, in.mapping, 0)) {
    const ReductionRows rr = reductionRows(in.problem, w, in.device.bytesPerColumn);
    if (rr.rows == 0) continue;
    const int target = rr.target;
    const std::int64_t packed = codegen::burstsPerBank(in, w.streamTensor, w.streamElems);
    out += "// reduction into %" + k.tensors[target].name + ": " + std::to_string(rr.rows) + " row(s) of " +
           std::to_string(rr.rowElems) + " per bank, each on " + std::to_string(rr.columnsPerRow) +
           " column(s) of its own (" + std::to_string(rr.columns()) + " columns, " +
           std::to_string(rr.columns() - packed) + " of them padding)\n";
    out += "//   " + in.generator.laneReduction(in, rr) + "\n";
    out += rr.partialsPerOutput > 1
               ? "//   host merge: each output sums " + std::to_string(rr.partialsPerOutput) +
                     " partial sums read from the cores that share its row\n"
               : "//   no host merge: every row is whole on one core\n";
  }
  return out;
}

}  // namespace pim
