// SPDX-License-Identifier: Apache-2.0
// What UPMEM lowering reads of a mapped draft's cores (its DPUs), in flat arrays: whether each is idle, its
// elements of every tensor, its count of every loop and the index box of every reference. A TileMapping of a
// full-system draft holds 2,048 CoreTiles of about a dozen vectors each; allocating and releasing them took
// half of an evaluation (perf, VA on 2,048 DPUs).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "engine/mapping/tile_mapping.h"

namespace pim {

class UpmemCores {
 public:
  /// The cores of draft `d` under exact indexing (mapDraft's numbers, read one core at a time).
  UpmemCores(const DraftSpace& space, const Draft& d);

  std::size_t size() const { return m_idle.size(); }
  int groupsUsed() const { return m_groupsUsed; }
  bool idle(std::size_t c) const { return m_idle[c] != 0; }
  /// Core c's DPU in the plan's numbering: its group is its rank.
  std::size_t dpu(std::size_t c, int dpusPerRank) const {
    return static_cast<std::size_t>(m_group[c]) * static_cast<std::size_t>(dpusPerRank) +
           static_cast<std::size_t>(m_core[c]);
  }
  std::int64_t elements(std::size_t c, std::size_t tensor) const {
    return m_elements[c * m_tensors + tensor];
  }
  /// The product of the counts of `loops` on core c (its outputs or reduction steps of a statement).
  std::int64_t loopProduct(std::size_t c, const std::vector<int>& loops) const;
  std::int64_t loopCount(std::size_t c, int loop) const {
    return m_loopCounts[c * m_loops + static_cast<std::size_t>(loop)];
  }
  /// Reference `ref`'s index box on core c, one set per axis (Kernel::references() order); kept for kernels
  /// of several statements only (a single statement never reads another's output).
  std::span<const IndexSet> reference(std::size_t c, std::size_t ref) const {
    if (m_refAxesPerCore == 0)
      throw std::logic_error("UpmemCores: a one-statement kernel keeps no references");
    return {m_refAxes.data() + c * m_refAxesPerCore + m_refBase[ref], m_refBase[ref + 1] - m_refBase[ref]};
  }
  /// Elements of reference `ref` on core c; 0 on an idle core.
  std::int64_t referenceElements(std::size_t c, std::size_t ref) const;

 private:
  int m_groupsUsed = 1;
  std::size_t m_tensors = 0, m_loops = 0, m_refAxesPerCore = 0;
  std::vector<std::size_t> m_refBase;  // per reference: its first axis among a core's; one past the end last
  std::vector<std::uint8_t> m_idle;
  std::vector<int> m_group, m_core;
  std::vector<std::int64_t> m_elements, m_loopCounts;
  std::vector<IndexSet> m_refAxes;
};

}  // namespace pim
