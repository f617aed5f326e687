// SPDX-License-Identifier: Apache-2.0
// `backends`, `params` and `kernels`: what PIMScope ships.
#include <cstdio>
#include <iostream>

#include "app/cli/cli_common.h"
#include "engine/kernel/library.h"
#include "engine/kernel/residency.h"
#include "engine/target/registry.h"

namespace pim::cli {

void registerCatalogCommands(CLI::App& app) {
  auto json = std::make_shared<bool>(false);

  auto* backends = app.add_subcommand("backends", "list the shipped backends");
  backends->add_flag("--json", *json, "machine-readable output");
  backends->callback([json] {
    nlohmann::json out = nlohmann::json::array();
    TextTable t({"backend", "groups", "cores/group", "banks/core", "SIMD", "units", "description"});
    for (const Backend& b : builtinBackends().all()) {
      std::string units;
      for (const auto& u : b.group.units) units += (units.empty() ? "" : ",") + u;
      t.add({b.name, std::to_string(b.totalGroups()), std::to_string(b.coresPerGroup()),
             std::to_string(b.core.banksPerCore), std::to_string(b.core.simdLanes),
             units.empty() ? "-" : units, b.description});
      out.push_back({{"name", b.name},
                     {"family", b.family},
                     {"description", b.description},
                     {"groups", b.totalGroups()},
                     {"cores_per_group", b.coresPerGroup()},
                     {"banks_per_core", b.core.banksPerCore},
                     {"simd_lanes", b.core.simdLanes},
                     {"ops", b.core.ops},
                     {"group_units", b.group.units},
                     {"file", b.file},
                     {"hash", b.hash()}});
    }
    if (*json) {
      printJson(out);
    } else {
      std::cout << t.str();
    }
  });

  auto params = std::make_shared<std::string>();
  auto* parameters =
      app.add_subcommand("params", "list the declared parameters of a backend (what --set changes)");
  parameters->add_option("--backend,-b", *params, "backend name (see `pimscope-cli backends`)")->required();
  parameters->add_flag("--json", *json, "machine-readable output");
  parameters->callback([params, json] {
    const Backend& b = builtinBackends().get(*params);
    nlohmann::json out = nlohmann::json::array();
    TextTable t({"parameter", "value", "unit", "valid", "description"});
    for (const Parameter& p : b.parameters) {
      char range[96];
      std::snprintf(range, sizeof range, "%.12g..%.12g%s", p.min, p.max, p.integer ? ", integer" : "");
      char value[32];
      std::snprintf(value, sizeof value, "%.12g", p.value);
      t.add({p.key, value, p.unit, range, p.description});
      out.push_back({{"name", p.key},
                     {"value", p.value},
                     {"unit", p.unit},
                     {"min", p.min},
                     {"max", p.max},
                     {"integer", p.integer},
                     {"description", p.description},
                     {"source", p.source}});
    }
    if (*json) {
      printJson(out);
    } else {
      std::cout << t.str();
    }
  });

  auto* kernels = app.add_subcommand("kernels", "list the library kernels");
  kernels->add_flag("--json", *json, "machine-readable output");
  kernels->callback([json] {
    nlohmann::json out = nlohmann::json::array();
    TextTable t({"kernel", "dimensions", "resident", "summary"});
    for (const auto& e : KernelLibrary::builtin().entries()) {
      const Kernel k = KernelLibrary::builtin().get(e.name);
      std::string dims;
      for (std::size_t i = 0; i < k.dims.size(); ++i) {
        dims += (i ? "," : "") + k.dims[i];
        if (k.dimDefaults[i]) dims += "=" + std::to_string(*k.dimDefaults[i]);
      }
      const std::string resident = residentNames(k, Residency::declared(k));
      t.add({e.name, dims, resident.empty() ? "-" : resident, e.summary});
      out.push_back({{"name", e.name},
                     {"dims", k.dims},
                     {"resident", resident},
                     {"summary", e.summary},
                     {"ops", k.requiredOps()}});
    }
    if (*json) {
      printJson(out);
    } else {
      std::cout << t.str();
    }
  });
}

}  // namespace pim::cli
