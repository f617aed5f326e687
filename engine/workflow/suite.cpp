// SPDX-License-Identifier: Apache-2.0
#include "engine/workflow/suite.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/json_input.h"
#include "engine/kernel/library.h"

namespace pim {

Kernel Suite::kernel(const std::string& name) const {
  const Kernel k = KernelLibrary::builtin().get(name);
  const auto t = types.find(name);
  return t == types.end() ? k : retyped(k, t->second);
}

Backend Suite::backendFor(const Backend& b, const std::string& name) const {
  const auto it = parameters.find(name);
  if (it == parameters.end()) return b;
  Backend edited = b;
  std::vector<std::pair<std::string, double>> declared;
  for (const auto& [key, value] : it->second)
    if (b.param(key)) declared.emplace_back(key, value);
  if (!declared.empty()) edited.setParameters(declared);
  return edited;
}

namespace {

// "types": {"red": "i64"}: an element type per kernel of the suite.
void readTypes(const nlohmann::json& j, const std::string& path, Suite& s) {
  if (!j.is_object()) throw InputError(path + ": types: not an object of kernel names");
  for (const auto& [kernel, type] : j.items()) {
    const std::string where = path + ": types." + kernel;
    if (!type.is_string()) throw InputError(where + ": not an element type name");
    const auto t = parseDType(type.get<std::string>());
    if (!t) throw InputError(where + ": '" + type.get<std::string>() + "' is not an element type");
    s.types[kernel] = *t;
  }
}

// "parameters": {"gemv": {"pim.mulOperandBits": 4.03}}: backend parameters per kernel.
void readParameters(const nlohmann::json& j, const std::string& path, Suite& s) {
  if (!j.is_object()) throw InputError(path + ": parameters: not an object of kernel names");
  for (const auto& [kernel, params] : j.items()) {
    const std::string where = path + ": parameters." + kernel;
    if (!params.is_object()) throw InputError(where + ": not an object of parameter values");
    for (const auto& [key, value] : params.items()) {
      if (!value.is_number() || !std::isfinite(value.get<double>()))
        throw InputError(where + "." + key + ": not a finite number");
      s.parameters[kernel].emplace_back(key, value.get<double>());
    }
  }
}

}  // namespace

Suite loadSuite(const std::string& path) {
  const nlohmann::json j = readJsonFile(path, "suite file");
  if (!j.is_object()) throw InputError(path + ": expected a JSON object at top level, got " + j.type_name());
  Suite s;
  s.name = path;
  if (auto it = j.find("name"); it != j.end()) {
    if (!it->is_string()) throw InputError(path + ": name: not a string");
    s.name = it->get<std::string>();
  }
  if (!j.contains("kernels") || !j.at("kernels").is_object())
    throw InputError(path + ": kernels: missing or not an object");
  if (auto it = j.find("types"); it != j.end()) readTypes(*it, path, s);
  if (auto it = j.find("parameters"); it != j.end()) readParameters(*it, path, s);
  for (const auto& [kernel, shapes] : j.at("kernels").items()) {
    if (!shapes.is_array()) throw InputError(path + ": kernels." + kernel + ": not a list of shapes");
    std::vector<std::string> list;
    Kernel k;
    try {
      k = s.kernel(kernel);
    } catch (const InputError& e) {
      throw InputError(path + ": kernels." + kernel + ": " + e.what());
    }
    for (const auto& sh : shapes) {
      if (!sh.is_string()) throw InputError(path + ": kernels." + kernel + ": a shape is not a string");
      try {
        parseShape(k, sh.get<std::string>());
      } catch (const InputError& e) {
        throw InputError(path + ": kernels." + kernel + ": " + e.what());
      }
      list.push_back(sh.get<std::string>());
    }
    s.kernels.emplace_back(kernel, std::move(list));
  }
  // Named, not structured bindings: clang (the fuzz build) does not capture those in lambdas.
  auto listed = [&](const std::string& kernel) {
    return std::any_of(s.kernels.begin(), s.kernels.end(), [&](const auto& e) { return e.first == kernel; });
  };
  for (const auto& entry : s.types)
    if (!listed(entry.first))
      throw InputError(path + ": types." + entry.first + ": the suite has no such kernel");
  for (const auto& entry : s.parameters)
    if (!listed(entry.first))
      throw InputError(path + ": parameters." + entry.first + ": the suite has no such kernel");
  return s;
}

Suite loadSuites(const std::vector<std::string>& paths) {
  if (paths.empty()) throw InputError("no suite file given");
  Suite all;
  for (const std::string& path : paths) {
    const Suite s = loadSuite(path);
    all.name += (all.name.empty() ? "" : "+") + s.name;
    for (const auto& [kernel, t] : s.types) {
      const auto [it, added] = all.types.emplace(kernel, t);
      if (!added && it->second != t)
        throw InputError(path + ": types." + kernel + ": " + std::string(dtypeName(t)) +
                         ", another suite says " + std::string(dtypeName(it->second)));
    }
    for (const auto& [kernel, p] : s.parameters) all.parameters[kernel] = p;
    for (const auto& entry : s.kernels) {
      // Not a structured binding: clang before 16 cannot capture one in the lambda (the fuzz preset).
      const auto& kernel = entry.first;
      const auto& shapes = entry.second;
      auto it = std::find_if(all.kernels.begin(), all.kernels.end(),
                             [&](const auto& e) { return e.first == kernel; });
      if (it == all.kernels.end()) it = all.kernels.insert(all.kernels.end(), {kernel, {}});
      for (const std::string& shape : shapes)
        if (std::find(it->second.begin(), it->second.end(), shape) == it->second.end())
          it->second.push_back(shape);
    }
  }
  return all;
}

}  // namespace pim
