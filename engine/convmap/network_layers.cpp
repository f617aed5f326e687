// SPDX-License-Identifier: Apache-2.0
#include "engine/convmap/network_layers.h"

namespace pim::convmap {

std::vector<NetworkLayer> networkLayers(const Network& net, std::int64_t elementBytes) {
  std::vector<NetworkLayer> out;
  for (const auto& s : convLayers(net)) {
    if (s.group > 1) {
      out.push_back(
          {s.name, (s.group == s.C && s.group == s.K ? std::string("depthwise") : std::string("grouped")) +
                       " convolution (group " + std::to_string(s.group) +
                       ") is outside PIM Optimizer's model (pimopt 13.1: future work)"});
      continue;
    }
    ConvLayer l;
    l.name = s.name;
    l.bound = {s.R, s.S, s.P, s.Q, s.C, s.K, s.N};
    l.strideW = s.stride_w;
    l.strideH = s.stride_h;
    l.dilW = s.dil_w;
    l.dilH = s.dil_h;
    l.elementBytes.fill(elementBytes);
    validate(l, net.origin + ": node '" + s.name + "'");
    out.push_back({s.name, l});
  }
  return out;
}

Network networkOption(const std::string& text) {
  if (text.find('/') != std::string::npos || text.ends_with(".json")) return loadNetworkFile(text);
  return loadNetworkFile(builtinNetworkPath(text));
}

}  // namespace pim::convmap
