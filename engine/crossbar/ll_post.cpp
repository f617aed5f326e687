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
    const std::int64_t out = m_memory.tryAllocate(p.core, m_graph.channelElements[p.node]);
    if (out < 0) {  // no room for the output: try again next IG
      p.candidates.insert(pixel);
      continue;
    }
    p.outputs.push_back({out, 0});
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

// Max pool: copy the first input pixel, VVMAX the others; average pool: VVADD them, then scale by an LLDI-
// filled constant (the VVMUL has no opcode here and no time in PIMCOMP-NN's evaluator).
void Scheduler::runPool(PostState& p, std::int64_t pixel, std::int64_t out) {
  const int node = p.node;
  const std::int64_t c = m_graph.channelElements[node];
  const bool average = m_plan.network.nodes[node].pool.method == PoolMethod::Average;
  std::vector<std::int64_t> window;
  m_graph.window[node].inputsOf(pixel, window);
  std::erase(window, -1);
  for (std::size_t i = 0; i < window.size(); ++i) {
    PostInput& in = p.inputs[0][window[i]];
    if (in.address < 0) throw std::logic_error("LL schedule: pool input pixel missing");
    if (i == 0)  // PIMCOMP-NN writes this copy's destination into its offset field
      emitCopy(p.core, Opcode::Lmv, Stage::Post, node, c, {in.address, 0, 0, out});
    else
      emit(p.core, average ? Opcode::Vvadd : Opcode::Vvmax, Stage::Post, node, c);
    if (i + 1 == window.size() && average) {
      const std::int64_t scale = allocate(p.core, c, "an average-pool scale", node);
      emitCopy(p.core, Opcode::Lldi, Stage::Post, node, c, {0, 0, scale, 0});
      m_memory.release(p.core, scale, c);
    }
    unmodelled(p.core);  // PIMCOMP-NN's VER after each step
    if (--in.rest == 0) {
      m_memory.release(p.core, in.address, p.slotElements[0]);
      in.address = -1;
    }
  }
}

// ELTWISE (LLDI of zeros, then one VVADD per input), CONCAT (one LMV per input) and activations.
void Scheduler::runVector(PostState& p, std::int64_t pixel, std::int64_t out) {
  const int node = p.node;
  const Role role = m_graph.role[node];
  const NetworkNode& nn = m_plan.network.nodes[node];
  const std::int64_t c = m_graph.channelElements[node];
  if (role == Role::Eltwise) emitCopy(p.core, Opcode::Lldi, Stage::Post, node, c, {0, 0, out, 0});
  std::int64_t concatOffset = 0;
  const std::size_t slots = role == Role::Activation ? 1 : p.inputs.size();
  for (std::size_t s = 0; s < slots; ++s) {
    PostInput& in = p.inputs[s][pixel];
    if (in.address < 0) throw std::logic_error("LL schedule: vector-node input pixel missing");
    if (role == Role::Eltwise && nn.eltwise == EltwiseType::Add) {
      emit(p.core, Opcode::Vvadd, Stage::Post, node, c);
    } else if (role == Role::Eltwise) {
      unmodelled(p.core);  // VSUB
    } else if (role == Role::Concat) {
      emitCopy(p.core, Opcode::Lmv, Stage::Post, node, p.slotElements[s], {in.address, 0, out, concatOffset});
      concatOffset += p.slotElements[s];
    } else if (role == Role::Activation) {
      const Opcode op = nn.op == NetworkOp::Relu   ? Opcode::Vrelu
                        : nn.op == NetworkOp::Tanh ? Opcode::Vtanh
                                                   : Opcode::Vsigmoid;
      emit(p.core, op, Stage::Post, node, c);
    }
    if (role != Role::Concat) unmodelled(p.core);  // VER
    m_memory.release(p.core, in.address, p.slotElements[s]);
    in.address = -1;
  }
  if (role == Role::Concat) unmodelled(p.core);  // VER
}

// The pixel goes to every consumer; a node without consumers (the last node) stores it to global memory.
void Scheduler::finishPixel(const Transfer& where) {
  if (m_graph.consumers[where.origin].empty()) {
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
      if (m_graph.consumers[next].empty()) emit(where.core, Opcode::St, Stage::Other, origin, where.elements);
      for (int after : m_graph.consumers[next]) forward(origin, next, after, pixel, where);
      break;
    default:
      break;
  }
}

// The pixel's buffer must outlive the request: its replica computes nothing more (the AG output buffer would
// be overwritten), a post node keeps the output buffer, until the transfer is issued.
void Scheduler::queue(std::vector<Transfer>& list, const Transfer& t) {
  list.push_back(t);
  if (t.replica >= 0) {
    ++m_compute[m_computeOf[t.origin]].undelivered[t.replica];
    return;
  }
  for (PostState::Output& out : m_post[m_postOf[t.origin]].outputs)
    if (out.address == t.address) ++out.waiting;
}

}  // namespace pim::crossbar::ll
