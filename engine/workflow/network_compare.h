// SPDX-License-Identifier: Apache-2.0
// Compare backends on a whole network (issue 19, "Compare backends accepts a network"): crossbar backends
// compile it (one inference, batch 1: the LL latency by default); other backends run it layer by layer, batch
// 1, no inter-layer pipelining, each layer as the kernel that is meaningful there (a CONV layer as conv2d
// where the family maps conv loop nests, an FC layer as GEMV), and a layer no kernel fits is named with the
// reason. The CLI's `compare --network` and its JSON sit on this call.
#pragma once
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/crossbar/compile.h"
#include "engine/hw/backend.h"
#include "engine/kernel/network.h"
#include "engine/workflow/compare.h"

namespace pim {

struct NetworkCompareOptions {
  std::vector<std::string> backends;  // 1 to 6 registry names, distinct
  crossbar::CompileOptions crossbar{
      .mode = crossbar::PipelineMode::Ll, .replication = "balance", .unfolding = {}};
  /// Per layer on kernel backends (its cancel is `cancel`); its eval.sim.crossbarTiming times the compiles.
  BestDraftOptions search;
  std::vector<Backend> edited;  // what-if edits standing in for the registry's backend of the same name
  const std::atomic<bool>* cancel = nullptr;
  /// "pimopt-hbm-pim: layer 3 of 21 (resnetv15_stage1_conv0_fwd)"; optional.
  std::function<void(const std::string&)> report;
};

struct NetworkLayerTime {
  int node = 0;
  std::string name, op;      // op: "CONV" or "FC"
  std::string kernel, dims;  // how it ran ("gemv", "b=1,out=1000,in=512"); empty on crossbar backends
  std::optional<double> ns;  // nullopt: not run here (`reason`)
  std::optional<double> energyPj;
  std::string reason;
};

struct NetworkBackendTime {
  std::string backend, family;
  std::string how;  // "compiled (LL, balance, pimcomp-nn timing)" or "layer by layer, batch 1"
  /// The whole network's time when every CONV/FC layer ran here (a compiled network's latency or period, or
  /// the layers' sum); nullopt otherwise, with `layersRun` of `layers.size()` and `reason`.
  std::optional<double> totalNs;
  double layersNs = 0;  // the sum over the layers that ran
  int layersRun = 0;
  std::optional<double> energyNj;
  std::vector<NetworkLayerTime> layers;
  std::string reason;
};

struct NetworkComparison {
  std::string network;
  std::vector<NetworkBackendTime> results;  // in the order asked
  std::string verdict;                      // the fastest backend that ran every layer, and by how much
};

/// Throws InputError for no backend, more than 6, a duplicate or unknown one; everything a backend cannot run
/// is a result with the reason.
NetworkComparison compareNetwork(const Network& net, const NetworkCompareOptions& o);

}  // namespace pim
