// SPDX-License-Identifier: Apache-2.0
// The network as the LL scheduler sees it (../shared/specs/crossbar.md, "Scheduling", LL; pimcomp-nn
// Preparation.cpp GetTopologyInformation and GetConvPoolInputOutputInfo, ElementPipelineSchedule.cpp
// no_consider_node_set): node roles, the producer/consumer topology, sliding windows and the last nodes.
#include <algorithm>

#include "engine/common/error.h"
#include "engine/crossbar/ll_internal.h"

namespace pim::crossbar {

bool passesThroughInLl(NetworkOp op) {
  switch (op) {
    case NetworkOp::Flatten:
    case NetworkOp::Reshape:
    case NetworkOp::Dropout:
    case NetworkOp::Lrn:
    case NetworkOp::Softmax:
    case NetworkOp::Transpose:
    case NetworkOp::Squeeze:
    case NetworkOp::MatMul:
    case NetworkOp::Bn:
    case NetworkOp::Clip:
      return true;
    default:
      return false;
  }
}

}  // namespace pim::crossbar

namespace pim::crossbar::ll {
namespace {

bool isActivation(NetworkOp op) {
  return op == NetworkOp::Relu || op == NetworkOp::Tanh || op == NetworkOp::Sigmoid;
}

Role roleOf(const NetworkNode& n) {
  if (passesThroughInLl(n.op)) return Role::PassThrough;
  switch (n.op) {
    case NetworkOp::Input:
      return Role::Input;
    case NetworkOp::Conv:
    case NetworkOp::Fc:
      return Role::Compute;
    case NetworkOp::Pool:
      return Role::Pool;
    case NetworkOp::Eltwise:
      return Role::Eltwise;
    case NetworkOp::Concat:
      return Role::Concat;
    case NetworkOp::Relu:
    case NetworkOp::Tanh:
    case NetworkOp::Sigmoid:
      return Role::Activation;
    default:
      // PAD and SHUFFLE have no working element-pipeline code in PIMCOMP-NN (PAD emits nothing and then
      // reads an output it never allocated; SHUFFLE needs a split factor the node list does not carry);
      // SHAPE, GATHER and UNSQUEEZE abort there as "Post Node Type Not Supported".
      throw InputError("node " + std::to_string(n.index) + " '" + n.name +
                       "': " + std::string(networkOpName(n.op)) +
                       " is not supported by the LL (element pipeline) schedule");
  }
}

}  // namespace

Graph::Graph(const Network& net) {
  const std::size_t n = net.nodes.size();
  role.resize(n);
  consumers.resize(n);
  providers.resize(n);
  pixels.assign(n, 1);
  channelElements.assign(n, 1);
  window.resize(n);
  graphSink.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const NetworkNode& node = net.nodes[i];
    role[i] = roleOf(node);
    if (node.op != NetworkOp::Fc && node.output_dim.size() == 4)
      pixels[i] = node.output_dim[2] * node.output_dim[3];
    if (node.output_dim.size() >= 2) channelElements[i] = node.output_dim[1];
    if (node.op == NetworkOp::Conv || node.op == NetworkOp::Pool) window[i] = windowOf(node);
    graphSink[i] = node.consumers.empty() && role[i] != Role::Input;
  }
  // PIMCOMP-NN links a CONV/FC past an activation it feeds (the activation is fused, or dropped) and keeps
  // every other link; providers are listed in the order the links are found (producer order).
  auto link = [&](int from, int to) {
    consumers[from].push_back(to);
    providers[to].push_back(from);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const NetworkNode& node = net.nodes[i];
    const int self = static_cast<int>(i);
    if (role[i] == Role::Activation && !node.providers.empty() && role[node.providers[0]] == Role::Compute) {
      role[i] = Role::Folded;
      continue;
    }
    for (int c : node.consumers) {
      if (role[i] == Role::Compute && isActivation(net.nodes[c].op)) {
        for (int cc : net.nodes[c].consumers) link(self, cc);
      } else {
        link(self, c);
      }
    }
  }
  // The last nodes: every sink of the file, a pass-through or dropped activation replaced by the computing
  // nodes that feed it (pimcomp-nn instead names one node per model in a table).
  std::vector<int> stack;
  for (std::size_t i = 0; i < n; ++i)
    if (graphSink[i]) stack.push_back(static_cast<int>(i));
  while (!stack.empty()) {
    const int s = stack.back();
    stack.pop_back();
    if (role[s] == Role::PassThrough || role[s] == Role::Folded) {
      for (int p : net.nodes[s].providers) stack.push_back(p);
    } else if (role[s] != Role::Input &&
               std::find(lastNodes.begin(), lastNodes.end(), s) == lastNodes.end()) {
      lastNodes.push_back(s);
    }
  }
  std::sort(lastNodes.begin(), lastNodes.end());
}

int Graph::providerSlot(int node, int provider) const {
  const auto& list = providers[node];
  return static_cast<int>(std::find(list.begin(), list.end(), provider) - list.begin());
}

}  // namespace pim::crossbar::ll
