// SPDX-License-Identifier: Apache-2.0
#include "engine/kernel/residency.h"

#include <algorithm>

#include "engine/common/error.h"

namespace pim {
namespace {

std::vector<std::string> splitNames(std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    std::string_view name = list.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) out.emplace_back(name);
    start = comma + 1;
  }
  return out;
}

std::string tensorList(const Kernel& k) {
  std::string out;
  for (const Tensor& t : k.tensors)
    if (t.role != TensorRole::Temp) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

}  // namespace

Residency Residency::declared(const Kernel& k) {
  Residency r;
  for (const Tensor& t : k.tensors) r.resident.push_back(t.resident && t.role != TensorRole::Temp);
  return r;
}

bool Residency::any() const { return std::find(resident.begin(), resident.end(), true) != resident.end(); }

Residency overrideResidency(const Kernel& k, Residency base, std::string_view residentList,
                            std::string_view streamedList) {
  const auto residentNames = splitNames(residentList), streamedNames = splitNames(streamedList);
  auto apply = [&](const std::vector<std::string>& names, bool resident, const char* option) {
    for (const std::string& name : names) {
      const int t = k.tensorIndex(name);
      if (t < 0)
        throw InputError(std::string(option) + ": kernel " + k.name + " has no tensor '" + name +
                         "' (tensors: " + tensorList(k) + ")");
      if (k.tensors[t].role == TensorRole::Temp)
        throw InputError(std::string(option) + ": '" + name + "' is a temporary of kernel " + k.name +
                         ": it lives in the banks during a call and is never moved from or to the host");
      if (resident && std::find(streamedNames.begin(), streamedNames.end(), name) != streamedNames.end())
        throw InputError("tensor '" + name + "' is named both resident and streamed");
      base.resident[static_cast<std::size_t>(t)] = resident;
    }
  };
  apply(residentNames, true, "--resident");
  apply(streamedNames, false, "--streamed");
  return base;
}

std::string residentNames(const Kernel& k, const Residency& r) {
  std::string out;
  for (std::size_t t = 0; t < k.tensors.size(); ++t)
    if (r.resident[t]) out += (out.empty() ? "" : ",") + k.tensors[t].name;
  return out;
}

std::string residencyKey(const Kernel& k, const Residency& r) {
  const std::string names = residentNames(k, r);
  return names.empty() ? "" : ";resident=" + names;
}

}  // namespace pim
