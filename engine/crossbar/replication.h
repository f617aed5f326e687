// SPDX-License-Identifier: Apache-2.0
// Crossbar compiler, step 2: how many replicas of each layer's weights to store (../shared/specs/crossbar.md,
// "Weight replication"; pimcomp-nn WeightReplication.cpp). Methods are looked up by name, so a search (the
// GA) can register itself next to the three fixed rules.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/common/number_text.h"
#include "engine/crossbar/accelerator.h"
#include "engine/crossbar/partition.h"

namespace pim::crossbar {

/// What a replication method sees: the partitioned CONV/FC layers in node order and the accelerator.
struct ReplicationRequest {
  const std::vector<LayerPartition>& layers;
  const Accelerator& accelerator;
  std::string_view network;  // the network's name, for messages
};

/// Returns the replicas of every layer of `layers` (same order), before the window cap and the AGP split
/// (replicas as PIMCOMP-NN's replication_num). Throws InputError, naming the method and why, when it cannot
/// replicate (w0h0/uniform: no whole replication step fits).
using ReplicationMethod = std::function<std::vector<std::int64_t>(const ReplicationRequest&)>;

/// Adds (or replaces) a method. Built in: "balance", "w0h0", "uniform"; lookup ignores case ("W0H0").
void registerReplicationMethod(std::string name, ReplicationMethod method);
/// A copy of the method (registration may replace it meanwhile). Throws InputError listing the registered
/// names when there is no such method.
ReplicationMethod replicationMethod(std::string_view name);
std::vector<std::string> replicationMethodNames();

/// Crossbars every CONV/FC needs at one replica. Throws InputError "<net> needs 8,454 crossbars of 128 x 128;
/// <accelerator> has 2,016" when they exceed the accelerator, before any method runs.
std::int64_t checkFitsAtOneReplica(const ReplicationRequest& r);

/// Applies `name` after checkFitsAtOneReplica, then caps every layer at its windows and multiplies by its
/// AGP: the replicas the layout places.
std::vector<std::int64_t> replicate(std::string_view name, const ReplicationRequest& r);

/// The three rules, callable directly (tests, and a GA seeding its population).
std::vector<std::int64_t> replicateBalance(const ReplicationRequest& r);
std::vector<std::int64_t> replicateW0H0(const ReplicationRequest& r);
std::vector<std::int64_t> replicateUniform(const ReplicationRequest& r);

}  // namespace pim::crossbar
