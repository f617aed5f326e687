// SPDX-License-Identifier: Apache-2.0
// The batch pipeline's first-batch latency (tcad VII-A, the layer grouping strategy; not in PIMCOMP-NN). In
// the steady state every layer works on a different sample, so a sample passes one pipeline stage per period:
// with one layer per stage the first batch takes (layers x period). tcad groups layers so that a stage holds
// (I) data-dependent layers whose chained time still fits in one period and (II) independent layers that run
// concurrently; the first batch then takes (groups x period).
#pragma once
#include <cstdint>
#include <vector>

#include "engine/kernel/network.h"

namespace pim::crossbar {

struct LayerGrouping {
  std::vector<std::vector<int>> groups;  // node indices, in topological order of their first member
  std::int64_t layers = 0;               // the nodes that are pipeline stages without grouping
};

/// Whether a node is a stage of the batch pipeline: every node but the input and the ones whose data passes
/// through unchanged (flatten, reshape, dropout, ...: passesThroughInLl).
bool isPipelineLayer(NetworkOp op);

/// Groups the pipeline layers of `net` greedily in node (topological) order: a layer joins the open group
/// when its finish within the group (its own time after the latest of its providers in the group) stays
/// within `periodNs`; otherwise it opens the next group. `timeNs[node]` is each layer's time within a period
/// (the time it adds to its busiest core); a layer longer than the period still gets a group of its own.
LayerGrouping groupLayers(const Network& net, const std::vector<double>& timeNs, double periodNs);

}  // namespace pim::crossbar
