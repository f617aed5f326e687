// SPDX-License-Identifier: Apache-2.0
#include "engine/crossbar/layer_grouping.h"

#include <algorithm>

#include "engine/crossbar/ll_schedule.h"

namespace pim::crossbar {

bool isPipelineLayer(NetworkOp op) { return op != NetworkOp::Input && !passesThroughInLl(op); }

LayerGrouping groupLayers(const Network& net, const std::vector<double>& timeNs, double periodNs) {
  LayerGrouping g;
  const std::size_t n = net.nodes.size();
  // finish[v]: when v's data is ready within the open group (0 when it comes from an earlier group); a
  // pass-through node forwards its provider's.
  std::vector<double> finish(n, 0.0);
  std::vector<int> groupOf(n, -1);
  for (const NetworkNode& node : net.nodes) {
    const auto v = static_cast<std::size_t>(node.index);
    double ready = 0;
    for (int p : node.providers)
      if (groupOf[static_cast<std::size_t>(p)] == static_cast<int>(g.groups.size()) - 1)
        ready = std::max(ready, finish[static_cast<std::size_t>(p)]);
    if (!isPipelineLayer(node.op)) {
      finish[v] = ready;
      groupOf[v] = node.providers.empty() ? -1 : groupOf[static_cast<std::size_t>(node.providers.front())];
      continue;
    }
    ++g.layers;
    const double t = v < timeNs.size() ? timeNs[v] : 0.0;
    if (g.groups.empty() || ready + t > periodNs) {  // principle I broken: the next stage
      g.groups.emplace_back();
      ready = 0;
    }
    g.groups.back().push_back(node.index);  // principle II: an independent layer joins at offset 0
    groupOf[v] = static_cast<int>(g.groups.size()) - 1;
    finish[v] = ready + t;
  }
  return g;
}

}  // namespace pim::crossbar
