// SPDX-License-Identifier: Apache-2.0
// Builds a CompilePlan: partition, replication, first-fit layout (../shared/specs/crossbar.md, "Layer
// partitioning" to "AG to core mapping"; pimcomp-nn main.cpp runs them in this order).
#include "engine/crossbar/compile.h"

#include <numeric>

#include "engine/common/error.h"
#include "engine/crossbar/replication.h"

namespace pim::crossbar {
namespace {

CompilePlan basePlan(const Network& net, const Accelerator& acc, const CompileOptions& options) {
  if (acc.rows <= 0 || acc.cols <= 0 || acc.crossbarsPerCore <= 0 || acc.cores() <= 0)
    throw InputError(acc.name + ": rows, cols, crossbars per core and cores must be positive");
  CompilePlan p;
  p.network = net;
  p.networkName = networkLabel(net);
  p.accelerator = acc;
  p.options = options;
  p.layers = partitionNetwork(net, acc, options.unfolding, options.mode);
  p.layerOfNode.assign(net.nodes.size(), -1);
  for (std::size_t i = 0; i < p.layers.size(); ++i) p.layerOfNode[p.layers[i].node] = static_cast<int>(i);
  return p;
}

}  // namespace

std::int64_t CompilePlan::crossbarsUsed() const {
  return std::accumulate(layout.usedCrossbars.begin(), layout.usedCrossbars.end(), std::int64_t{0});
}

const LayerPartition* CompilePlan::layerOf(int node) const {
  if (node < 0 || node >= static_cast<int>(layerOfNode.size()) || layerOfNode[node] < 0) return nullptr;
  return &layers[layerOfNode[node]];
}

std::string networkLabel(const Network& net) { return networkStem(net); }

namespace {

/// The layer whose next replica is the cheapest to give back: the one whose instruction groups grow least
/// (ceil(windows / (replicas - 1))); -1 when every layer is at one replica.
int layerToBackOff(const CompilePlan& p) {
  int best = -1;
  std::int64_t bestGroups = 0;
  for (std::size_t i = 0; i < p.layers.size(); ++i) {
    const std::int64_t origin = p.replicas[i] / p.layers[i].agp;
    if (origin <= 1) continue;
    const std::int64_t groups = (p.layers[i].windows + origin - 2) / (origin - 1);
    if (best < 0 || groups < bestGroups) best = static_cast<int>(i), bestGroups = groups;
  }
  return best;
}

// Whether node-order first fit places one replica (its AGP parts) of every layer.
bool firstFitPlacesOneEach(const CompilePlan& p, const Accelerator& acc) {
  std::vector<std::int64_t> one;
  for (const LayerPartition& l : p.layers) one.push_back(l.agp);
  try {
    placeFirstFit(arrayGroups(p.layers, one, acc), p.layers, acc, p.networkName);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

CompilePlan compilePlan(const Network& net, const Accelerator& acc, const CompileOptions& options) {
  CompilePlan p = basePlan(net, acc, options);
  p.replicas = replicate(options.replication, {p.layers, p.accelerator, p.networkName});
  // A rule counts crossbars, not how they pack: first fit can leave an AG several crossbars wide with no core
  // that has them. PIMCOMP-NN then drops the AG silently; PIMScope gives back one replica at a time, where it
  // costs the fewest instruction groups, until every AG is placed. Where node-order first fit cannot place
  // even one replica per layer (it fills every core with narrow AGs before the wide ones come, as MobileNet's
  // on Arch-A), the AGs are packed largest first instead, and replicas are given back under that rule.
  using Place = Layout (*)(std::vector<ArrayGroup>, const std::vector<LayerPartition>&, const Accelerator&,
                           std::string_view);
  Place place = placeFirstFit;
  bool oneEachChecked = false;
  for (;;) {
    try {
      p.layout = place(arrayGroups(p.layers, p.replicas, acc), p.layers, acc, p.networkName);
      return p;
    } catch (const InputError&) {
      if (!oneEachChecked) {
        oneEachChecked = true;
        if (!firstFitPlacesOneEach(p, acc)) {
          place = placeLargestFirst;
          p.placement = kLargestFirst;
          continue;
        }
      }
      const int layer = layerToBackOff(p);
      if (layer < 0) throw;
      p.replicas[static_cast<std::size_t>(layer)] -= p.layers[static_cast<std::size_t>(layer)].agp;
      ++p.replicasGivenBack;
    }
  }
}

CompilePlan assemblePlan(const Network& net, const Accelerator& acc, const CompileOptions& options,
                         std::vector<std::int64_t> replicas, const std::vector<std::int64_t>& cores) {
  CompilePlan p = basePlan(net, acc, options);
  if (replicas.size() != p.layers.size())
    throw InputError(p.networkName + ": " + std::to_string(replicas.size()) + " replica counts for " +
                     std::to_string(p.layers.size()) + " layers");
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    const LayerPartition& l = p.layers[i];
    if (replicas[i] < l.agp || replicas[i] % l.agp != 0 || replicas[i] > l.windows * l.agp)
      throw InputError(p.networkName + ": layer '" + l.name + "': " + std::to_string(replicas[i]) +
                       " replicas; must be a multiple of its AGP " + std::to_string(l.agp) + " up to " +
                       std::to_string(l.windows * l.agp));
  }
  p.replicas = std::move(replicas);
  p.placement = "genetic search";
  p.layout = placeOnCores(arrayGroups(p.layers, p.replicas, acc), cores, p.layers, acc, p.networkName);
  return p;
}

}  // namespace pim::crossbar
