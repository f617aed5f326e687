// SPDX-License-Identifier: Apache-2.0
// LL scheduler: the scatter unfoldings (tcad Table IV's (I, OK^2, 1) and (IK, OK, 1); docs/crossbar.md,
// "Scatter unfoldings"). Their matrix columns hold several kernel positions' worth of output channels, so one
// MVM's result is K_h K_w (or K_w) blocks of O partial outputs, each belonging to another output pixel. A
// window is an input pixel (I,OK2,1) or a column of K_h input pixels under one output row (IK,OK,1); block
// (k_h, k_w) of window (h, w) lands on output pixel ((h + pad_top - k_h d_h) / s_h, (w + pad_left - k_w
// d_w) / s_w) where both divide evenly and fall inside the output, and nowhere otherwise. Output pixel o
// lives in an accumulator on the core of replica o mod R's first AG (where an ordinary layer's replica o mod
// R computes it): the first block is copied there (LMV) or received into it, later ones are added (VVADD,
// after a RECV from another core); the last one finishes the pixel (bias, activation) and sends it on.
#include <string>

#include "engine/common/error.h"
#include "engine/crossbar/ll_internal.h"

namespace pim::crossbar::ll {

using xbar::Opcode;
using xbar::Stage;

std::int64_t Scheduler::ownerCore(const ComputeState& s, std::int64_t pixel) const {
  return m_plan.layout.ags[s.firstAg + (pixel % s.replicas) * s.bands].core;
}

void Scheduler::initScatter(ComputeState& s) {
  const LayerPartition& l = *s.layer;
  requireScheduled(l, PipelineMode::Ll, m_plan.network.nodes[s.node], m_plan.accelerator, m_plan.networkName);
  s.scatter = true;
  s.windows = l.windows;
  s.contributionsLeft = scatterContributions(m_graph.window[s.node], l, m_plan.networkName);
  s.accumulator.assign(m_graph.pixels[s.node], -1);
  s.started.assign(m_graph.pixels[s.node], 0);
}

void Scheduler::windowInputs(const ComputeState& s, std::int64_t window,
                             std::vector<std::int64_t>& pixels) const {
  if (s.scatter)
    m_graph.window[s.node].scatterInputs(s.layer->unfolding, window, pixels);
  else
    m_graph.window[s.node].inputsOf(window, pixels);
}

void Scheduler::scatterTargets(const ComputeState& s, std::int64_t window,
                               std::vector<std::pair<std::int64_t, std::int64_t>>& targets) const {
  m_graph.window[s.node].scatterTargets(s.layer->unfolding, window, targets);
}

// Before the window runs: an accumulator for every output pixel it starts, held like a post node's output
// (with spilling, leaving the room reserved for what cannot wait; one that finds no room then lives in global
// memory). False, with nothing held, when one does not fit without spilling: the replica waits.
bool Scheduler::reserveAccumulators(ComputeState& s, std::int64_t window) {
  const std::int64_t o = m_graph.channelElements[s.node];
  std::vector<std::pair<std::int64_t, std::int64_t>> targets;
  scatterTargets(s, window, targets);
  std::vector<std::int64_t> placed;
  m_memory.beginAttempt();
  for (const auto& [block, pixel] : targets) {
    if (s.accumulator[pixel] != -1) continue;
    s.accumulator[pixel] = holdPostOutput(ownerCore(s, pixel), o);
    if (s.accumulator[pixel] >= 0) {
      placed.push_back(pixel);
      continue;
    }
    if (m_options.spillToGlobalMemory) {
      s.accumulator[pixel] = kInGlobalMemory;
      ++m_spilledAccumulators;
      continue;
    }
    for (auto it = placed.rbegin(); it != placed.rend(); ++it) {  // first fit: undone in reverse
      m_memory.release(ownerCore(s, *it), s.accumulator[*it], o);
      s.accumulator[*it] = -1;
    }
    m_memory.abandonAttempt();
    return false;
  }
  return true;
}

// The window's result sits in its replica's first AG output (after accumulate): each block goes to the
// accumulator of its output pixel.
void Scheduler::scatter(ComputeState& s, std::int64_t headAg, std::int64_t window) {
  const std::int64_t from = m_plan.layout.ags[headAg].core, o = m_graph.channelElements[s.node];
  std::vector<std::pair<std::int64_t, std::int64_t>> targets;
  scatterTargets(s, window, targets);
  for (const auto& [block, pixel] : targets) {
    const std::int64_t owner = ownerCore(s, pixel);
    const bool first = !s.started[pixel];
    s.started[pixel] = 1;
    if (s.accumulator[pixel] == kInGlobalMemory) {
      accumulateInGlobalMemory(s, headAg, block, pixel, first);
      continue;
    }
    if (owner == from && first) {
      emitCopy(owner, Opcode::Lmv, Stage::MainC, s.node, o,
               {m_agOutput[headAg], block * o, s.accumulator[pixel], 0});
    } else if (owner == from) {
      emit(owner, Opcode::Vvadd, Stage::MainC, s.node, o);
    } else if (first) {
      sendPartial(s.node, from, owner, o);  // received into the accumulator
    } else {
      const std::int64_t buffer = allocate(owner, o, "a received scatter block", s.node);
      sendPartial(s.node, from, owner, o);
      emit(owner, Opcode::Vvadd, Stage::MainC, s.node, o);
      m_memory.release(owner, buffer, o);
    }
    if (--s.contributionsLeft[pixel] == 0) finishScatterPixel(s, pixel);
  }
}

// An accumulator in global memory is updated by the core that computed the block, in a scratch buffer (the
// room kept for a received block): the first block is copied there, later ones are added to the LD of the
// sum so far; the sum goes back by ST, or, after the last block, the finished pixel (bias, activation) does,
// and its readers load it from there (receive). No SEND/RECV: every core reaches global memory.
void Scheduler::accumulateInGlobalMemory(ComputeState& s, std::int64_t headAg, std::int64_t block,
                                         std::int64_t pixel, bool first) {
  const std::int64_t core = m_plan.layout.ags[headAg].core, o = m_graph.channelElements[s.node];
  const bool last = s.contributionsLeft[pixel] == 1;
  if (first && !last) {  // straight from the AG output
    storeInGlobalMemory(core, Stage::MainC, s.node, pixel, o);
    --s.contributionsLeft[pixel];
    return;
  }
  const std::int64_t scratch = allocate(core, o, "a spilled scatter accumulator", s.node);
  if (first) {
    emitCopy(core, Opcode::Lmv, Stage::MainC, s.node, o, {m_agOutput[headAg], block * o, scratch, 0});
  } else {  // the sum so far, plus the block in place in the AG output
    emitCopy(core, Opcode::Ld, Stage::MainC, s.node, o,
             {spillSource(s.node, kAccumulatorSlot), pixel * o, scratch, 0, latestWrite(s.node, pixel)});
    m_spillTraffic[core] += o;
    emit(core, Opcode::Vvadd, Stage::MainC, s.node, o);
  }
  if (last) {
    if (s.withBias) emit(core, Opcode::Vvadd, Stage::MainB, s.node, o);
    activate(s, core, o);
  }
  storeInGlobalMemory(core, Stage::MainC, s.node, pixel, o);
  m_memory.release(core, scratch, o);
  if (--s.contributionsLeft[pixel] > 0) return;
  ++m_nodeDone[s.node];
  s.accumulator[pixel] = -1;
  finishPixel({.origin = s.node, .pixel = pixel, .core = core, .address = kInGlobalMemory, .elements = o});
}

void Scheduler::finishScatterPixel(ComputeState& s, std::int64_t pixel) {
  const std::int64_t owner = ownerCore(s, pixel);
  const std::int64_t o = m_graph.channelElements[s.node], address = s.accumulator[pixel];
  if (s.withBias) emit(owner, Opcode::Vvadd, Stage::MainB, s.node, o);
  activate(s, owner, o);
  ++m_nodeDone[s.node];
  s.accumulator[pixel] = -1;
  s.held.push_back({owner, address, 0});  // before the transfers, which count themselves on it
  finishPixel({.origin = s.node, .pixel = pixel, .core = owner, .address = address, .elements = o});
}

}  // namespace pim::crossbar::ll
