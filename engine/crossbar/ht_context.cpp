// SPDX-License-Identifier: Apache-2.0
// HT scheduler set-up: which windows each AG computes (pimcomp-nn BatchPipelineSchedule SchedulePreparation)
// and the input buffer addresses of MemoryAllocation (../shared/specs/crossbar.md, "Scheduling", HT).
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "engine/crossbar/ht_internal.h"

namespace pim::crossbar::ht {
namespace {

std::vector<std::int64_t> firstAgOfLayers(const CompilePlan& plan) {
  std::vector<std::int64_t> first(plan.layers.size(), 0);
  std::int64_t next = 0;
  for (std::size_t i = 0; i < plan.layers.size(); ++i) {
    first[i] = next;
    next += plan.replicas[i] * plan.layers[i].agsPerReplica;
  }
  return first;
}

// PIMCOMP-NN hands each core ceil(windows / replicas * its head AGs) consecutive windows (in float, as it
// does), clamped to what is left, and deals them round robin to the replicas headed there; every AG of a
// replica computes the replica's windows.
void assignWindows(Context& ctx, std::size_t layer, std::int64_t firstAg) {
  const CompilePlan& plan = ctx.plan;
  const LayerPartition& l = plan.layers[layer];
  const std::int64_t windows = l.windows, replicas = plan.replicas[layer];
  std::int64_t assigned = 0;
  for (std::int64_t core = 0; core < ctx.cores(); ++core) {
    std::vector<std::int64_t> heads;  // replicas whose AG 0 is on this core, in core order
    for (int a : plan.layout.coreAgs[core]) {
      const ArrayGroup& ag = ctx.ag(a);
      if (ag.layer == static_cast<int>(layer) && ag.indexInReplica == 0) heads.push_back(ag.replica);
    }
    const float share =
        static_cast<float>(windows) / static_cast<float>(replicas) * static_cast<float>(heads.size());
    const std::int64_t count = std::min(static_cast<std::int64_t>(std::ceil(share)), windows - assigned);
    for (std::int64_t w = assigned, k = 0; w < assigned + count; ++w, k = (k + 1) % heads.size()) {
      const std::int64_t head = firstAg + heads[k] * l.agsPerReplica;
      for (std::int64_t band = 0; band < l.agsPerReplica; ++band)
        ctx.agWindows[head + band].push_back(static_cast<std::int32_t>(w));
    }
    assigned += count;
  }
}

// Scatter layer `layer`'s blocks per output pixel and, per pixel, the core of the replicas computing every
// window that adds to it, or -1 when they sit on several cores (windows go to cores in contiguous shares, so
// only pixels near a share's edge have their blocks computed on two). One walk over the windows.
void planScatter(Context& ctx, std::size_t layer, std::int64_t firstAg) {
  const LayerPartition& l = ctx.plan.layers[layer];
  Context::Scatter& s = ctx.scatter[layer];
  std::vector<std::int64_t> windowCore(static_cast<std::size_t>(l.windows), -1);
  for (std::int64_t r = 0; r < ctx.plan.replicas[layer]; ++r) {
    const std::int64_t head = firstAg + r * l.agsPerReplica;
    for (std::int32_t w : ctx.agWindows[head]) windowCore[w] = ctx.ag(head).core;
  }
  constexpr std::int64_t kNone = -2;
  s.ownerCore.assign(static_cast<std::size_t>(s.window.outH * s.window.outW), kNone);
  s.blocksLeft =
      scatterContributions(s.window, l, ctx.plan.networkName, [&](std::int64_t w, std::int64_t pixel) {
        std::int64_t& owner = s.ownerCore[static_cast<std::size_t>(pixel)];
        owner = owner == kNone || owner == windowCore[w] ? windowCore[w] : -1;
      });
  s.write.assign(s.blocksLeft.size(), -1);
  s.started.assign(s.blocksLeft.size(), 0);
}

// AGs opening a run of one replica on their core: MemoryAllocation keeps their output apart (no AG reuse).
std::vector<char> runHeads(const Context& ctx) {
  std::vector<char> head(ctx.plan.layout.ags.size(), 0);
  for (const auto& list : ctx.plan.layout.coreAgs) {
    for (std::size_t j = 0; j < list.size(); ++j) {
      const ArrayGroup& a = ctx.ag(list[j]);
      head[list[j]] =
          j == 0 || ctx.ag(list[j - 1]).layer != a.layer || ctx.ag(list[j - 1]).replica != a.replica;
    }
  }
  return head;
}

// MemoryAllocation's AG reuse: an AG shares the output buffer of the AG three places before it on the core
// when that one belongs to the same replica and opens no run; chains resolve to their first AG.
std::vector<char> reusesOutput(const Context& ctx) {
  const std::vector<char> head = runHeads(ctx);
  std::vector<char> reuse(ctx.plan.layout.ags.size(), 0);
  constexpr std::size_t kReusePeriod = 3;
  for (const auto& list : ctx.plan.layout.coreAgs) {
    for (std::size_t j = kReusePeriod; j < list.size(); ++j) {
      const ArrayGroup &a = ctx.ag(list[j]), &c = ctx.ag(list[j - kReusePeriod]);
      reuse[list[j]] = !head[list[j - kReusePeriod]] && c.layer == a.layer && c.replica == a.replica;
    }
  }
  return reuse;
}

}  // namespace

Context::Context(const CompilePlan& p) : plan(p) {
  agWindows.resize(p.layout.ags.size());
  agInputAddress.assign(p.layout.ags.size(), 0);
  headCore.resize(p.layers.size());
  scatter.resize(p.layers.size());
  const std::vector<std::int64_t> first = firstAgOfLayers(p);
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    headCore[i].assign(p.replicas[i], -1);
    for (std::int64_t r = 0; r < p.replicas[i]; ++r)
      headCore[i][r] = p.layout.ags[first[i] + r * p.layers[i].agsPerReplica].core;
    assignWindows(*this, i, first[i]);
    const NetworkNode& node = p.network.nodes[p.layers[i].node];
    requireScheduled(p.layers[i], PipelineMode::Ht, node, p.accelerator, p.networkName);
    if (node.op == NetworkOp::Conv && !multipliesWholeWindows(p.layers[i].unfolding)) {
      scatter[i].window = windowOf(node);
      planScatter(*this, i, first[i]);
    }
    igCount = std::max(igCount, (p.layers[i].windows + p.replicas[i] - 1) / p.replicas[i]);
  }
}

void allocateInputBuffers(Context& ctx, const std::vector<CoreList>& ig0) {
  const std::vector<char> reuse = reusesOutput(ctx);
  for (std::int64_t core = 0; core < ctx.cores(); ++core) {
    std::int64_t pointer = 0;
    std::map<std::int64_t, std::int64_t> received;  // sender AG -> elements: buffers in AG order
    std::vector<std::int64_t> own;
    for (const Draft& d : ig0[core]) {
      if (d.bias) pointer += d.inst.elements;  // bias values sit first
      if (d.inst.op == xbar::Opcode::Mvmul) own.push_back(d.inst.ag);
      if (d.inst.op == xbar::Opcode::Recv) received[d.tag] = d.inst.elements;
    }
    std::sort(own.begin(), own.end());
    auto ownIt = own.begin();
    auto recvIt = received.begin();
    std::pair<int, std::int64_t> lastReceived{-1, -1};  // (layer, replica) of the last RECV buffer
    while (ownIt != own.end() || recvIt != received.end()) {
      if (recvIt == received.end() || (ownIt != own.end() && *ownIt < recvIt->first)) {
        const ArrayGroup& a = ctx.ag(*ownIt);
        ctx.agInputAddress[*ownIt] = pointer;
        pointer += reuse[*ownIt] ? a.rows : a.rows + a.cols;
        ++ownIt;
      } else {
        const ArrayGroup& a = ctx.ag(recvIt->first);
        const std::pair<int, std::int64_t> rep{a.layer, a.replica};
        if (rep != lastReceived) pointer += recvIt->second;  // RECVs of one replica share a buffer
        lastReceived = rep;
        ++recvIt;
      }
    }
  }
}

}  // namespace pim::crossbar::ht
