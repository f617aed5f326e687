// SPDX-License-Identifier: Apache-2.0
// The compute part of one HT instruction group (../shared/specs/crossbar.md, "Scheduling", HT): pimcomp-nn
// BatchPipelineSchedule ScheduleStage0/1/2/3/Act and ScheduleMerge, in that order, so every list comes out in
// PIMCOMP-NN's instruction order.
#include <cstddef>
#include <deque>
#include <utility>

#include "engine/crossbar/ht_internal.h"

namespace pim::crossbar::ht {
namespace {

using xbar::Opcode;
using xbar::Stage;

Draft draft(Opcode op, Stage stage, int node, std::int64_t elements, std::int64_t tag) {
  Draft d;
  d.inst.op = op;
  d.inst.stage = stage;
  d.inst.node = node;
  d.inst.elements = elements;
  d.tag = tag;
  return d;
}

bool sameReplica(const ArrayGroup& a, const ArrayGroup& b) {
  return a.layer == b.layer && a.replica == b.replica;
}

// Stage 0 (IG 0 only): each core loads the bias of every layer it holds once, sized by its first AG there.
void addBiasLoads(const Context& ctx, std::int64_t core, CoreList& list) {
  std::vector<char> loaded(ctx.plan.layers.size(), 0);
  std::int64_t address = 0;  // biases fill the core's local memory from 0
  for (int a : ctx.plan.layout.coreAgs[core]) {
    const NetworkNode& node = ctx.nodeOf(a);
    if (!hasBias(node) || loaded[ctx.ag(a).layer]) continue;
    loaded[ctx.ag(a).layer] = 1;
    Draft d = draft(Opcode::Ld, Stage::Other, node.index, ctx.ag(a).cols, node.index);
    d.bias = true;
    d.srcAddr = -node.index;
    d.dstAddr = address;
    address += d.inst.elements;
    list.push_back(d);
  }
}

// Stage 1: one MVMUL per AG that still has a window, plus the bias add on the replica's AG 0.
void addMvms(const Context& ctx, std::int64_t ig, std::int64_t core, CoreList& list,
             std::vector<char>& active) {
  for (int a : ctx.plan.layout.coreAgs[core]) {
    if (ig >= static_cast<std::int64_t>(ctx.agWindows[a].size())) continue;
    active[a] = 1;
    const ArrayGroup& ag = ctx.ag(a);
    const NetworkNode& node = ctx.nodeOf(a);
    Draft m = draft(Opcode::Mvmul, Stage::Main, node.index, 0, a);
    m.inst.ag = a;
    m.inst.crossbars = static_cast<std::int32_t>(ag.crossbars);
    m.window = ctx.agWindows[a][ig];
    m.srcOff = ag.colStart;  // PIMCOMP-NN starts an AGP part's input at its column offset
    list.push_back(m);
    // A scatter layer's bias waits for its pixel's last block (withDataMovement).
    if (hasBias(node) && ag.indexInReplica == 0 && !ctx.scatters(a))
      list.push_back(draft(Opcode::Vvadd, Stage::MainB, node.index, ag.cols, a));
  }
}

// Stage 2: consecutive AGs of one replica on a core add into the run's first AG (MAIN-A), one VVADD each.
std::deque<Draft> localPartialSums(const Context& ctx, std::int64_t core, const std::vector<char>& active) {
  std::deque<Draft> adds;
  const std::vector<int>& list = ctx.plan.layout.coreAgs[core];
  std::size_t first = 0, p = 1;
  for (std::size_t j = 1; j < list.size(); ++j) {
    if (!sameReplica(ctx.ag(list[j]), ctx.ag(list[first]))) {
      first = j;
      p = 1;
      continue;
    }
    const bool addFlag = active[list[j]] && sameReplica(ctx.ag(list[j]), ctx.ag(list[j - 1]));
    if (!addFlag) continue;
    const int target = list[j - p];
    Draft d = draft(Opcode::Vvadd, Stage::MainA, ctx.nodeOf(list[j]).index, ctx.ag(target).cols, target);
    d.addend = list[j];
    adds.push_back(d);
    ++p;
  }
  return adds;
}

// Is the AG 0 of a's replica among the a.indexInReplica AGs before position j on the core?
bool headIsLocal(const Context& ctx, const std::vector<int>& list, std::size_t j) {
  const ArrayGroup& a = ctx.ag(list[j]);
  for (std::int64_t k = 1; k <= a.indexInReplica && k <= static_cast<std::int64_t>(j); ++k) {
    const ArrayGroup& e = ctx.ag(list[j - k]);
    if (e.indexInReplica == 0 && sameReplica(e, a)) return true;
  }
  return false;
}

// Stage 3: the first AG of each run whose replica head sits on another core sends its partial sum there;
// the head's core receives and adds it (MAIN-C). Cores in order, appending to both lists.
void addTransfers(Context& ctx, std::vector<CoreList>& lists, const std::vector<char>& active) {
  for (std::int64_t core = 0; core < ctx.cores(); ++core) {
    const std::vector<int>& list = ctx.plan.layout.coreAgs[core];
    std::size_t j = 0;
    while (j < list.size()) {
      const int a = list[j];
      const ArrayGroup& ag = ctx.ag(a);
      if (ag.indexInReplica == 0 || !active[a] || headIsLocal(ctx, list, j)) {
        ++j;
        continue;
      }
      const std::int64_t to = ctx.headCore[ag.layer][ag.replica];
      const std::int64_t head = a - ag.indexInReplica;  // the replica's AG 0
      const int node = ctx.nodeOf(a).index;
      Draft send = draft(Opcode::Send, Stage::Main, node, ag.cols, -1);
      Draft recv = draft(Opcode::Recv, Stage::Main, node, ag.cols, a);
      send.inst.peer = static_cast<std::int32_t>(to);
      recv.inst.peer = static_cast<std::int32_t>(core);
      send.inst.comm = recv.inst.comm = ctx.nextComm++;
      lists[core].push_back(send);
      lists[to].push_back(recv);
      lists[to].push_back(draft(Opcode::Vvadd, Stage::MainC, node, ag.cols, head));
      for (++j; j < list.size() && sameReplica(ctx.ag(list[j]), ag);) ++j;  // the run was summed in stage 2
    }
  }
}

// Stage ACT: the fused activation of every replica head that computed, as a stack (last AG on top).
std::vector<Draft> activations(const Context& ctx, std::int64_t core, const std::vector<char>& active) {
  std::vector<Draft> stack;
  for (int a : ctx.plan.layout.coreAgs[core]) {
    const NetworkNode& node = ctx.nodeOf(a);
    if (!active[a] || ctx.ag(a).indexInReplica != 0 || !node.with_act || ctx.scatters(a)) continue;
    stack.push_back(draft(activationOpcode(node.act_type), Stage::Main, node.index, ctx.ag(a).cols, a));
  }
  return stack;
}

// ScheduleMerge: a MAIN-A add goes right after the MVMUL of the AG it adds, in queue order. One pass into a
// new list: inserting into the vector in place moved its tail once per add, quadratic on a large network.
void placePartialSums(CoreList& list, std::deque<Draft>& adds) {
  if (adds.empty()) return;
  CoreList merged;
  merged.reserve(list.size() + adds.size());
  for (const Draft& d : list) {
    merged.push_back(d);
    if (!adds.empty() && d.inst.op == Opcode::Mvmul && d.inst.ag == adds.front().addend) {
      merged.push_back(adds.front());
      adds.pop_front();
    }
  }
  list = std::move(merged);
}

// ScheduleMerge: scanning backwards, the activation on top of the stack goes after the last instruction
// writing its AG. An activation whose AG was already passed is never placed (PIMCOMP-NN drops it too).
// The scan notes where each goes; one forward pass then builds the list (no insertion in place).
void placeActivations(CoreList& list, std::vector<Draft>& stack) {
  std::vector<std::pair<std::size_t, Draft>> after;  // (index it follows, activation), indices descending
  for (std::size_t i = list.size(); i-- > 0 && !stack.empty();) {
    if (list[i].tag != stack.back().tag) continue;
    after.emplace_back(i, stack.back());
    stack.pop_back();
  }
  if (after.empty()) return;
  CoreList merged;
  merged.reserve(list.size() + after.size());
  auto next = after.rbegin();
  for (std::size_t i = 0; i < list.size(); ++i) {
    merged.push_back(list[i]);
    if (next != after.rend() && next->first == i) merged.push_back((next++)->second);
  }
  list = std::move(merged);
}

}  // namespace

bool hasBias(const NetworkNode& n) { return n.op == NetworkOp::Conv ? n.conv.with_bias : n.fc.with_bias; }

xbar::Opcode activationOpcode(ActType t) {
  if (t == ActType::Relu) return Opcode::Vrelu;
  return t == ActType::Tanh ? Opcode::Vtanh : Opcode::Vsigmoid;
}

std::vector<CoreList> buildBody(Context& ctx, std::int64_t ig) {
  const std::int64_t cores = ctx.cores();
  std::vector<CoreList> lists(cores);
  std::vector<char> active(ctx.plan.layout.ags.size(), 0);
  for (std::int64_t c = 0; c < cores; ++c) {
    if (ig == 0) addBiasLoads(ctx, c, lists[c]);
    addMvms(ctx, ig, c, lists[c], active);
  }
  std::vector<std::deque<Draft>> adds(cores);
  for (std::int64_t c = 0; c < cores; ++c) adds[c] = localPartialSums(ctx, c, active);
  addTransfers(ctx, lists, active);
  for (std::int64_t c = 0; c < cores; ++c) {
    std::vector<Draft> acts = activations(ctx, c, active);
    placePartialSums(lists[c], adds[c]);
    placeActivations(lists[c], acts);
  }
  return lists;
}

}  // namespace pim::crossbar::ht
