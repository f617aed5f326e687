// SPDX-License-Identifier: Apache-2.0
// Weight unfolding and array-group partitioning of CONV/FC layers (../shared/specs/crossbar.md, "Layer
// partitioning"; tcad V, Table IV).
#include "engine/crossbar/partition.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <tuple>

#include "engine/common/error.h"
#include "engine/common/int_math.h"

namespace pim::crossbar {
namespace {

// The product a dimension's factors stand for; `singleK` is what a lone K means there (K_w or K_h).
std::int64_t dimSize(const DimFactors& f, const ConvGeometry& g, std::int64_t singleK) {
  std::int64_t v = 1;
  if (f.inputChannels) v *= g.inChannels;
  if (f.outputChannels) v *= g.outChannels;
  if (f.kernelPower == 2) v *= g.kernelH * g.kernelW;
  if (f.kernelPower == 1) v *= singleK;
  return v;
}

std::string normalised(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '(' || c == ')' || c == '^') continue;
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

// `auto` picks among the formats the schedules run on the layer (the greedy's key depends on the mode);
// `passedOver` gets the greedy's choice over all five when that one is not among them.
const Unfolding& chosenUnfolding(std::string_view choice, const ConvGeometry& g, PipelineMode mode,
                                 const Accelerator& acc, const NetworkNode& node,
                                 std::string_view& passedOver) {
  if (choice == "auto") {
    const Unfolding& runs =
        greedyUnfolding(g, mode, [&](const Unfolding& u) { return scheduled(u, g, acc); });
    const Unfolding& any = greedyUnfolding(g, mode);
    if (!(any == runs)) passedOver = any.name;
    return runs;
  }
  const auto u = parseUnfolding(choice);
  if (!u) {
    throw InputError("node " + std::to_string(node.index) + " '" + node.name +
                     "': unfolding: unknown format '" + std::string(choice) +
                     "' (auto, im2col, I,O,K2, I,OK2,1, IK,O,K, IK,OK,1, IK2,O,1)");
  }
  for (const Unfolding& k : kUnfoldings)
    if (k == *u) return k;
  return kIm2col;  // unreachable: parseUnfolding only returns Table IV entries
}

void fillArrayGroups(LayerPartition& l, const Accelerator& acc) {
  l.bandsPerMatrix = ceilDiv(l.matrix.h, acc.rows);
  l.agsPerReplica = l.matrix.p * l.bandsPerMatrix;
  l.columnArrays = ceilDiv(l.matrix.w, acc.cols);
  l.agp = ceilDiv(l.columnArrays, acc.crossbarsPerCore);
  l.crossbarsPerReplica = l.agsPerReplica * l.columnArrays;
}

}  // namespace

bool isValidUnfolding(const Unfolding& u) {
  const int inputs = u.h.inputChannels + u.w.inputChannels + u.p.inputChannels;
  const int outputs = u.h.outputChannels + u.w.outputChannels + u.p.outputChannels;
  const int kernel = u.h.kernelPower + u.w.kernelPower + u.p.kernelPower;
  const bool powersLegal = std::min({u.h.kernelPower, u.w.kernelPower, u.p.kernelPower}) >= 0;
  return inputs == 1 && outputs == 1 && kernel == 2 && powersLegal && u.h.inputChannels &&
         !u.h.outputChannels && !u.p.inputChannels && !u.p.outputChannels;
}

std::optional<Unfolding> parseUnfolding(std::string_view name) {
  const std::string n = normalised(name);
  if (n == "IM2COL") return kIm2col;
  for (const Unfolding& u : kUnfoldings)
    if (normalised(u.name) == n) return u;
  return std::nullopt;
}

ConvGeometry convGeometry(const NetworkNode& conv) {
  ConvGeometry g;
  g.inChannels = conv.conv.input_channel;
  g.outChannels = conv.conv.output_channel;
  g.kernelH = conv.conv.kernel_h;
  g.kernelW = conv.conv.kernel_w;
  g.inH = conv.input_dim.size() == 4 ? conv.input_dim[2] : 1;
  g.inW = conv.input_dim.size() == 4 ? conv.input_dim[3] : 1;
  g.outH = conv.output_dim.size() == 4 ? conv.output_dim[2] : 1;
  g.outW = conv.output_dim.size() == 4 ? conv.output_dim[3] : 1;
  return g;
}

MatrixShape unfoldedShape(const Unfolding& u, const ConvGeometry& g) {
  // H's lone K is what W and P leave: K_w beside P = K_h (IK,O,K), K_h beside W = O K_w (IK,OK,1).
  const std::int64_t heightK = u.w.kernelPower == 1 ? g.kernelH : g.kernelW;
  return {dimSize(u.h, g, heightK), dimSize(u.w, g, g.kernelW), dimSize(u.p, g, g.kernelH)};
}

UnfoldingCost unfoldingCost(const Unfolding& u, const ConvGeometry& g) {
  const std::int64_t I = g.inChannels, O = g.outChannels, k2 = g.kernelH * g.kernelW;
  const std::int64_t outPixels = g.outH * g.outW, inPixels = g.inH * g.inW;
  const std::int64_t rowLoads = g.outH * g.kernelH * g.inW * I;  // F_in*F_out*K*I
  if (u == kUnfoldings[0]) return {outPixels, rowLoads, k2 * I + k2 * O};
  if (u == kUnfoldings[1]) return {inPixels, inPixels * I, I + k2 * O};
  if (u == kUnfoldings[2]) return {outPixels, rowLoads, k2 * I + g.kernelH * O};  // K_h partial outputs
  if (u == kUnfoldings[3]) return {g.outH * g.inW, rowLoads, g.kernelH * I + g.kernelW * O};
  return {outPixels, outPixels * k2 * I, k2 * I + O};
}

bool multipliesWholeWindows(const Unfolding& u) {
  return u.w.outputChannels && !u.w.inputChannels && u.w.kernelPower == 0;
}

bool scheduled(const Unfolding& u, const ConvGeometry& g, const Accelerator& acc) {
  return multipliesWholeWindows(u) || ceilDiv(unfoldedShape(u, g).w, acc.cols) <= acc.crossbarsPerCore;
}

void requireScheduled(const LayerPartition& l, PipelineMode mode, const NetworkNode& node,
                      const Accelerator& acc, std::string_view network) {
  if (l.op != NetworkOp::Conv || scheduled(l.unfolding, convGeometry(node), acc)) return;
  throw InputError(std::string(network) + ": node " + std::to_string(l.node) + " '" + l.name +
                   "': unfolding " + std::string(l.unfolding.name) + ": a band of " +
                   std::to_string(l.columnArrays) + " arrays is wider than a core, which the " +
                   (mode == PipelineMode::Ht ? "HT" : "LL") + " schedule runs for whole-window formats only");
}

const Unfolding& greedyUnfolding(const ConvGeometry& g, PipelineMode mode,
                                 const std::function<bool(const Unfolding&)>& admissible) {
  const Unfolding* best = nullptr;
  auto key = [&](const Unfolding& u) {
    const UnfoldingCost c = unfoldingCost(u, g);
    return std::make_tuple(c.computeCycles, mode == PipelineMode::Ht ? c.loadVolume : c.extraMemory);
  };
  for (const Unfolding& u : kUnfoldings) {
    if (admissible && !admissible(u)) continue;
    if (!best || key(u) < key(*best)) best = &u;  // strict: equal keys keep Table IV order
  }
  return best ? *best : kIm2col;  // im2col runs in every mode
}

std::vector<LayerPartition> partitionNetwork(const Network& net, const Accelerator& acc,
                                             const UnfoldingChoice& choice, PipelineMode mode) {
  for (const auto& [name, format] : choice.perLayer) {
    const NetworkNode* n = net.find(name);
    if (!n || n->op != NetworkOp::Conv)
      throw InputError(net.origin + ": unfolding for '" + name + "': no CONV node of that name");
  }
  std::vector<LayerPartition> layers;
  for (const NetworkNode& n : net.nodes) {
    if (n.op != NetworkOp::Conv && n.op != NetworkOp::Fc) continue;
    LayerPartition l;
    l.node = n.index;
    l.name = n.name;
    l.op = n.op;
    if (n.op == NetworkOp::Conv) {
      const ConvGeometry g = convGeometry(n);
      const auto over = choice.perLayer.find(n.name);
      l.unfolding = chosenUnfolding(over != choice.perLayer.end() ? over->second : choice.all, g, mode, acc,
                                    n, l.greedyPassedOver);
      l.matrix = unfoldedShape(l.unfolding, g);
      l.cost = unfoldingCost(l.unfolding, g);
      l.windows = l.cost.computeCycles;
    } else {
      l.matrix = {n.fc.num_input, n.fc.num_output, 1};
      l.cost = {1, n.fc.num_input, 0};
      l.windows = 1;
    }
    fillArrayGroups(l, acc);
    layers.push_back(std::move(l));
  }
  return layers;
}

}  // namespace pim::crossbar
