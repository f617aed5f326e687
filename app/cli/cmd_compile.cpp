// SPDX-License-Identifier: Apache-2.0
// `networks` and `compile`: whole networks on crossbar accelerators (issue 19, docs/crossbar.md).
#include <iostream>

#include "app/cli/cli_common.h"
#include "engine/kernel/network.h"

namespace pim::cli {
namespace {

struct NetworkSummary {
  std::int64_t convs = 0, fcs = 0, weights = 0, macs = 0;
};

NetworkSummary summarise(const Network& net) {
  NetworkSummary s;
  for (const NetworkNode& n : net.nodes) {
    if (n.op == NetworkOp::Conv) ++s.convs;
    if (n.op == NetworkOp::Fc) ++s.fcs;
  }
  for (const ConvLayerShape& l : convLayers(net)) {
    s.weights += l.R * l.S * (l.C / l.group) * l.K;
    s.macs += convLayerMacs(l);
  }
  return s;
}

std::string dims(const std::vector<std::int64_t>& d) {
  std::string out;
  for (auto v : d) out += (out.empty() ? "" : "x") + std::to_string(v);
  return out;
}

void registerNetworks(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("networks", "list the shipped networks (compile --network, map --network)");
  cmd->add_flag("--json", *json, "machine-readable output");
  cmd->callback([json] {
    nlohmann::json out = nlohmann::json::array();
    TextTable t({"network", "nodes", "CONV", "FC", "weights", "MACs", "input (NCHW)"});
    for (const std::string& name : builtinNetworkNames()) {
      const std::string path = builtinNetworkPath(name);
      const Network net = loadNetworkFile(path);
      const NetworkSummary s = summarise(net);
      const std::string input = net.nodes.empty() ? "" : dims(net.nodes.front().output_dim);
      t.add({name, std::to_string(net.nodes.size()), std::to_string(s.convs), std::to_string(s.fcs),
             grouped(static_cast<std::uint64_t>(s.weights)), grouped(static_cast<std::uint64_t>(s.macs)),
             input});
      out.push_back(
          {{"name", name},
           {"nodes", net.nodes.size()},
           {"conv", s.convs},
           {"fc", s.fcs},
           {"weights", s.weights},
           {"macs", s.macs},
           {"input_dim", net.nodes.empty() ? std::vector<std::int64_t>{} : net.nodes.front().output_dim},
           {"file", path}});
    }
    if (*json) {
      printJson(out);
    } else {
      std::cout << t.str();
    }
  });
}

}  // namespace

void registerCompileCommands(CLI::App& app) { registerNetworks(app); }

}  // namespace pim::cli
