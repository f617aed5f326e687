// SPDX-License-Identifier: Apache-2.0
// Stages 2 and 3 of DCC section 4.2: data-tile construction by depth-first search with memoization over PIM
// resource allocations, and tiling drafts of n parts [groups, cores, representative mapping].
//
// The space is never materialised. Group and core allocations divide independently (avail_{i+1} =
// avail_i / allocated_i for groups and for cores), so the number of allocation chains is a product of two
// memoised counts, and every draft has a dense id: (group chain, core chain, representative tuple) in
// lexicographic order. Any id decodes to its draft in O(parts * log) and back.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/schedule/dimension_sets.h"

namespace pim {

/// What the generator may allocate: k groups, m cores per group, and the SIMD width d for rule 2.
struct Resources {
  int groups = 1;
  int coresPerGroup = 1;
  int simdLanes = 1;  // 1 = no SIMD
};

/// One part of a draft: [groups, cores per group, representative mapping] for one dimension set.
struct PartChoice {
  int groups = 1;
  int cores = 1;
  int rep = 0;  // index into DimensionSet::candidates
  bool operator==(const PartChoice&) const = default;
};

struct Draft {
  std::uint64_t id = 0;
  std::vector<PartChoice> parts;
  bool operator==(const Draft&) const = default;
};

class DraftSpace {
 public:
  /// Throws InputError when a dimension set has no single-variable mapping to partition by, or when the
  /// resources are outside 1..65536.
  DraftSpace(const Kernel& kernel, DimensionSets sets, Resources res);

  const Kernel& kernel() const { return m_kernel; }
  const DimensionSets& sets() const { return m_sets; }
  const Resources& resources() const { return m_res; }
  int partCount() const { return static_cast<int>(m_sets.sets.size()); }

  /// Number of drafts before pruning (saturates at UINT64_MAX).
  std::uint64_t size() const { return m_size; }
  std::uint64_t groupChains() const { return m_groupChains[0][m_res.groups]; }
  std::uint64_t coreChains() const { return m_coreChains[0][m_res.coresPerGroup]; }
  std::uint64_t repCombinations() const { return m_repCombos; }

  /// Draft with dense id; throws InputError naming the valid range if out of range.
  Draft draft(std::uint64_t id) const;
  /// Id of a draft given by its parts; throws InputError if the parts are not a valid allocation.
  std::uint64_t idOf(std::span<const PartChoice> parts) const;
  /// Id arithmetic for walks that build drafts part by part: the id is
  /// ((sum of group offsets) * coreChains() + sum of core offsets) * repCombinations() + sum of rep *
  /// repStride.
  std::uint64_t groupOffset(int part, int avail, int groups) const;
  std::uint64_t coreOffset(int part, int avail, int cores) const;
  std::uint64_t repStride(int part) const { return m_repStride[part]; }

  /// Streams every draft in id order; `fn` returns false to stop early.
  void forEach(const std::function<bool(const Draft&)>& fn) const;

  /// Per-core partition along the representative dimension: ceil(extent / (groups * cores)).
  std::int64_t perCoreSize(int part, const PartChoice& c) const;
  const RepresentativeMapping& representative(int part, const PartChoice& c) const {
    return m_sets.sets[part].candidates[c.rep];
  }
  /// "[[1, 4, C0^b], [2, 1, A1^i*2], [1, 1, B1^k]]"
  std::string label(const Draft& d) const;

 private:
  using Table = std::vector<std::vector<std::uint64_t>>;  // [part][avail] -> chain count
  static Table chainTable(int parts, int total);
  static std::uint64_t chainRank(const Table& t, std::span<const int> chain, int total);
  static std::uint64_t chainOffset(const Table& t, int part, int avail, int x);
  static std::vector<int> chainOf(const Table& t, std::uint64_t rank, int total);

  const Kernel& m_kernel;
  DimensionSets m_sets;
  Resources m_res;
  Table m_groupChains, m_coreChains;
  std::uint64_t m_repCombos = 1;
  std::vector<std::uint64_t> m_repStride;
  std::uint64_t m_size = 0;
};

}  // namespace pim
