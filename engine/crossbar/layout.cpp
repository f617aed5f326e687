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

Layout placeFirstFit(std::vector<ArrayGroup> ags, const std::vector<LayerPartition>& layers,
                     const Accelerator& acc, std::string_view network) {
  Layout out = emptyLayout(std::move(ags), acc);
  std::int64_t firstWithRoom = 0;  // cores before it are full: skipping them changes no choice
  for (std::size_t i = 0; i < out.ags.size(); ++i) {
    const std::int64_t need = out.ags[i].crossbars;
    while (firstWithRoom < acc.cores() && out.usedCrossbars[firstWithRoom] == acc.crossbarsPerCore)
      ++firstWithRoom;
    std::int64_t core = firstWithRoom;
    while (core < acc.cores() && acc.crossbarsPerCore - out.usedCrossbars[core] < need) ++core;
    if (core == acc.cores()) {
      throw InputError(std::string(network) + ": " + agName(out.ags[i], layers) + " needs " +
                       std::to_string(need) + " crossbars; no core of " + acc.name +
                       " has them free (first fit, " + withThousands(static_cast<std::int64_t>(i)) + " of " +
                       withThousands(static_cast<std::int64_t>(out.ags.size())) + " AGs placed)");
    }
    assign(out, static_cast<int>(i), core);
  }
  return out;
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
