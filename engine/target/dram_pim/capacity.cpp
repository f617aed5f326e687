// SPDX-License-Identifier: Apache-2.0
#include "engine/target/dram_pim/capacity.h"

#include <cstdio>

namespace pim {
namespace {

// "1.5 GiB (1610612736 bytes)": sizes up to 2^40 elements per dimension overflow an int64 once multiplied, so
// they are summed as doubles, and shown in scientific notation past what an int64 holds.
std::string bytesText(double bytes) {
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  double v = bytes;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  char buf[96];
  if (bytes >= 9.2e18) {  // beyond int64: the exact count would be a rounded double anyway
    std::snprintf(buf, sizeof buf, "%.3g bytes", bytes);
  } else if (u == 0) {
    std::snprintf(buf, sizeof buf, "%.0f bytes", bytes);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s (%.0f bytes)", v, units[u], bytes);
  }
  return buf;
}

}  // namespace

std::optional<std::string> capacityReason(const Problem& p) {
  const Kernel& k = p.kernel();
  const Backend& b = p.backend();
  double need = 0;
  for (std::size_t t = 0; t < k.tensors.size(); ++t) {
    double elements = 1;
    for (std::int64_t e : tensorExtents(k, static_cast<int>(t), p.shape()))
      elements *= static_cast<double>(e);
    need += elements * static_cast<double>(dtypeBytes(k.tensors[t].dtype));
  }
  const double banks = static_cast<double>(b.totalGroups()) * b.coresPerGroup() * b.core.banksPerCore;
  const double regionRows = static_cast<double>(b.dram.rows / 2);
  const double capacity = banks * regionRows * static_cast<double>(b.dram.rowBytes());
  if (need <= capacity) return std::nullopt;
  return "its tensors hold " + bytesText(need) + ", more than the " + bytesText(capacity) +
         " the PIM regions of " + b.name + "'s banks hold (" + std::to_string(static_cast<long long>(banks)) +
         " banks x " + std::to_string(static_cast<long long>(regionRows)) + " rows x " +
         std::to_string(b.dram.rowBytes()) + " bytes)";
}

}  // namespace pim
