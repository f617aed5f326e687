// SPDX-License-Identifier: Apache-2.0
// The crossbar compiler's plan: partition, replication and layout of a network on an accelerator
// (../shared/specs/crossbar.md, "Layer partitioning", "Weight replication", "AG to core mapping"). The HT
// scheduler (ht_schedule.h), the LL scheduler and a GA read and build these types.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/crossbar/accelerator.h"
#include "engine/crossbar/layout.h"
#include "engine/crossbar/partition.h"
#include "engine/kernel/network.h"

namespace pim::crossbar {

struct CompileOptions {
  PipelineMode mode = PipelineMode::Ht;
  std::string replication = "balance";  // a registered method: balance, w0h0, uniform, ...
  UnfoldingChoice unfolding;            // default im2col everywhere (PIMCOMP-NN)
};

/// Everything a scheduler needs. Invariants (checked by compilePlan / assemblePlan): replicas[i] <=
/// layers[i].windows * layers[i].agp, every AG on a core, no core above crossbarsPerCore.
struct CompilePlan {
  Network network;  // a copy: the plan outlives the caller's network
  std::string networkName;
  Accelerator accelerator;
  CompileOptions options;
  std::vector<LayerPartition> layers;  // CONV/FC in node order
  std::vector<std::int64_t> replicas;  // per layer, after the window cap, times agp
  Layout layout;
  std::vector<int> layerOfNode;  // node index -> index in layers, -1 for other nodes
  /// Replicas the rule gave that first fit could not place and compilePlan gave back (0 in every case
  /// PIMCOMP-NN compiles: it drops such AGs instead).
  std::int64_t replicasGivenBack = 0;
  /// How the AGs were packed: "first fit" (PIMCOMP-NN's, in network order) or, when that cannot place one
  /// replica per layer, "first fit, largest AGs first" (placeLargestFirst); "genetic search" for an assembled
  /// plan.
  std::string placement = kFirstFit;

  std::int64_t crossbarsUsed() const;
  /// The layer of a CONV/FC node, or nullptr.
  const LayerPartition* layerOf(int node) const;
};

/// Partition, replicate (options.replication) and place first fit, giving back replicas first fit cannot
/// place (replicasGivenBack), packing largest AGs first where first fit cannot place one replica per layer.
/// Throws InputError for a network that does not fit at one replica, an unknown method or unfolding, a failed
/// method or an AG that fits nowhere even at one replica per layer, packed largest first.
CompilePlan compilePlan(const Network& net, const Accelerator& acc, const CompileOptions& options);

/// A plan from replicas and cores chosen elsewhere (a GA): `cores` per AG of arrayGroups(layers, replicas).
CompilePlan assemblePlan(const Network& net, const Accelerator& acc, const CompileOptions& options,
                         std::vector<std::int64_t> replicas, const std::vector<std::int64_t>& cores);

/// The network's short name for messages: its origin's file stem ("datasets/networks/vgg16.json" -> "vgg16").
std::string networkLabel(const Network& net);

}  // namespace pim::crossbar
