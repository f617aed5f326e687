// SPDX-License-Identifier: Apache-2.0
#include "engine/mapping/bank_layout.h"

#include <algorithm>

#include "engine/common/error.h"

namespace pim {

BankLayout placeOnBanks(const Kernel& k, const TileMapping& m, const Backend& b, MappingDetail detail) {
  const int pchPerGroup = b.group.pseudoChannelsPerGroup;
  const int banksPerChannel = b.dram.banksPerChannel();
  const int banksPerCore = b.core.banksPerCore;
  if (m.groupsUsed > b.totalGroups() || m.coresPerGroup > b.coresPerGroup()) {
    throw InputError("draft " + std::to_string(m.draft.id) + ": needs " + std::to_string(m.groupsUsed) +
                     " groups x " + std::to_string(m.coresPerGroup) + " cores, backend '" + b.name +
                     "' has " + std::to_string(b.totalGroups()) + " x " + std::to_string(b.coresPerGroup()));
  }
  BankLayout L;
  L.channels = b.totalGroups() * pchPerGroup;
  L.banksPerChannel = banksPerChannel;
  L.banks.resize(static_cast<std::size_t>(L.channels) * banksPerChannel);
  for (int ch = 0; ch < L.channels; ++ch) {
    for (int bk = 0; bk < banksPerChannel; ++bk) {
      auto& p = L.banks[static_cast<std::size_t>(ch) * banksPerChannel + bk];
      p.channel = ch;
      p.bank = bk;
    }
  }
  const std::int64_t rowBytes = std::max<std::int64_t>(1, b.dram.rowBytes());
  for (int g = 0; g < m.groupsUsed; ++g) {
    // Group commands address every core of the group at the same offsets: pad each tensor to the group's max.
    std::vector<std::int64_t> groupMax(k.tensors.size(), 0);
    for (int c = 0; c < m.coresPerGroup; ++c) {
      for (std::size_t t = 0; t < k.tensors.size(); ++t) {
        groupMax[t] = std::max(groupMax[t], m.at(g, c).tensors[t].elements);
      }
    }
    for (int c = 0; c < m.coresPerGroup; ++c) {
      const CoreTile& tile = m.at(g, c);
      for (int j = 0; j < banksPerCore; ++j) {
        const int bankInGroup = c * banksPerCore + j;
        const int ch = g * pchPerGroup + bankInGroup / banksPerChannel;
        BankPlacement& p =
            L.banks[static_cast<std::size_t>(ch) * banksPerChannel + bankInGroup % banksPerChannel];
        p.group = g;
        p.core = c;
        std::int64_t padded = 0;
        for (std::size_t t = 0; t < k.tensors.size(); ++t) {
          const std::int64_t es = static_cast<std::int64_t>(dtypeBytes(k.tensors[t].dtype));
          // Split a core's bytes evenly over its banks; the first banks take the remainder.
          auto share = [&](std::int64_t elems) {
            const std::int64_t bytes = elems * es;
            return bytes / banksPerCore + (j < bytes % banksPerCore ? 1 : 0);
          };
          const std::int64_t bytes = share(tile.tensors[t].elements);
          padded += share(groupMax[t]) - bytes;
          if (bytes > 0 && detail == MappingDetail::Full)
            p.slices.push_back({static_cast<int>(t), tile.tensors[t].axes, bytes});
          p.bytes += bytes;
        }
        p.paddingBytes = padded;
        p.rowsTouched = (p.bytes + p.paddingBytes + rowBytes - 1) / rowBytes;
        L.residentBytes += p.bytes;
        L.paddingBytes += p.paddingBytes;
        if (p.bytes > 0) ++L.banksUsed;
      }
    }
  }
  return L;
}

}  // namespace pim
