// SPDX-License-Identifier: Apache-2.0
// LL scheduler: the end of an IG (../shared/specs/crossbar.md, "Scheduling", LL: requests "buffered and
// issued together at the end of each IG"; tcad Algorithm 2 lines 13-14, PerformTransmit; pimcomp-nn
// ElementPipelineSchedule.cpp CommForMain, COMMForPost, COMM, MemoryAllocationForPool/Vec,
// MemoryFreeForPost). With a bounded local memory, a request whose receive buffer does not fit waits for a
// later IG (PIMCOMP-NN, whose memory never fills, aborts instead).
#include "engine/crossbar/ll_internal.h"

namespace pim::crossbar::ll {

using xbar::Opcode;
using xbar::Stage;

// Requests that waited go first, then this IG's for CONV/FC consumers, then those for post nodes, each in
// request order. Returns whether any request was issued.
bool Scheduler::communicate() {
  std::vector<Transfer> pending = std::move(m_waiting);
  m_waiting.clear();
  pending.insert(pending.end(), m_mainTransfers.begin(), m_mainTransfers.end());
  pending.insert(pending.end(), m_postTransfers.begin(), m_postTransfers.end());
  m_mainTransfers.clear();
  m_postTransfers.clear();
  bool issued = false;
  for (const Transfer& t : pending) {
    const bool done = m_graph.role[t.target] == Role::Compute ? deliverMain(t) : deliverPost(t);
    if (done) {
      settle(t);
      issued = true;
    } else {
      m_waiting.push_back(t);
    }
  }
  return issued;
}

// To every core that reads the pixel, once per core; the pixel counts as arrived (for every replica) when
// all of them hold it.
bool Scheduler::deliverMain(const Transfer& t) {
  ComputeState& s = m_compute[m_computeOf[t.target]];
  for (ChannelUse& use : s.uses[t.pixel]) {
    if (use.address >= 0 || use.address == kInGlobalMemory) continue;
    use.address = receive(t, use.core, s.channelElements);
    if (use.address == -1) return false;
    if (use.address == kInGlobalMemory) use.write = latestWrite(t.origin, t.pixel);
  }
  s.ready[t.pixel] = 1;
  while (s.readyPrefix < s.inputChannels && s.ready[s.readyPrefix]) ++s.readyPrefix;
  return true;
}

// To the post node's core, once per input pixel; the node's output pixels that read it become candidates.
bool Scheduler::deliverPost(const Transfer& t) {
  PostState& p = m_post[m_postOf[t.target]];
  PostInput& in = p.inputs[t.slot][t.pixel];
  if (!in.requested) {
    in.address = receive(t, p.core, p.slotElements[t.slot]);
    if (in.address == -1) return false;
    if (in.address == kInGlobalMemory) in.write = latestWrite(t.origin, t.pixel);
    in.requested = true;
  }
  in.ready = true;
  if (m_graph.role[t.target] == Role::Pool) {
    m_graph.window[t.target].outputsOf(t.pixel, m_scratch);
    p.candidates.insert(m_scratch.begin(), m_scratch.end());
  } else {
    p.candidates.insert(t.pixel);
  }
  return true;
}

void Scheduler::settle(const Transfer& t) {
  if (t.replica >= 0) {
    --m_compute[m_computeOf[t.origin]].undelivered[t.replica];
    return;
  }
  for (HeldOutput& out : heldOutputs(t.origin))
    if (out.core == t.core && out.address == t.address) --out.waiting;
}

std::vector<HeldOutput>& Scheduler::heldOutputs(int origin) {
  return m_postOf[origin] >= 0 ? m_post[m_postOf[origin]].outputs : m_compute[m_computeOf[origin]].held;
}

// Room for a delivered pixel on `core`: its buffer there (the transfer is issued), kInGlobalMemory (spilled),
// or -1 (the transfer waits).
std::int64_t Scheduler::receive(const Transfer& t, std::int64_t core, std::int64_t elements) {
  const std::int64_t address = holdInput(core, elements);
  if (address >= 0 && t.address == kInGlobalMemory) {  // a scatter accumulator finished in global memory
    const std::int64_t slot = m_graph.role[t.target] == Role::Compute ? 0 : static_cast<std::int64_t>(t.slot);
    emitCopy(core, Opcode::Ld, Stage::Post, t.target, t.elements,
             {spillSource(t.target, slot), t.pixel * t.elements, address, 0, latestWrite(t.origin, t.pixel)});
    m_spillTraffic[core] += t.elements;
  } else if (address >= 0) {
    transfer(t, core, address);
  } else if (m_options.spillToGlobalMemory) {
    spill(t);
    return kInGlobalMemory;
  }
  return address;
}

// SEND/RECV between cores; a copy when the pixel is already on the receiving core.
void Scheduler::transfer(const Transfer& t, std::int64_t to, std::int64_t toAddress) {
  if (t.core == to) {
    emitCopy(to, Opcode::Lmv, Stage::Post, t.target, t.elements, {t.address, 0, toAddress, 0});
    return;
  }
  xbar::Instruction& send = emit(t.core, Opcode::Send, Stage::Post, t.origin, t.elements);
  send.peer = static_cast<std::int32_t>(to);
  send.comm = m_nextComm;
  xbar::Instruction& recv = emit(to, Opcode::Recv, Stage::Post, t.target, t.elements);
  recv.peer = static_cast<std::int32_t>(t.core);
  recv.comm = m_nextComm++;
}

// Post-node outputs and finished scatter accumulators live until the end of their IG, or until the last
// transfer reading them is issued.
void Scheduler::releaseHeldOutputs() {
  auto release = [&](int node, std::vector<HeldOutput>& outputs) {
    std::erase_if(outputs, [&](const HeldOutput& out) {
      if (out.waiting > 0) return false;
      m_memory.release(out.core, out.address, m_graph.channelElements[node]);
      return true;
    });
  };
  for (PostState& p : m_post) release(p.node, p.outputs);
  for (ComputeState& s : m_compute) release(s.node, s.held);
}

}  // namespace pim::crossbar::ll
