// SPDX-License-Identifier: Apache-2.0
// LL scheduler: a bounded local memory with spilling (LlOptions::spillToGlobalMemory, the intended timing).
// tcad VII-A keeps a result on chip "or stores it back to global memory based on the capacity of the on-chip
// local memory"; in the element pipeline an input pixel that finds no room on a core that reads it goes
// through global memory (ST once by its producer, LD at each read) instead of waiting for room. Waiting can
// deadlock: a core full of held inputs for a layer whose other inputs cannot arrive. So that held inputs
// never take the room of what cannot wait, each core keeps headroom for its AGs' buffers not yet placed (at
// their first use, as in PIMCOMP-NN), a received partial sum, one post-node output and one post-node scratch
// operand. Where nothing spills, addresses and so the program are those of the schedule without spilling.
#include <algorithm>

#include "engine/common/error.h"
#include "engine/crossbar/ll_internal.h"

namespace pim::crossbar::ll {

using xbar::Opcode;
using xbar::Stage;

void Scheduler::initHeadroom() {
  m_partialRoom.assign(m_cores, 0);
  m_postOutputRoom.assign(m_cores, 0);
  m_postScratchRoom.assign(m_cores, 0);
  m_agBufferRoom.assign(m_cores, 0);
  const auto& ags = m_plan.layout.ags;
  for (const ComputeState& s : m_compute)
    for (std::int64_t ag = s.firstAg; ag < s.firstAg + s.replicas * s.bands; ++ag)
      m_agBufferRoom[ags[ag].core] += ags[ag].rows + ags[ag].cols;
  for (const ComputeState& s : m_compute)
    for (std::int64_t r = 0; r < s.replicas; ++r) {
      const std::int64_t head = s.firstAg + r * s.bands, core = ags[head].core;
      for (std::int64_t b = 1; b < s.bands; ++b)
        m_partialRoom[core] = std::max(m_partialRoom[core], ags[head + b].cols);
      // A scatter block received from another replica, and an accumulator to start.
      if (s.scatter) m_partialRoom[core] = std::max(m_partialRoom[core], m_graph.channelElements[s.node]);
    }
  for (const PostState& p : m_post) {
    const std::int64_t out = m_graph.channelElements[p.node];
    m_postOutputRoom[p.core] = std::max(m_postOutputRoom[p.core], out);
    const Role role = m_graph.role[p.node];
    if (role == Role::Pool || role == Role::Eltwise)  // a spilled operand beside the output; a pool's scale
      m_postScratchRoom[p.core] = std::max(
          {m_postScratchRoom[p.core], out, *std::max_element(p.slotElements.begin(), p.slotElements.end())});
  }
  // With the biases placed, a core without the headroom could let nothing wait and nothing progress: say so
  // now rather than as a stall later. (Every other stall with spilling would be a scheduler defect.)
  for (std::int64_t core = 0; core < m_cores; ++core) {
    const std::int64_t need =
        m_agBufferRoom[core] + m_partialRoom[core] + m_postOutputRoom[core] + m_postScratchRoom[core];
    const std::int64_t free = std::max<std::int64_t>(m_memory.largestGapAfter(core, 0), 0);
    if (need > free)
      throw InputError(m_plan.networkName + ": LL schedule: core " + std::to_string(core) +
                       "'s local memory (" + std::to_string(m_options.localMemoryElements) + " elements, " +
                       std::to_string(free) + " free after its biases) cannot hold its AGs' buffers (" +
                       std::to_string(m_agBufferRoom[core]) + "), a partial sum (" +
                       std::to_string(m_partialRoom[core]) + ") and a post-node output and operand (" +
                       std::to_string(m_postOutputRoom[core] + m_postScratchRoom[core]) + ")");
  }
}

void Scheduler::allocateAgBuffers(std::int64_t ag, int node) {
  const ArrayGroup& a = m_plan.layout.ags[ag];
  m_agOutput[ag] = allocate(a.core, a.cols, "an AG output", node);
  m_agInput[ag] = allocate(a.core, a.rows, "an AG input", node);
  if (!m_agBufferRoom.empty()) m_agBufferRoom[a.core] -= a.rows + a.cols;
}

std::int64_t Scheduler::tryAllocateLeaving(std::int64_t core, std::int64_t elements, std::int64_t room) {
  if (room > 0 && m_memory.largestGapAfter(core, elements) < room) return -1;
  return m_memory.tryAllocate(core, elements);
}

std::int64_t Scheduler::holdInput(std::int64_t core, std::int64_t elements) {
  if (!m_options.spillToGlobalMemory) return m_memory.tryAllocate(core, elements);
  return tryAllocateLeaving(
      core, elements,
      m_agBufferRoom[core] + m_partialRoom[core] + m_postOutputRoom[core] + m_postScratchRoom[core]);
}

std::int64_t Scheduler::holdPostOutput(std::int64_t core, std::int64_t elements) {
  if (!m_options.spillToGlobalMemory) return m_memory.tryAllocate(core, elements);
  return tryAllocateLeaving(core, elements,
                            m_agBufferRoom[core] + m_partialRoom[core] + m_postScratchRoom[core]);
}

// The producer stores the pixel to global memory, once whatever the number of cores and consumers that read
// it from there.
void Scheduler::spill(const Transfer& t) {
  if (latestWrite(t.origin, t.pixel) < 0)
    storeInGlobalMemory(t.core, Stage::Post, t.origin, t.pixel, t.elements);
}

// Its traffic, and the pixel counted once as spilled.
void Scheduler::storeInGlobalMemory(std::int64_t core, Stage stage, int node, std::int64_t pixel,
                                    std::int64_t elements) {
  emit(core, Opcode::St, stage, node, elements).globalWrite = m_nextWrite;
  m_spillTraffic[core] += elements;
  std::vector<std::int64_t>& writes = m_inGlobalMemory[node];
  if (writes.empty()) writes.assign(m_graph.pixels[node], -1);
  if (writes[pixel] < 0) {
    ++m_spilledPixels;
    m_spilledElements += elements;
  }
  writes[pixel] = m_nextWrite++;
}

std::int64_t Scheduler::latestWrite(int node, std::int64_t pixel) const {
  const std::vector<std::int64_t>& writes = m_inGlobalMemory[node];
  return writes.empty() ? -1 : writes[pixel];
}

}  // namespace pim::crossbar::ll
