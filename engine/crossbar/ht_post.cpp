// SPDX-License-Identifier: Apache-2.0
// HT post nodes (../shared/specs/crossbar.md, "Scheduling", HT: POOL/ELTWISE/CONCAT spread over cores):
// pimcomp-nn BatchPipelineSchedule SchedulePickOnePostOperation and ScheduleScheduleOnePostOperation, one IG
// per node. Opcodes PIMCOMP-NN's profiler never times (VVMUL of average pools, VSUB, its misspelt "VSIGM")
// have no xbar::Opcode and are left out; SHUFFLE needs split_factor, which the network IR does not keep.
#include <algorithm>
#include <set>

#include "engine/crossbar/ht_internal.h"

namespace pim::crossbar::ht {
namespace {

using xbar::Opcode;
using xbar::Stage;

Draft post(Opcode op, int node, std::int64_t elements) {
  Draft d;
  d.inst.op = op;
  d.inst.stage = Stage::Post;
  d.inst.node = node;
  d.inst.elements = elements;
  return d;
}

struct Segment {
  std::int64_t core, first, last;  // output pixels first..last
};

// ResetPostStartAndEndAddress: `pixels` over min(cores * split, pixels) segments of ceil(pixels / segments),
// the last ones one shorter; segment s goes to core s / split.
std::vector<Segment> segments(std::int64_t pixels, std::int64_t cores, std::int64_t split) {
  const std::int64_t usedCores = std::min(cores, (pixels + split - 1) / split);
  const std::int64_t count = std::min(usedCores * split, pixels);
  const std::int64_t each = (pixels + count - 1) / count, shorter = each * count - pixels;
  std::vector<Segment> out;
  for (std::int64_t s = 0, next = 0; s < count; ++s) {
    const std::int64_t len = each - (s >= count - shorter ? 1 : 0);
    out.push_back({s / split, next, next + len - 1});
    next += len;
  }
  return out;
}

std::int64_t pixelsOf(const NetworkNode& n) {
  return n.output_dim.size() == 4 ? n.output_dim[2] * n.output_dim[3] : 1;
}
std::int64_t channelsOf(const NetworkNode& n) { return n.output_dim.size() >= 2 ? n.output_dim[1] : 1; }

// Input pixels of a pool window in row-major order, the padding left out.
std::vector<std::int64_t> poolWindowInputs(const NetworkNode& n, std::int64_t pixel) {
  const PoolParams& p = n.pool;
  const std::int64_t inH = n.input_dim[2], inW = n.input_dim[3], outW = n.output_dim[3];
  const std::int64_t h0 = (pixel / outW) * p.stride_h - p.pad_h0, w0 = (pixel % outW) * p.stride_w - p.pad_w0;
  std::vector<std::int64_t> inputs;
  for (std::int64_t h = std::max<std::int64_t>(0, h0); h < std::min(inH, h0 + p.kernel_h); ++h)
    for (std::int64_t w = std::max<std::int64_t>(0, w0); w < std::min(inW, w0 + p.kernel_w); ++w)
      inputs.push_back(h * inW + w);
  return inputs;
}

// A load from `provider`'s output in global memory to `local` (the addresses the load merging compares).
Draft load(int node, int provider, std::int64_t address, std::int64_t elements, std::int64_t local) {
  Draft d = post(Opcode::Ld, node, elements);
  d.srcAddr = -provider;
  d.srcOff = address;
  d.dstOff = local;
  return d;
}

void schedulePool(const NetworkNode& n, std::vector<CoreList>& ig) {
  const std::int64_t c = channelsOf(n);
  for (const Segment& s : segments(pixelsOf(n), static_cast<std::int64_t>(ig.size()), 2)) {
    CoreList& list = ig[s.core];
    std::int64_t local = 0;
    for (std::int64_t px = s.first; px <= s.last; ++px) {
      const std::vector<std::int64_t> window = poolWindowInputs(n, px);
      const auto inputs = static_cast<std::int64_t>(window.size());
      for (std::int64_t in : window) {
        list.push_back(load(n.index, n.providers[0], in * c, c, local));
        local += c;
      }
      for (std::int64_t k = 0; k < inputs; ++k) {
        const Opcode op =
            k == 0 ? Opcode::Lmv : (n.pool.method == PoolMethod::Max ? Opcode::Vvmax : Opcode::Vvadd);
        list.push_back(post(op, n.index, c));
        if (k == inputs - 1 && n.pool.method == PoolMethod::Average)
          list.push_back(post(Opcode::Lldi, n.index, c));
      }
    }
    list.push_back(post(Opcode::St, n.index, (s.last - s.first + 1) * c));
  }
}

void scheduleElementwise(const Network& net, const NetworkNode& n, std::vector<CoreList>& ig) {
  const std::int64_t c = channelsOf(n);
  const std::int64_t split = n.op == NetworkOp::Concat ? 2 : 1;
  for (const Segment& s : segments(pixelsOf(n), static_cast<std::int64_t>(ig.size()), split)) {
    CoreList& list = ig[s.core];
    const std::int64_t pixels = s.last - s.first + 1;
    std::vector<int> inputs = n.providers;
    if (n.op != NetworkOp::Concat && n.op != NetworkOp::Eltwise) inputs.resize(1);
    std::int64_t local = 0;
    for (int p : inputs) {
      const std::int64_t pc = channelsOf(net.nodes[p]);
      list.push_back(load(n.index, p, s.first * pc, pixels * pc, local));
      local += pixels * pc;
    }
    for (std::size_t j = 0; j < inputs.size(); ++j) {
      const std::int64_t pc = channelsOf(net.nodes[inputs[j]]);
      for (std::int64_t px = 0; px < pixels; ++px) {
        if (n.op == NetworkOp::Concat) list.push_back(post(Opcode::Lmv, n.index, pc));
        if (n.op == NetworkOp::Eltwise && j > 0 && n.eltwise == EltwiseType::Add)
          list.push_back(post(Opcode::Vvadd, n.index, pc));
        if (n.op == NetworkOp::Relu) list.push_back(post(Opcode::Vrelu, n.index, c));
        if (n.op == NetworkOp::Tanh) list.push_back(post(Opcode::Vtanh, n.index, c));
      }
    }
    list.push_back(post(Opcode::St, n.index, pixels * c));
  }
}

bool isActivation(NetworkOp op) {
  return op == NetworkOp::Relu || op == NetworkOp::Tanh || op == NetworkOp::Sigmoid;
}

// Done before any post IG: inputs, CONV/FC, and activations fused into the CONV/FC before them.
bool doneUpFront(const Network& net, const NetworkNode& n) {
  if (n.op == NetworkOp::Input || n.op == NetworkOp::Conv || n.op == NetworkOp::Fc) return true;
  if (!isActivation(n.op) || n.providers.empty()) return false;
  const NetworkOp p = net.nodes[n.providers[0]].op;
  return p == NetworkOp::Conv || p == NetworkOp::Fc;
}

}  // namespace

bool emitPostNodes(const CompilePlan& plan, const std::function<bool(std::vector<CoreList>&)>& emit) {
  const Network& net = plan.network;
  std::vector<char> done(net.nodes.size(), 0);
  std::set<int> waiting;
  for (const NetworkNode& n : net.nodes) {
    if (doneUpFront(net, n))
      done[n.index] = 1;
    else
      waiting.insert(n.index);
  }
  while (!waiting.empty()) {
    int pick = -1;  // the lowest waiting node whose providers are all done
    for (int w : waiting) {
      bool ready = true;
      for (int p : net.nodes[w].providers) ready = ready && done[p];
      if (ready) {
        pick = w;
        break;
      }
    }
    if (pick < 0) break;  // unreachable for a topological network
    const NetworkNode& n = net.nodes[pick];
    std::vector<CoreList> ig(plan.accelerator.cores());
    if (n.op == NetworkOp::Pool)
      schedulePool(n, ig);
    else if (n.op == NetworkOp::Eltwise || n.op == NetworkOp::Concat || isActivation(n.op))
      scheduleElementwise(net, n, ig);
    for (CoreList& list : ig) list = mergeLoads(net, list);
    if (!emit(ig)) return false;  // other nodes (FLATTEN, ...) keep their empty IG, as in PIMCOMP-NN
    waiting.erase(pick);
    done[pick] = 1;
  }
  return true;
}

}  // namespace pim::crossbar::ht
