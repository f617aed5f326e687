// SPDX-License-Identifier: Apache-2.0
#include "engine/mapping/bank_layout.h"

#include <algorithm>

#include "engine/common/error.h"

namespace pim {
namespace {

struct BankShare {
  int group, core, pseudoChannel, bank;  // pseudo-channel of the system; bank within it
  std::int64_t bytes = 0;                // tensor bytes placed in the bank
  std::int64_t paddingBytes = 0;         // added so every core of its group has the same address offsets
  const std::vector<std::int64_t>* tensorBytes;  // per tensor, in this bank
};

// Bank placement needs a DRAM organisation (banks of rows); families without one (UPMEM's DPUs own their
// MRAM) declare none.
void requireDramBanks(const Backend& b) {
  if (b.dram.banksPerPseudoChannel() <= 0 || b.dram.rows <= 0)
    throw InputError(b.name + " (family " + b.family + ") declares no DRAM banks to place tiles on");
}

void requireFits(const DraftFootprints& fp, const Backend& b) {
  requireDramBanks(b);
  if (fp.groupsUsed > b.totalGroups() || fp.coresPerGroup > b.coresPerGroup()) {
    throw InputError("draft " + std::to_string(fp.draft.id) + ": needs " + std::to_string(fp.groupsUsed) +
                     " groups x " + std::to_string(fp.coresPerGroup) + " cores, backend '" + b.name +
                     "' has " + std::to_string(b.totalGroups()) + " x " + std::to_string(b.coresPerGroup()));
  }
}

// Calls fn(share) for every bank of every used group: a core's bytes of each tensor split evenly over its
// banks (the first banks take the remainder), each tensor padded to the group's largest tile so that group
// commands address every core at the same offsets. Throws InputError when the draft does not fit.
template <typename F>
void forEachBankShare(const Kernel& k, const DraftFootprints& fp, const Backend& b, F&& fn) {
  const int pchPerGroup = b.group.pseudoChannelsPerGroup;
  const int banksPerPseudoChannel = b.dram.banksPerPseudoChannel();
  const int banksPerCore = b.core.banksPerCore;
  requireFits(fp, b);
  const std::size_t T = k.tensors.size();
  std::vector<std::int64_t> groupMax(T), tensorBytes(T);
  for (int g = 0; g < fp.groupsUsed; ++g) {
    std::fill(groupMax.begin(), groupMax.end(), 0);
    for (int c = 0; c < fp.coresPerGroup; ++c) {
      for (std::size_t t = 0; t < T; ++t)
        groupMax[t] = std::max(groupMax[t], fp.elementsOf(g, c, static_cast<int>(t)));
    }
    for (int c = 0; c < fp.coresPerGroup; ++c) {
      for (int j = 0; j < banksPerCore; ++j) {
        const int bankInGroup = c * banksPerCore + j;
        BankShare s{g,
                    c,
                    g * pchPerGroup + bankInGroup / banksPerPseudoChannel,
                    bankInGroup % banksPerPseudoChannel,
                    0,
                    0,
                    &tensorBytes};
        for (std::size_t t = 0; t < T; ++t) {
          const std::int64_t es = static_cast<std::int64_t>(dtypeBytes(k.tensors[t].dtype));
          auto share = [&](std::int64_t elems) {
            const std::int64_t bytes = elems * es;
            return bytes / banksPerCore + (j < bytes % banksPerCore ? 1 : 0);
          };
          tensorBytes[t] = share(fp.elementsOf(g, c, static_cast<int>(t)));
          s.paddingBytes += share(groupMax[t]) - tensorBytes[t];
          s.bytes += tensorBytes[t];
        }
        fn(s);
      }
    }
  }
}

}  // namespace

BankLayout placeOnBanks(const Kernel& k, const TileMapping& m, const Backend& b) {
  requireDramBanks(b);
  const DraftFootprints fp = footprintsOf(k, m);
  const int banksPerPseudoChannel = b.dram.banksPerPseudoChannel();
  BankLayout L;
  L.pseudoChannels = b.totalGroups() * b.group.pseudoChannelsPerGroup;
  L.banksPerPseudoChannel = banksPerPseudoChannel;
  L.banks.resize(static_cast<std::size_t>(L.pseudoChannels) * banksPerPseudoChannel);
  for (int ch = 0; ch < L.pseudoChannels; ++ch) {
    for (int bk = 0; bk < banksPerPseudoChannel; ++bk) {
      auto& p = L.banks[static_cast<std::size_t>(ch) * banksPerPseudoChannel + bk];
      p.pseudoChannel = ch;
      p.bank = bk;
    }
  }
  const std::int64_t rowBytes = std::max<std::int64_t>(1, b.dram.rowBytes());
  forEachBankShare(k, fp, b, [&](const BankShare& s) {
    BankPlacement& p = L.banks[static_cast<std::size_t>(s.pseudoChannel) * banksPerPseudoChannel + s.bank];
    p.group = s.group;
    p.core = s.core;
    const CoreTile& tile = m.at(s.group, s.core);
    for (std::size_t t = 0; t < k.tensors.size(); ++t) {
      const std::int64_t bytes = (*s.tensorBytes)[t];
      if (bytes > 0) p.slices.push_back({static_cast<int>(t), tile.tensors[t].axes, bytes});
    }
    p.bytes = s.bytes;
    p.paddingBytes = s.paddingBytes;
    p.rowsTouched = (p.bytes + p.paddingBytes + rowBytes - 1) / rowBytes;
    L.placedBytes += p.bytes;
    L.paddingBytes += p.paddingBytes;
    if (p.bytes > 0) ++L.banksUsed;
  });
  return L;
}

// The sums of forEachBankShare's shares, per core rather than per bank (exploration asks for them once per
// draft): a core's banks share each tensor's bytes exactly, so they hold its bytes and its padding up to the
// group's largest; bank j holds something when some tensor has at least j + 1 bytes on the core.
PlacementTotals placementTotals(const Kernel& k, const DraftFootprints& fp, const Backend& b) {
  requireFits(fp, b);
  const std::size_t T = k.tensors.size();
  const std::int64_t banksPerCore = b.core.banksPerCore;
  std::vector<std::int64_t> elementBytes(T), groupMax(T);
  for (std::size_t t = 0; t < T; ++t) elementBytes[t] = dtypeBytes(k.tensors[t].dtype);
  PlacementTotals totals;
  for (int g = 0; g < fp.groupsUsed; ++g) {
    std::fill(groupMax.begin(), groupMax.end(), 0);
    for (int c = 0; c < fp.coresPerGroup; ++c)
      for (std::size_t t = 0; t < T; ++t)
        groupMax[t] = std::max(groupMax[t], fp.elementsOf(g, c, static_cast<int>(t)));
    PlacementTotals core;  // the last core's share, again for each core with its tiles
    for (int c = 0; c < fp.coresPerGroup; ++c) {
      const std::int64_t* tiles = fp.elements.data() + fp.coreIndex(g, c) * T;
      if (c == 0 || !std::equal(tiles, tiles + T, tiles - T)) {
        core = {};
        std::int64_t most = 0;
        for (std::size_t t = 0; t < T; ++t) {
          const std::int64_t bytes = tiles[t] * elementBytes[t];
          core.placedBytes += bytes;
          core.paddingBytes += groupMax[t] * elementBytes[t] - bytes;
          most = std::max(most, bytes);
        }
        core.banksUsed = static_cast<int>(std::min(banksPerCore, most));
      }
      totals.placedBytes += core.placedBytes;
      totals.paddingBytes += core.paddingBytes;
      totals.banksUsed += core.banksUsed;
    }
  }
  return totals;
}

}  // namespace pim
