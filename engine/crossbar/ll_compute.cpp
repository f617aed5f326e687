// SPDX-License-Identifier: Apache-2.0
// LL scheduler: one CONV/FC replica computing its next output pixel (../shared/specs/crossbar.md,
// "Scheduling", LL; tcad Algorithm 2 lines 4-10, RepLayer.Ready / RepLayer.Compute; pimcomp-nn
// ElementPipelineSchedule.cpp ScheduleSplitInstructionMain, Stage0LoadBias, Stage1MVMUL, Stage3ACC,
// Stage3ACT, MemoryAllocationForFirstLayer).
#include <algorithm>
#include <stdexcept>

#include "engine/crossbar/ll_internal.h"

namespace pim::crossbar::ll {

using xbar::Opcode;
using xbar::Stage;

namespace {

// Where window element `element` lands in the AG's input buffer. PIMCOMP-NN computes element mod the array
// height, mod the AG's rows: the same for im2col, whose bands start at multiples of the height, but not for
// the matrices of I,O,K2 and IK,O,K, which start at multiples of H.
std::int64_t offsetInAg(std::int64_t element, const ArrayGroup& ag) { return element - ag.rowStart; }

}  // namespace

// IG 0 loads each CONV/FC's bias once per core holding one of its AGs: as many elements as the columns of the
// node's first AG on that core.
void Scheduler::loadBiases() {
  const auto& ags = m_plan.layout.ags;
  for (std::int64_t core = 0; core < m_cores; ++core) {
    std::vector<int> loaded;
    for (int a : m_plan.layout.coreAgs[core]) {
      const int node = m_plan.layers[ags[a].layer].node;
      if (!m_compute[m_computeOf[node]].withBias || std::count(loaded.begin(), loaded.end(), node)) continue;
      loaded.push_back(node);
      const std::int64_t address = allocate(core, ags[a].cols, "a bias", node);
      emitCopy(core, Opcode::Ld, Stage::Other, node, ags[a].cols, {-node, 0, address, 0}, true);
    }
  }
}

bool Scheduler::inputsReady(const ComputeState& s, std::int64_t window) {
  if (s.firstLayer) return true;
  if (s.fcKey >= 0) return s.readyPrefix > s.fcKey;
  windowInputs(s, window, m_scratch);
  return std::all_of(m_scratch.begin(), m_scratch.end(),
                     [&](std::int64_t in) { return in < 0 || s.ready[in]; });
}

// Replica r computes windows r, r + R, r + 2R, ... in order, at most one per IG, once every input pixel of
// the next one has arrived; it then accumulates partial sums across cores and passes the pixel on (a scatter
// window's result goes to the accumulators of the output pixels it touches instead).
bool Scheduler::computeReplica(ComputeState& s, std::int64_t replica) {
  const std::int64_t pixel = replica + s.produced[replica] * s.replicas;
  if (pixel >= s.windows || s.undelivered[replica] > 0 || !inputsReady(s, pixel)) return false;
  if (s.scatter && !reserveAccumulators(s, pixel)) return false;
  if (s.firstLayer && !loadFirstLayerInputs(s, pixel)) return false;
  const auto& ags = m_plan.layout.ags;
  const std::int64_t head = s.firstAg + replica * s.bands;
  std::vector<std::int64_t> coresUsed;
  for (std::int64_t b = 0; b < s.bands; ++b) {
    const ArrayGroup& ag = ags[head + b];
    prepareAndMultiply(s, head + b, pixel);
    // A scatter layer adds its bias once per output pixel, when the pixel is complete.
    if (b == 0 && s.withBias && !s.scatter) emit(ag.core, Opcode::Vvadd, Stage::MainB, s.node, ag.cols);
    // Partial sums of the replica's AGs on one core go into its first AG there.
    if (std::count(coresUsed.begin(), coresUsed.end(), ag.core))
      emit(ag.core, Opcode::Vvadd, Stage::MainA, s.node, ag.cols);
    else
      coresUsed.push_back(ag.core);
  }
  accumulate(s, head);
  if (s.scatter) {
    scatter(s, head, pixel);
    ++s.produced[replica];
    return true;
  }
  activate(s, ags[head].core, ags[head].cols);
  ++s.produced[replica];
  ++m_nodeDone[s.node];
  finishPixel({.origin = s.node,
               .replica = replica,
               .pixel = pixel,
               .core = ags[head].core,
               .address = m_agOutput[head],
               .elements = ags[head].cols});
  return true;
}

// The node's fused activation on a finished output pixel. The last node's is left out, as PIMCOMP-NN leaves
// out last_node_index's.
void Scheduler::activate(const ComputeState& s, std::int64_t core, std::int64_t elements) {
  const NetworkNode& nn = m_plan.network.nodes[s.node];
  if (nn.with_act && nn.act_type != ActType::None && !m_graph.graphSink[s.node]) {
    const Opcode op = nn.act_type == ActType::Relu   ? Opcode::Vrelu
                      : nn.act_type == ActType::Tanh ? Opcode::Vtanh
                                                     : Opcode::Vsigmoid;
    emit(core, op, Stage::Main, s.node, elements);
  }
  unmodelled(core);  // VER, and VRSU/VRSL for a fused clip
}

// The network input arrives from global memory: each input pixel the first time any window needs it, on every
// core that will read it. When a core has no room for them the replica waits (nothing is loaded), or, with
// spilling, that core reads the pixel from global memory whenever an AG needs it.
bool Scheduler::loadFirstLayerInputs(ComputeState& s, std::int64_t pixel) {
  std::vector<std::int64_t> inputs{0};
  if (s.fcKey < 0) {
    windowInputs(s, pixel, m_scratch);
    inputs = m_scratch;
  }
  std::erase_if(inputs, [&](std::int64_t in) { return in < 0 || s.loaded[in]; });
  std::vector<ChannelUse*> placed;
  m_memory.beginAttempt();
  for (std::int64_t in : inputs) {
    for (ChannelUse& use : s.uses[in]) {
      if (use.address >= 0 || use.address == kInGlobalMemory) continue;
      use.address = holdInput(use.core, s.channelElements);
      if (use.address >= 0) {
        placed.push_back(&use);
        continue;
      }
      if (m_options.spillToGlobalMemory) {  // read in place from the network input when the AG needs it
        use.address = kInGlobalMemory;
        continue;
      }
      for (auto it = placed.rbegin(); it != placed.rend(); ++it) {  // first fit: undone in reverse
        m_memory.release((*it)->core, (*it)->address, s.channelElements);
        (*it)->address = -1;
      }
      m_memory.abandonAttempt();
      return false;
    }
  }
  for (std::int64_t in : inputs) {
    s.loaded[in] = 1;
    for (const ChannelUse& use : s.uses[in])
      if (std::count(placed.begin(), placed.end(), &use))
        emitCopy(use.core, Opcode::Ld, Stage::Other, s.node, s.channelElements,
                 {-1, in * s.channelElements, use.address, 0});
  }
  return true;
}

// Assembles the AG's slice of the im2col vector (LMV per input pixel it meets, LLDI per padding position,
// padding after the pixels) and drives the AG.
void Scheduler::prepareAndMultiply(ComputeState& s, std::int64_t agIndex, std::int64_t pixel) {
  const ArrayGroup& ag = m_plan.layout.ags[agIndex];
  // The AG's output and input buffers stay on its core from first use on.
  if (m_agOutput[agIndex] < 0) allocateAgBuffers(agIndex, s.node);
  const std::int64_t rowFirst = ag.rowStart, rowLast = ag.rowStart + ag.rows - 1, c = s.channelElements;
  if (s.fcKey >= 0) {
    for (std::int64_t ch = 0; ch < s.inputChannels; ++ch)
      readChannel(s, agIndex, ch, ch, std::max(ch * c, rowFirst), std::min(ch * c + c - 1, rowLast));
  } else {
    std::vector<std::int64_t> window;
    windowInputs(s, pixel, window);
    for (std::size_t n = 0; n < window.size(); ++n)
      if (window[n] >= 0)
        readChannel(s, agIndex, window[n], std::int64_t(n), std::max(std::int64_t(n) * c, rowFirst),
                    std::min(std::int64_t(n) * c + c - 1, rowLast));
    for (std::size_t n = 0; n < window.size(); ++n) {
      const std::int64_t first = std::max(std::int64_t(n) * c, rowFirst);
      const std::int64_t last = std::min(std::int64_t(n) * c + c - 1, rowLast);
      if (window[n] < 0 && first <= last)
        emitCopy(ag.core, Opcode::Lldi, Stage::Main, s.node, last - first + 1,
                 {0, 0, m_agInput[agIndex], offsetInAg(first, ag)});
    }
  }
  xbar::Instruction& mvm = emit(ag.core, Opcode::Mvmul, Stage::Main, s.node, 0);
  mvm.ag = static_cast<std::int32_t>(agIndex);
  mvm.crossbars = static_cast<std::int32_t>(ag.crossbars);
}

// Copies elements [first, last] of the window vector (window position `position`) from input pixel
// `channel`'s buffer; the buffer is freed after its last reader on this core.
void Scheduler::readChannel(ComputeState& s, std::int64_t agIndex, std::int64_t channel,
                            std::int64_t position, std::int64_t first, std::int64_t last) {
  if (first > last) return;
  const ArrayGroup& ag = m_plan.layout.ags[agIndex];
  const std::int64_t core = ag.core;
  auto& uses = s.uses[channel];
  auto use = std::find_if(uses.begin(), uses.end(), [&](const ChannelUse& u) { return u.core == core; });
  if (use == uses.end() || (use->address < 0 && use->address != kInGlobalMemory))
    throw std::logic_error("LL schedule: node " + std::to_string(s.node) + " input pixel " +
                           std::to_string(channel) + " is not on core " + std::to_string(core));
  const std::int64_t offset = first - position * s.channelElements;
  if (use->address == kInGlobalMemory) {  // LD from the producer's (or the network input's) global copy
    const std::int64_t source = s.firstLayer ? -1 : spillSource(s.node, 0);
    emitCopy(core, Opcode::Ld, Stage::Main, s.node, last - first + 1,
             {source, channel * s.channelElements + offset, m_agInput[agIndex] + offsetInAg(first, ag), 0,
              use->write});
    m_spillTraffic[core] += last - first + 1;
  } else {
    emitCopy(core, Opcode::Lmv, Stage::Main, s.node, last - first + 1,
             {use->address, offset, m_agInput[agIndex], offsetInAg(first, ag)});
  }
  if (--use->rest == 0) {
    if (use->address >= 0) m_memory.release(core, use->address, s.channelElements);
    use->address = -1;
  }
}

// Each other core holding AGs of the replica sends its partial sum (in its first such AG) to the core of the
// replica's AG 0, which adds it (MAIN-C).
void Scheduler::accumulate(const ComputeState& s, std::int64_t headAg) {
  const auto& ags = m_plan.layout.ags;
  const std::int64_t headCore = ags[headAg].core;
  std::vector<std::int64_t> done{headCore};
  for (std::int64_t b = 1; b < s.bands; ++b) {
    const ArrayGroup& ag = ags[headAg + b];
    if (std::count(done.begin(), done.end(), ag.core)) continue;
    done.push_back(ag.core);
    const std::int64_t buffer = allocate(headCore, ag.cols, "a received partial sum", s.node);
    sendPartial(s.node, ag.core, headCore, ag.cols);
    emit(headCore, Opcode::Vvadd, Stage::MainC, s.node, ag.cols);
    m_memory.release(headCore, buffer, ag.cols);
  }
}

// A synchronous SEND/RECV pair of partial sums within the IG.
void Scheduler::sendPartial(int node, std::int64_t from, std::int64_t to, std::int64_t elements) {
  xbar::Instruction& send = emit(from, Opcode::Send, Stage::Main, node, elements);
  send.peer = static_cast<std::int32_t>(to);
  send.comm = m_nextComm;
  xbar::Instruction& recv = emit(to, Opcode::Recv, Stage::Main, node, elements);
  recv.peer = static_cast<std::int32_t>(from);
  recv.comm = m_nextComm++;
}

}  // namespace pim::crossbar::ll
