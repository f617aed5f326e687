// SPDX-License-Identifier: Apache-2.0
// The conv and FC layers of a network (engine/kernel/network.h) as the conv mapper's layers. Grouped and
// depthwise convolutions are outside PIM Optimizer's model (pimopt 13.1): they come back refused, by name.
#pragma once
#include <string>
#include <variant>
#include <vector>

#include "engine/convmap/conv_layer.h"
#include "engine/kernel/network.h"

namespace pim::convmap {

struct NetworkLayer {
  std::string name;
  std::variant<ConvLayer, std::string> layer;  // the layer, or why it cannot be mapped
};

/// Every CONV and FC node in node order, each tensor's element of `elementBytes` (the hierarchy's).
std::vector<NetworkLayer> networkLayers(const Network& net, std::int64_t elementBytes = 1);

/// A shipped network by name, or a node-list file by path (anything with a '/' or ending in .json).
Network networkOption(const std::string& text);

}  // namespace pim::convmap
