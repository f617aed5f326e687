// SPDX-License-Identifier: Apache-2.0
// LL scheduler: post nodes and transfer requests (../shared/specs/crossbar.md, "Scheduling", LL; tcad
// Algorithm 2 lines 7-8, TransmitRequest; pimcomp-nn ElementPipelineSchedule.cpp
// ScheduleSplitInstructionPost, Stage4Pool/Eltwise/Concat/Activate, WriteBack). A computed pixel becomes a
// transfer request, issued at the end of the IG (ll_comm.cpp), so a consumer sees the pixel from the next IG
// on.
#include <stdexcept>

#include "engine/crossbar/ll_internal.h"

namespace pim::crossbar::ll {

using xbar::Opcode;
using xbar::Stage;

bool Scheduler::postReady(const PostState& p, std::int64_t pixel) {
  if (m_graph.role[p.node] != Role::Pool) {
    for (const auto& slot : p.inputs)
      if (!slot[pixel].ready) return false;
    return true;
  }
  m_graph.window[p.node].inputsOf(pixel, m_scratch);
  for (std::int64_t in : m_scratch)
    if (in >= 0 && !p.inputs[0][in].ready) return false;
  return true;
}

// A post node computes every ready pixel of its output in one IG, in pixel order. Only pixels one of whose
// inputs arrived since the last check can have become ready.
bool Scheduler::computePost(PostState& p) {
  bool any = false;
  const std::set<std::int64_t> candidates = std::move(p.candidates);
  p.candidates.clear();
  for (std::int64_t pixel : candidates) {
    if (p.done[pixel] || !postReady(p, pixel)) continue;
    const std::int64_t out = holdPostOutput(p.core, m_graph.channelElements[p.node]);
    if (out < 0) {  // no room for the output: try again next IG
      p.candidates.insert(pixel);
      continue;
    }
    p.outputs.push_back({p.core, out, 0});
    if (m_graph.role[p.node] == Role::Pool)
      runPool(p, pixel, out);
    else
      runVector(p, pixel, out);
    p.done[pixel] = 1;
    ++m_nodeDone[p.node];
    finishPixel({.origin = p.node,
                 .pixel = pixel,
                 .core = p.core,
                 .address = p.outputs.back().address,
                 .elements = m_graph.channelElements[p.node]});
    any = true;
  }
  return any;
}

// A post node's input pixel: held on its core, or (spilled) loaded from global memory into `into`, a buffer
// the caller provides. Returns the pixel's buffer on the core.
std::int64_t Scheduler::postOperand(PostState& p, std::size_t slot, std::int64_t pixel, std::int64_t into,
                                    std::int64_t intoOffset) {
  const PostInput& in = p.inputs[slot][pixel];
  if (in.address >= 0) return in.address;
  if (in.address != kInGlobalMemory) throw std::logic_error("LL schedule: post-node input pixel missing");
  const std::int64_t n = p.slotElements[slot];
  m_spillTraffic[p.core] += n;
  emitCopy(p.core, Opcode::Ld, Stage::Post, p.node, n,
           {spillSource(p.node, std::int64_t(slot)), pixel * n, into + intoOffset, 0, in.write});
  return into;
}

// Done with a post node's input pixel: its buffer is freed (a spilled one holds none).
void Scheduler::dropPostInput(PostState& p, std::size_t slot, std::int64_t pixel) {
  PostInput& in = p.inputs[slot][pixel];
  if (in.address >= 0) m_memory.release(p.core, in.address, p.slotElements[slot]);
  in.address = -1;
}

// Max pool: copy the first input pixel, VVMAX the others; average pool: VVADD them, then scale by an LLDI-
// filled constant (the VVMUL has no opcode here and no time in PIMCOMP-NN's evaluator). A spilled pixel is
// loaded into the output (the first) or into a scratch buffer (the others).
void Scheduler::runPool(PostState& p, std::int64_t pixel, std::int64_t out) {
  const int node = p.node;
  const std::int64_t c = m_graph.channelElements[node];
  const bool average = m_plan.network.nodes[node].pool.method == PoolMethod::Average;
  std::vector<std::int64_t> window;
  m_graph.window[node].inputsOf(pixel, window);
  std::erase(window, -1);
  for (std::size_t i = 0; i < window.size(); ++i) {
    const bool spilled = p.inputs[0][window[i]].address == kInGlobalMemory;
    if (i == 0) {
      const std::int64_t held = postOperand(p, 0, window[i], out, 0);
      if (!spilled)  // PIMCOMP-NN writes this copy's destination into its offset field
        emitCopy(p.core, Opcode::Lmv, Stage::Post, node, c, {held, 0, 0, out});
    } else {
      const std::int64_t scratch = spilled ? allocate(p.core, c, "a spilled pool operand", node) : -1;
      postOperand(p, 0, window[i], scratch, 0);
      emit(p.core, average ? Opcode::Vvadd : Opcode::Vvmax, Stage::Post, node, c);
      if (spilled) m_memory.release(p.core, scratch, c);
    }
    if (i + 1 == window.size() && average) {
      const std::int64_t scale = allocate(p.core, c, "an average-pool scale", node);
      emitCopy(p.core, Opcode::Lldi, Stage::Post, node, c, {0, 0, scale, 0});
      m_memory.release(p.core, scale, c);
    }
    unmodelled(p.core);  // PIMCOMP-NN's VER after each step
    if (--p.inputs[0][window[i]].rest == 0) dropPostInput(p, 0, window[i]);
  }
}

// ELTWISE (LLDI of zeros, then one VVADD per input), CONCAT (one LMV per input) and activations. A spilled
// input is loaded where it is needed: into the output (CONCAT, activations) or a scratch buffer (ELTWISE).
void Scheduler::runVector(PostState& p, std::int64_t pixel, std::int64_t out) {
  const int node = p.node;
  const Role role = m_graph.role[node];
  const NetworkNode& nn = m_plan.network.nodes[node];
  const std::int64_t c = m_graph.channelElements[node];
  if (role == Role::Eltwise) emitCopy(p.core, Opcode::Lldi, Stage::Post, node, c, {0, 0, out, 0});
  std::int64_t concatOffset = 0;
  const std::size_t slots = role == Role::Activation ? 1 : p.inputs.size();
  for (std::size_t s = 0; s < slots; ++s) {
    const bool spilled = p.inputs[s][pixel].address == kInGlobalMemory;
    if (role == Role::Eltwise) {
      const std::int64_t scratch = spilled ? allocate(p.core, c, "a spilled element-wise operand", node) : -1;
      postOperand(p, s, pixel, scratch, 0);
      if (nn.eltwise == EltwiseType::Add)
        emit(p.core, Opcode::Vvadd, Stage::Post, node, c);
      else
        unmodelled(p.core);  // VSUB
      if (spilled) m_memory.release(p.core, scratch, c);
    } else if (role == Role::Concat) {
      const std::int64_t held = postOperand(p, s, pixel, out, concatOffset);
      if (!spilled)
        emitCopy(p.core, Opcode::Lmv, Stage::Post, node, p.slotElements[s], {held, 0, out, concatOffset});
      concatOffset += p.slotElements[s];
    } else if (role == Role::Activation) {
      postOperand(p, s, pixel, out, 0);
      const Opcode op = nn.op == NetworkOp::Relu   ? Opcode::Vrelu
                        : nn.op == NetworkOp::Tanh ? Opcode::Vtanh
                                                   : Opcode::Vsigmoid;
      emit(p.core, op, Stage::Post, node, c);
    }
    if (role != Role::Concat) unmodelled(p.core);  // VER
    dropPostInput(p, s, pixel);
  }
  if (role == Role::Concat) unmodelled(p.core);  // VER
}

// The pixel goes to every consumer; a node without consumers (the last node) stores it to global memory.
void Scheduler::finishPixel(const Transfer& where) {
  if (m_graph.consumers[where.origin].empty()) {
    if (where.address != kInGlobalMemory)
      emit(where.core, Opcode::St, Stage::Other, where.origin, where.elements);
    return;
  }
  for (int next : m_graph.consumers[where.origin])
    forward(where.origin, where.origin, next, where.pixel, where);
}

// Requests a transfer to `next`, or looks through a pass-through node to its consumers (storing the pixel
// when the pass-through node is the last one).
void Scheduler::forward(int origin, int from, int next, std::int64_t pixel, const Transfer& where) {
  Transfer t = where;
  t.origin = origin;
  t.target = next;
  t.pixel = pixel;
  switch (m_graph.role[next]) {
    case Role::Compute:
      queue(m_mainTransfers, t);
      break;
    case Role::Pool:
      t.slot = 0;
      queue(m_postTransfers, t);
      break;
    case Role::Eltwise:
    case Role::Concat:
    case Role::Activation:
      t.slot = m_graph.providerSlot(next, from);
      queue(m_postTransfers, t);
      break;
    case Role::PassThrough:
      if (m_graph.consumers[next].empty() && where.address != kInGlobalMemory)
        emit(where.core, Opcode::St, Stage::Other, origin, where.elements);
      for (int after : m_graph.consumers[next]) forward(origin, next, after, pixel, where);
      break;
    default:
      break;
  }
}

// The pixel's buffer must outlive the request: its replica computes nothing more (the AG output buffer would
// be overwritten), a post node or a scatter layer keeps the output buffer, until the transfer is issued.
void Scheduler::queue(std::vector<Transfer>& list, const Transfer& t) {
  list.push_back(t);
  if (t.replica >= 0) {
    ++m_compute[m_computeOf[t.origin]].undelivered[t.replica];
    return;
  }
  for (HeldOutput& out : heldOutputs(t.origin))
    if (out.core == t.core && out.address == t.address) ++out.waiting;
}

}  // namespace pim::crossbar::ll
