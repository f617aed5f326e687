// SPDX-License-Identifier: Apache-2.0
#include "app/cli/compare_network.h"

#include <cstdio>
#include <iostream>

#include "app/cli/cli_common.h"
#include "engine/common/error.h"
#include "engine/core/problem.h"
#include "engine/kernel/onnx_network.h"
#include "engine/target/registry.h"
#include "engine/workflow/network_compare.h"

namespace pim::cli {
namespace {

std::vector<std::string> names(const std::string& list) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    if (comma > at) out.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

std::string us(std::optional<double> ns) {
  if (!ns) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", *ns / 1000.0);
  return text;
}

nlohmann::json optional(std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json comparisonJson(const NetworkComparison& c) {
  nlohmann::json results = nlohmann::json::array();
  for (const NetworkBackendTime& r : c.results) {
    nlohmann::json layers = nlohmann::json::array();
    for (const NetworkLayerTime& l : r.layers)
      layers.push_back({{"node", l.node},
                        {"name", l.name},
                        {"op", l.op},
                        {"kernel", l.kernel},
                        {"dims", l.dims},
                        {"ns", optional(l.ns)},
                        {"energy_pj", optional(l.energyPj)},
                        {"reason", l.reason}});
    results.push_back({{"backend", r.backend},
                       {"family", r.family},
                       {"how", r.how},
                       {"total_ns", optional(r.totalNs)},
                       {"layers_ns", r.layersNs},
                       {"layers_run", r.layersRun},
                       {"energy_nj", optional(r.energyNj)},
                       {"reason", r.reason},
                       {"layers", layers}});
  }
  return {{"network", c.network}, {"results", results}, {"verdict", c.verdict}};
}

}  // namespace

void runCompareNetwork(const CompareNetworkCmd& o) {
  if (o.network.empty() == o.model.empty())
    throw InputError("compare: give one of --network NAME or --model FILE for a network, or --kernel");
  const Network net = *resolveNetwork(o.network, o.model);
  NetworkCompareOptions co;
  co.backends = names(o.backends);
  co.search.maxSimulations = o.maxSimulations;
  co.search.eval.keepUnitStats = false;
  co.search.eval.sim.crossbarTiming = timingOption(o.timing);
  if (!o.whatIf.empty()) {
    std::vector<Backend> shipped;
    for (const auto& name : co.backends) shipped.push_back(builtinBackends().get(name));
    co.edited = o.whatIf.applyToEach(shipped);
  }
  installInterruptHandler();
  co.cancel = &interrupted();
  if (stderrIsTerminal()) co.report = [](const std::string& line) { progressLine(line); };
  const NetworkComparison c = compareNetwork(net, co);
  progressLine("");
  if (o.json) {
    printJson(comparisonJson(c));
    return;
  }
  std::cout << c.network << ", batch 1, on " << c.results.size() << " backend(s)\n";
  TextTable t({"backend", "family", "how", "total (us)", "layers run", "energy (uJ)", "note"});
  for (const NetworkBackendTime& r : c.results) {
    char energy[32] = "-";
    if (r.energyNj) std::snprintf(energy, sizeof energy, "%.1f", *r.energyNj / 1e3);
    t.add({r.backend, r.family, r.how, us(r.totalNs),
           std::to_string(r.layersRun) + " of " + std::to_string(r.layers.size()), energy, r.reason});
  }
  std::cout << t.str() << c.verdict << "\n";
}

}  // namespace pim::cli
