// SPDX-License-Identifier: Apache-2.0
#include "engine/target/crossbar/core_statistics.h"

namespace pim {

const std::vector<StatDecl>& crossbarCoreStatistics() {
  static const std::vector<StatDecl> s = {
      {"crossbar_use", "crossbar use", "%", "crossbars the core's array groups hold, of the core's crossbars",
       false},
      {"mvm_busy", "MVM busy", "%", "the core's MVM time (PIMCOMP-NN's accounting) over the run", false},
      {"communication_bytes", "communication", "bytes", "bytes the core sent or received over the bus"},
      {"layers", "layers", "count", "layers with an array group on the core"},
      {"local_memory_peak", "local-memory peak", "elements",
       "most elements the core's local memory held at once (LL schedules)"},
      {"spill_bytes", "spill traffic", "bytes",
       "bytes the core stored to and loaded from global memory for pixels its local memory had no room for "
       "(LL, intended timing)"},
  };
  return s;
}

double coreStatistic(const NetworkCompileResult& r, std::size_t c, CoreStat s) {
  const xbar::CoreProfile* p = c < r.profile.cores.size() ? &r.profile.cores[c] : nullptr;
  auto at = [c](const std::vector<std::int64_t>& v) {
    return c < v.size() ? static_cast<double>(v[c]) : 0.0;
  };
  switch (s) {
    case CoreStat::CrossbarUse:
      return r.accelerator.crossbarsPerCore > 0
                 ? 100.0 * at(r.coreCrossbars) / static_cast<double>(r.accelerator.crossbarsPerCore)
                 : 0;
    case CoreStat::MvmBusy:
      return p && r.profile.totalNs > 0
                 ? 100.0 * static_cast<double>(p->mvmNs) / static_cast<double>(r.profile.totalNs)
                 : 0;
    case CoreStat::CommunicationBytes:
      return p ? static_cast<double>(p->commBytes) : 0;
    case CoreStat::Layers:
      return c < r.coreLayers.size() ? static_cast<double>(r.coreLayers[c].size()) : 0;
    case CoreStat::LocalMemoryPeak:
      return at(r.coreLocalMemoryPeak);
    case CoreStat::SpillBytes:
      return at(r.coreSpillBytes);
  }
  return 0;
}

std::string coreLayersText(const NetworkCompileResult& r, std::size_t c, std::size_t listed,
                           const std::string& separator) {
  if (c >= r.coreLayers.size() || r.coreLayers[c].empty()) return "no array group";
  std::string text;
  const auto& layers = r.coreLayers[c];
  for (std::size_t i = 0; i < layers.size() && i < listed; ++i)
    text += (i ? separator : "") + r.layers[static_cast<std::size_t>(layers[i].layer)].name + ": " +
            std::to_string(layers[i].ags) + (layers[i].ags == 1 ? " AG" : " AGs");
  if (layers.size() > listed)
    text += separator + "and " + std::to_string(layers.size() - listed) + " more layers";
  return text;
}

UnitStatistics coreStatistics(const NetworkCompileResult& r) {
  UnitStatistics u;
  const auto cores = static_cast<std::size_t>(r.accelerator.cores());
  u.statCount = kCoreStats;
  u.values.reserve(cores * kCoreStats);
  for (std::size_t c = 0; c < cores; ++c) {
    for (std::size_t s = 0; s < kCoreStats; ++s)
      u.values.push_back(coreStatistic(r, c, static_cast<CoreStat>(s)));
    u.notes.push_back("core " + std::to_string(c) + " of the accelerator; " + coreLayersText(r, c));
  }
  return u;
}

}  // namespace pim
