// SPDX-License-Identifier: Apache-2.0
// Array groups and their cores (../shared/specs/crossbar.md, "Layer partitioning" AGs and AGP, "AG to core
// mapping and placement").
#include "engine/crossbar/layout.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "engine/common/error.h"
#include "engine/crossbar/replication.h"

namespace pim::crossbar {
namespace {

std::string agName(const ArrayGroup& ag, const std::vector<LayerPartition>& layers) {
  return "layer '" + layers[ag.layer].name + "' replica " + std::to_string(ag.replica) + " AG " +
         std::to_string(ag.indexInReplica);
}

Layout emptyLayout(std::vector<ArrayGroup> ags, const Accelerator& acc) {
  Layout out;
  out.ags = std::move(ags);
  out.coreAgs.resize(acc.cores());
  out.usedCrossbars.assign(acc.cores(), 0);
  return out;
}

void assign(Layout& l, int ag, std::int64_t core) {
  l.ags[ag].core = core;
  l.coreAgs[core].push_back(ag);
  l.usedCrossbars[core] += l.ags[ag].crossbars;
}

}  // namespace

std::vector<ArrayGroup> arrayGroups(const std::vector<LayerPartition>& layers,
                                    const std::vector<std::int64_t>& replicas, const Accelerator& acc) {
  std::vector<ArrayGroup> ags;
  const std::int64_t partCols = acc.crossbarsPerCore * acc.cols;  // columns of a full AGP part
  for (std::size_t li = 0; li < layers.size(); ++li) {
    const LayerPartition& l = layers[li];
    for (std::int64_t rep = 0; rep < replicas[li]; ++rep) {
      const std::int64_t part = rep % l.agp;
      const std::int64_t colStart = part * partCols;
      const std::int64_t cols = std::min(l.matrix.w, colStart + partCols) - colStart;
      for (std::int64_t k = 0; k < l.agsPerReplica; ++k) {
        ArrayGroup ag;
        ag.layer = static_cast<int>(li);
        ag.replica = rep;
        ag.part = part;
        ag.indexInReplica = k;
        const std::int64_t bandStart = (k % l.bandsPerMatrix) * acc.rows;  // within its matrix
        // Matrix m of the formats the schedules run holds the window elements [m*H, (m+1)*H): kernel
        // position m of I,O,K2, kernel row m of IK,O,K, everything of im2col (P = 1).
        ag.rowStart = (k / l.bandsPerMatrix) * l.matrix.h + bandStart;
        ag.rows = std::min(l.matrix.h, bandStart + acc.rows) - bandStart;
        ag.colStart = colStart;
        ag.cols = cols;
        ag.crossbars = (cols + acc.cols - 1) / acc.cols;
        ags.push_back(ag);
      }
    }
  }
  return ags;
}

namespace {

// First fit over `order`: each AG to the lowest-numbered core with its crossbars free. Returns the core of
// every AG (by AG index); `how` names the rule in the error for an AG that fits nowhere.
std::vector<std::int64_t> firstFitCores(const std::vector<ArrayGroup>& ags,
                                        const std::vector<std::size_t>& order,
                                        const std::vector<LayerPartition>& layers, const Accelerator& acc,
                                        std::string_view network, std::string_view how) {
  std::vector<std::int64_t> cores(ags.size(), -1);
  std::vector<std::int64_t> used(acc.cores(), 0);
  std::int64_t firstWithRoom = 0;  // cores before it are full: skipping them changes no choice
  for (std::size_t placed = 0; placed < order.size(); ++placed) {
    const ArrayGroup& ag = ags[order[placed]];
    while (firstWithRoom < acc.cores() && used[firstWithRoom] == acc.crossbarsPerCore) ++firstWithRoom;
    std::int64_t core = firstWithRoom;
    while (core < acc.cores() && acc.crossbarsPerCore - used[core] < ag.crossbars) ++core;
    if (core == acc.cores()) {
      throw InputError(std::string(network) + ": " + agName(ag, layers) + " needs " +
                       std::to_string(ag.crossbars) + " crossbars; no core of " + acc.name +
                       " has them free (" + std::string(how) + ", " +
                       withThousands(static_cast<std::int64_t>(placed)) + " of " +
                       withThousands(static_cast<std::int64_t>(ags.size())) + " AGs placed)");
    }
    cores[order[placed]] = core;
    used[core] += ag.crossbars;
  }
  return cores;
}

}  // namespace

Layout placeFirstFit(std::vector<ArrayGroup> ags, const std::vector<LayerPartition>& layers,
                     const Accelerator& acc, std::string_view network) {
  std::vector<std::size_t> order(ags.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const std::vector<std::int64_t> cores = firstFitCores(ags, order, layers, acc, network, kFirstFit);
  return placeOnCores(std::move(ags), cores, layers, acc, network);
}

Layout placeLargestFirst(std::vector<ArrayGroup> ags, const std::vector<LayerPartition>& layers,
                         const Accelerator& acc, std::string_view network) {
  std::vector<std::size_t> order(ags.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ags[a].crossbars > ags[b].crossbars; });
  const std::vector<std::int64_t> cores = firstFitCores(ags, order, layers, acc, network, kLargestFirst);
  return placeOnCores(std::move(ags), cores, layers, acc, network);
}

Layout placeOnCores(std::vector<ArrayGroup> ags, const std::vector<std::int64_t>& cores,
                    const std::vector<LayerPartition>& layers, const Accelerator& acc,
                    std::string_view network) {
  if (cores.size() != ags.size())
    throw InputError(std::string(network) + ": layout gives " + std::to_string(cores.size()) + " cores for " +
                     std::to_string(ags.size()) + " AGs");
  Layout out = emptyLayout(std::move(ags), acc);
  for (std::size_t i = 0; i < out.ags.size(); ++i) {
    const std::int64_t core = cores[i];
    if (core < 0 || core >= acc.cores())
      throw InputError(std::string(network) + ": " + agName(out.ags[i], layers) + " on core " +
                       std::to_string(core) + "; " + acc.name + " has " + std::to_string(acc.cores()));
    if (out.usedCrossbars[core] + out.ags[i].crossbars > acc.crossbarsPerCore)
      throw InputError(std::string(network) + ": core " + std::to_string(core) + " holds more than its " +
                       std::to_string(acc.crossbarsPerCore) + " crossbars with " +
                       agName(out.ags[i], layers));
    assign(out, static_cast<int>(i), core);
  }
  return out;
}

std::vector<std::int64_t> identityPlacement(const Accelerator& acc) {
  std::vector<std::int64_t> map(acc.cores());
  std::iota(map.begin(), map.end(), 0);
  return map;
}

}  // namespace pim::crossbar
