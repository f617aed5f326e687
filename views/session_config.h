// SPDX-License-Identifier: Apache-2.0
// What the control panel asks for: one problem (backend, kernel, shape) and how to explore it.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/search/explorer.h"

namespace pimgui {

struct SessionConfig {
  std::string backend = "hbm-pim";
  /// A modified copy of a backend (the what-if panel's). When set it is explored instead of the registry's
  /// `backend`, which then only names where it came from.
  std::shared_ptr<const pim::Backend> backendOverride;
  std::string kernel = "gemv";
  std::string kernelFile;  // a DSL file; overrides `kernel` when set
  /// A shipped network explored whole (crossbar backends compile networks); overrides the kernel when set.
  std::string network;
  std::string shape = "b=1,out=4096,in=4096";
  std::string dtype;  // every tensor retyped to this element type; empty: as the kernel declares
  /// Resident tensors as a comma list ("" = all streamed); nullopt for what the kernel declares
  /// (views/residency_input.h reads it).
  std::optional<std::string> resident;
  std::string strategy = "predictor";  // a pim::StrategyRegistry name
  /// Per rule of pim::PruneRuleRegistry::builtin(), in its order: on/off.
  std::vector<bool> rules = std::vector<bool>(pim::PruneRuleRegistry::builtin().size(), true);
  bool stagedRearrangement = true;  // optimizer pass I
  bool groupCommands = true;        // optimizer pass II
  std::size_t maxSimulations = 0;   // 0: as many as the strategy asks
  /// Who labels drafts (the DCC-artifact mode, docs/dcc_artifact_mode.md).
  pim::LabelModel model = pim::LabelModel::PimScope;
  /// How crossbar backends are timed (SimSettings::crossbarTiming).
  pim::xbar::TimingModel crossbarTiming = pim::xbar::TimingModel::PimcompNn;

  pim::EvalOptions evalOptions() const {
    pim::EvalOptions o;
    o.optimizer.stagedRearrangement = stagedRearrangement;
    o.optimizer.groupCommands = groupCommands;
    o.model = model;
    o.sim.crossbarTiming = crossbarTiming;
    return o;
  }
};

/// Without a shipped model the predictor strategy cannot run; exhaustive simulation of this many drafts
/// stands in so the default session still shows real numbers quickly.
inline constexpr std::size_t kFallbackSimulations = 300;

}  // namespace pimgui
