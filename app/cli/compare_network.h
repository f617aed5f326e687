// SPDX-License-Identifier: Apache-2.0
// `compare --network NAME` / `compare --model FILE`: a whole network on each backend (engine/workflow/
// network_compare.h), crossbar backends compiled, the others layer by layer.
#pragma once
#include <string>

#include "app/cli/what_if_options.h"

namespace pim::cli {

struct CompareNetworkCmd {
  std::string backends, network, model, timing = "pimcomp-nn";
  std::size_t maxSimulations = 400;
  WhatIfOptions whatIf;
  bool json = false;
};

void runCompareNetwork(const CompareNetworkCmd& o);

}  // namespace pim::cli
