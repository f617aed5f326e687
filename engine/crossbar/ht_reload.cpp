// SPDX-License-Identifier: Apache-2.0
// Data movement of one core's HT instruction group (../shared/specs/crossbar.md, "Scheduling", HT: input
// preparation, LD/ST to global memory): pimcomp-nn DataReload ReloadInput/StoreOutput, then
// InstructionOptimization MergePreparation and MergeLoadOperation.
#include <algorithm>
#include <cmath>
#include <queue>
#include <unordered_map>

#include "engine/crossbar/ht_internal.h"

namespace pim::crossbar::ht {
namespace {

using xbar::Opcode;
using xbar::Stage;

Draft movement(Opcode op, Stage stage, int node, std::int64_t elements) {
  Draft d;
  d.inst.op = op;
  d.inst.stage = stage;
  d.inst.node = node;
  d.inst.elements = elements;
  return d;
}

// The input pixel (row-major over H_in x W_in) kernel position `kpos` of output pixel `window` reads, or -1
// in the padding.
std::int64_t inputPixel(const NetworkNode& n, std::int64_t window, std::int64_t kpos) {
  const ConvParams& c = n.conv;
  const std::int64_t inH = n.input_dim[2], inW = n.input_dim[3], outW = n.output_dim[3];
  const std::int64_t h = (window / outW) * c.stride_h + (kpos / c.kernel_w) * c.dilation_h - c.pad_h0;
  const std::int64_t w = (window % outW) * c.stride_w + (kpos % c.kernel_w) * c.dilation_w - c.pad_w0;
  return h < 0 || h >= inH || w < 0 || w >= inW ? -1 : h * inW + w;
}

// DataReload's key for "this core already loaded that input in this IG": a hash of the global address
// (address/5 plus its 2nd, 3rd, 5th and 7th roots) in 50,000 buckets per node. Addresses a few elements apart
// often collide; a collision with a load of the same length becomes a local copy, exactly as in PIMCOMP-NN.
std::int64_t reuseKey(int node, std::int64_t address) {
  const auto a = static_cast<int>(address);
  const auto hash = static_cast<int>(a / 5 + std::pow(double(a), 1.0 / 2) + std::pow(double(a), 1.0 / 3) +
                                     std::pow(double(a), 1.0 / 5) + std::pow(double(a), 1.0 / 7));
  return std::int64_t{node} * 50000 + hash % 50000;
}

struct LoadRecord {
  std::int64_t elements = 0, localAddress = 0;
};
using LoadRecords = std::unordered_map<std::int64_t, LoadRecord>;

// One contiguous piece of an AG's input: a fill for padding, a copy of an input loaded earlier in this IG on
// this core (same key and length), or a load.
void preparePiece(const Context& ctx, const Draft& mvm, std::int64_t pixel, std::int64_t channelOffset,
                  std::int64_t elements, std::int64_t rd, LoadRecords& loaded, CoreList& out) {
  const NetworkNode& node = ctx.nodeOf(mvm.inst.ag);
  const std::int64_t local = ctx.agInputAddress[mvm.inst.ag];
  if (pixel < 0) {
    Draft fill = movement(Opcode::Lldi, Stage::Main, node.index, elements);
    fill.dstAddr = local;
    fill.dstOff = rd;
    out.push_back(fill);
    return;
  }
  const std::int64_t address = pixel * node.conv.input_channel + channelOffset;
  const std::int64_t key = reuseKey(node.index, address);
  const auto it = loaded.find(key);
  if (it == loaded.end() || it->second.elements != elements) {
    Draft ld = movement(Opcode::Ld, Stage::Other, node.index, elements);
    ld.srcAddr = -node.providers[0];
    ld.srcOff = address;
    ld.dstAddr = local;
    ld.dstOff = rd;
    loaded[key] = {elements, local + rd};
    out.push_back(ld);
    return;
  }
  Draft copy = movement(Opcode::Lmv, Stage::Main, node.index, elements);
  copy.srcAddr = it->second.localAddress;
  copy.dstAddr = local;
  copy.dstOff = rd;
  out.push_back(copy);
}

// ReloadInput for one MVMUL: the AG's band of the im2col vector, one piece per kernel position it touches.
void prepareInput(const Context& ctx, const Draft& mvm, LoadRecords& loaded, CoreList& out) {
  const ArrayGroup& ag = ctx.ag(mvm.inst.ag);
  const NetworkNode& node = ctx.nodeOf(mvm.inst.ag);
  if (node.op == NetworkOp::Fc) {
    Draft ld = movement(Opcode::Ld, Stage::Other, node.index, ag.rows);
    ld.srcAddr = -node.providers[0];
    ld.srcOff = ag.rowStart;
    ld.dstAddr = ctx.agInputAddress[mvm.inst.ag];
    out.push_back(ld);
    return;
  }
  const std::int64_t channels = node.conv.input_channel;
  const std::int64_t start = ag.rowStart, end = ag.rowStart + ag.rows - 1;
  std::vector<std::int64_t> scatterPixels;  // a scatter window's pixel at each position of its vector
  if (ctx.scatters(mvm.inst.ag))
    ctx.scatter[ag.layer].window.scatterInputs(ctx.plan.layers[ag.layer].unfolding, mvm.window,
                                               scatterPixels);
  std::int64_t rd = mvm.srcOff;
  for (std::int64_t k = start / channels; k <= end / channels; ++k) {
    const std::int64_t from = std::max(start, k * channels), to = std::min(end, (k + 1) * channels - 1);
    const std::int64_t pixel = scatterPixels.empty() ? inputPixel(node, mvm.window, k) : scatterPixels[k];
    preparePiece(ctx, mvm, pixel, from - k * channels, to - from + 1, rd, loaded, out);
    rd += to - from + 1;
  }
}

// StoreOutput of a scatter layer's window (docs/crossbar.md, "Scatter unfoldings", HT): each block of the
// replica head's result is added to its output pixel's sum. A pixel whose windows all run on this core keeps
// its sum in local memory: the first block is copied there (LMV), later ones are added (VVADD). Any other
// pixel's sum lives in global memory, where other cores add to it as well: the first block is stored as it
// is, a later one is added to an LD of the sum so far (which waits for the ST that wrote it,
// Instruction::globalWrite). The last block also adds the bias and applies the activation before the
// finished pixel is stored for the next layer.
void accumulateBlocks(Context& ctx, const Draft& mvm, CoreList& out) {
  const ArrayGroup& ag = ctx.ag(mvm.inst.ag);
  const NetworkNode& node = ctx.nodeOf(mvm.inst.ag);
  Context::Scatter& s = ctx.scatter[ag.layer];
  const std::int64_t o = node.conv.output_channel;
  std::vector<std::pair<std::int64_t, std::int64_t>> targets;
  s.window.scatterTargets(ctx.plan.layers[ag.layer].unfolding, mvm.window, targets);
  for (const auto& [block, pixel] : targets) {
    const bool local = s.ownerCore[pixel] >= 0, first = !s.started[pixel];
    const bool last = --s.blocksLeft[pixel] == 0;
    s.started[pixel] = 1;
    std::int64_t& write = s.write[pixel];
    if (local && first) out.push_back(movement(Opcode::Lmv, Stage::MainC, node.index, o));
    if (!local && !first) {
      Draft sum = movement(Opcode::Ld, Stage::Other, node.index, o);
      sum.inst.globalWrite = write;
      out.push_back(sum);
    }
    if (!first) out.push_back(movement(Opcode::Vvadd, Stage::MainC, node.index, o));
    if (last && hasBias(node)) out.push_back(movement(Opcode::Vvadd, Stage::MainB, node.index, o));
    if (last && node.with_act)
      out.push_back(movement(activationOpcode(node.act_type), Stage::Main, node.index, o));
    if (local && !last) continue;
    Draft st = movement(Opcode::St, Stage::Other, node.index, o);
    write = last ? -1 : ctx.nextWrite++;
    st.inst.globalWrite = write;
    out.push_back(st);
  }
}

// MergePreparation: a load continuing the previous load in both memories, a copy continuing the previous
// copy's source and destination, or a fill continuing the previous fill extends it.
bool extendsPrevious(const Draft& d, const Draft& previous, const Draft& merged) {
  if (d.inst.globalWrite >= 0 || merged.inst.globalWrite >= 0) return false;  // each waits for its own write
  if (d.inst.op == Opcode::Ld && !d.bias) {
    return merged.inst.op == Opcode::Ld && merged.srcAddr == d.srcAddr &&
           merged.srcOff + merged.inst.elements == d.srcOff && merged.dstAddr == d.dstAddr &&
           merged.dstOff + merged.inst.elements == d.dstOff;
  }
  if (d.inst.op != previous.inst.op) return false;
  const bool destinationContinues =
      previous.dstAddr == d.dstAddr && previous.dstOff + previous.inst.elements == d.dstOff;
  if (d.inst.op == Opcode::Lmv)
    return previous.srcAddr + previous.inst.elements == d.srcAddr && previous.srcOff == d.srcOff &&
           destinationContinues;
  return d.inst.op == Opcode::Lldi && destinationContinues;
}

CoreList mergePreparation(const CoreList& in) {
  CoreList out;
  out.reserve(in.size());
  for (std::size_t k = 0; k < in.size(); ++k) {
    if (k > 0 && !out.empty() && extendsPrevious(in[k], in[k - 1], out.back())) {
      out.back().inst.elements += in[k].inst.elements;
      continue;
    }
    out.push_back(in[k]);
    out.back().index = static_cast<std::int64_t>(out.size()) - 1;
  }
  return out;
}

struct ShortLoad {
  std::int64_t srcOff, elements, index;
  bool operator<(const ShortLoad& o) const { return srcOff > o.srcOff; }  // min-heap on the address
};
struct FullLoad {
  std::int64_t start, firstIndex;
};

std::int64_t inputElements(const NetworkNode& n) {
  std::int64_t e = 1;
  for (std::int64_t d : n.input_dim) e *= d;
  return e;
}

// MergeLoadOperation: per node, loads under 64 elements are covered by 64-element loads (sorted by address,
// a new one wherever a load ends more than 64 past the current one's start); the covering load runs at its
// first member, and every member becomes a local copy.
CoreList mergeShortLoads(const Network& net, const CoreList& in) {
  std::unordered_map<int, std::priority_queue<ShortLoad>> byNode;
  for (const Draft& d : in)
    if (d.inst.op == Opcode::Ld && !d.bias && d.inst.elements < 64 && d.inst.globalWrite < 0)
      byNode[d.inst.node].push({d.srcOff, d.inst.elements, d.index});
  std::vector<FullLoad> full;
  std::unordered_map<std::int64_t, std::size_t> cover;  // short load's index -> full load
  for (std::size_t node = 0; node < net.nodes.size(); ++node) {
    auto it = byNode.find(static_cast<int>(node));
    if (it == byNode.end()) continue;
    for (std::int64_t start = -1; !it->second.empty(); it->second.pop()) {
      const ShortLoad& s = it->second.top();
      if (start != -1 && s.srcOff + s.elements - start <= 64) {
        full.back().firstIndex = std::min(full.back().firstIndex, s.index);
      } else {
        start = s.srcOff;
        full.push_back({start, s.index});
      }
      cover[s.index] = full.size() - 1;
    }
  }
  CoreList out;
  out.reserve(in.size() + full.size());
  for (const Draft& d : in) {
    const auto c = cover.find(d.index);
    if (d.inst.op != Opcode::Ld || d.bias || c == cover.end()) {
      out.push_back(d);
      continue;
    }
    const FullLoad& f = full[c->second];
    if (f.firstIndex == d.index) {
      const std::int64_t limit = inputElements(net.nodes[d.inst.node]) - f.start;
      out.push_back(movement(Opcode::Ld, Stage::Other, d.inst.node, std::min<std::int64_t>(64, limit)));
    }
    out.push_back(movement(Opcode::Lmv, Stage::Main, d.inst.node, d.inst.elements));
  }
  return out;
}

}  // namespace

CoreList withDataMovement(Context& ctx, const CoreList& body) {
  CoreList full;
  LoadRecords loaded;
  for (const Draft& d : body) {
    if (d.inst.op == Opcode::Mvmul) prepareInput(ctx, d, loaded, full);
    full.push_back(d);
  }
  for (const Draft& d : body) {  // StoreOutput: each replica head's result back to global memory
    if (d.inst.op != Opcode::Mvmul || ctx.ag(d.inst.ag).indexInReplica != 0) continue;
    if (ctx.scatters(d.inst.ag))
      accumulateBlocks(ctx, d, full);
    else
      full.push_back(movement(Opcode::St, Stage::Other, d.inst.node, ctx.ag(d.inst.ag).cols));
  }
  return mergeLoads(ctx.plan.network, full);
}

CoreList mergeLoads(const Network& net, const CoreList& list) {
  return mergeShortLoads(net, mergePreparation(list));
}

}  // namespace pim::crossbar::ht
