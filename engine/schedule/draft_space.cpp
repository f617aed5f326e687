// SPDX-License-Identifier: Apache-2.0
#include "engine/schedule/draft_space.h"

#include <limits>

#include "engine/common/error.h"

namespace pim {
namespace {

constexpr int kMaxResource = 1 << 16;

std::uint64_t mulChecked(std::uint64_t a, std::uint64_t b) {
  std::uint64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p) || p > (std::uint64_t{1} << 62)) {
    throw InputError("search space: more than 2^62 drafts; reduce the groups or cores per group");
  }
  return p;
}

}  // namespace

DraftSpace::DraftSpace(const Kernel& kernel, DimensionSets sets, Resources res)
    : m_kernel(kernel), m_sets(std::move(sets)), m_res(res) {
  if (m_res.groups < 1 || m_res.groups > kMaxResource || m_res.coresPerGroup < 1 ||
      m_res.coresPerGroup > kMaxResource) {
    throw InputError("resources: groups and cores per group must be in 1..65536 (got " +
                     std::to_string(m_res.groups) + " x " + std::to_string(m_res.coresPerGroup) + ")");
  }
  for (const auto& ds : m_sets.sets) {
    if (ds.candidates.empty()) {
      throw InputError("kernel '" + kernel.name + "': dimension set " + dimensionSetLabel(kernel, ds) +
                       " has no single-variable mapping function to partition by");
    }
    m_repCombos = mulChecked(m_repCombos, ds.candidates.size());
  }
  m_repStride.assign(partCount(), 1);
  for (int i = partCount() - 2; i >= 0; --i) {
    m_repStride[i] = m_repStride[i + 1] * m_sets.sets[i + 1].candidates.size();
  }
  m_groupChains = chainTable(partCount(), m_res.groups);
  m_coreChains = chainTable(partCount(), m_res.coresPerGroup);
  m_size = mulChecked(mulChecked(groupChains(), coreChains()), m_repCombos);
}

DraftSpace::Table DraftSpace::chainTable(int parts, int total) {
  // t[i][X]: number of ways to allocate to parts i..n-1 with X available, each part taking x in [1, X] and
  // leaving X / x. Equal quotients are summed in blocks, O(sqrt X) per entry.
  Table t(parts + 1, std::vector<std::uint64_t>(total + 1, 0));
  for (int x = 0; x <= total; ++x) t[parts][x] = 1;
  for (int i = parts - 1; i >= 0; --i) {
    for (int avail = 1; avail <= total; ++avail) {
      std::uint64_t sum = 0;
      for (int x = 1; x <= avail;) {
        const int q = avail / x;
        const int last = avail / q;
        sum += static_cast<std::uint64_t>(last - x + 1) * t[i + 1][q];
        x = last + 1;
      }
      t[i][avail] = sum;
    }
  }
  return t;
}

std::uint64_t DraftSpace::chainOffset(const Table& t, int part, int avail, int x) {
  std::uint64_t offset = 0;
  for (int y = 1; y < x; ++y) offset += t[part + 1][avail / y];
  return offset;
}

std::uint64_t DraftSpace::chainRank(const Table& t, std::span<const int> chain, int total) {
  std::uint64_t rank = 0;
  int avail = total;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    rank += chainOffset(t, static_cast<int>(i), avail, chain[i]);
    avail /= chain[i];
  }
  return rank;
}

std::uint64_t DraftSpace::groupOffset(int part, int avail, int groups) const {
  return chainOffset(m_groupChains, part, avail, groups);
}

std::uint64_t DraftSpace::coreOffset(int part, int avail, int cores) const {
  return chainOffset(m_coreChains, part, avail, cores);
}

std::vector<int> DraftSpace::chainOf(const Table& t, std::uint64_t rank, int total) {
  const int parts = static_cast<int>(t.size()) - 1;
  std::vector<int> chain(parts);
  int avail = total;
  for (int i = 0; i < parts; ++i) {
    int x = 1;
    while (rank >= t[i + 1][avail / x]) {
      rank -= t[i + 1][avail / x];
      ++x;
    }
    chain[i] = x;
    avail /= x;
  }
  return chain;
}

Draft DraftSpace::draft(std::uint64_t id) const {
  if (id >= m_size) {
    throw InputError("draft " + std::to_string(id) + ": no such draft (valid ids are 0.." +
                     std::to_string(m_size - 1) + ")");
  }
  Draft d;
  d.id = id;
  d.parts.resize(partCount());
  std::uint64_t repRank = id % m_repCombos;
  const std::uint64_t alloc = id / m_repCombos;
  const auto groups = chainOf(m_groupChains, alloc / coreChains(), m_res.groups);
  const auto cores = chainOf(m_coreChains, alloc % coreChains(), m_res.coresPerGroup);
  for (int i = partCount() - 1; i >= 0; --i) {
    const auto n = m_sets.sets[i].candidates.size();
    d.parts[i] = {groups[i], cores[i], static_cast<int>(repRank % n)};
    repRank /= n;
  }
  return d;
}

std::uint64_t DraftSpace::idOf(std::span<const PartChoice> parts) const {
  if (static_cast<int>(parts.size()) != partCount()) {
    throw InputError("draft: expected " + std::to_string(partCount()) + " parts, got " +
                     std::to_string(parts.size()));
  }
  std::vector<int> groups, cores;
  std::uint64_t repRank = 0;
  int g = m_res.groups, c = m_res.coresPerGroup;
  for (int i = 0; i < partCount(); ++i) {
    const auto& p = parts[i];
    const auto n = static_cast<int>(m_sets.sets[i].candidates.size());
    if (p.groups < 1 || p.groups > g || p.cores < 1 || p.cores > c || p.rep < 0 || p.rep >= n) {
      throw InputError("draft part " + std::to_string(i) + ": [" + std::to_string(p.groups) + ", " +
                       std::to_string(p.cores) + ", " + std::to_string(p.rep) + "] exceeds the " +
                       std::to_string(g) + " groups / " + std::to_string(c) + " cores / " +
                       std::to_string(n) + " mappings available");
    }
    groups.push_back(p.groups);
    cores.push_back(p.cores);
    g /= p.groups;
    c /= p.cores;
    repRank = repRank * n + p.rep;
  }
  const std::uint64_t alloc = chainRank(m_groupChains, groups, m_res.groups) * coreChains() +
                              chainRank(m_coreChains, cores, m_res.coresPerGroup);
  return alloc * m_repCombos + repRank;
}

void DraftSpace::forEach(const std::function<bool(const Draft&)>& fn) const {
  const int n = partCount();
  Draft d;
  d.parts.resize(n);
  bool stop = false;
  // Innermost first: representative tuples, then core chains, then group chains (id order).
  std::function<void(int)> reps = [&](int i) {
    if (stop) return;
    if (i == n) {
      if (!fn(d)) stop = true;
      ++d.id;
      return;
    }
    for (int r = 0; r < static_cast<int>(m_sets.sets[i].candidates.size()) && !stop; ++r) {
      d.parts[i].rep = r;
      reps(i + 1);
    }
  };
  std::function<void(int, int)> cores = [&](int i, int avail) {
    if (i == n) return reps(0);
    for (int c = 1; c <= avail && !stop; ++c) {
      d.parts[i].cores = c;
      cores(i + 1, avail / c);
    }
  };
  std::function<void(int, int)> groups = [&](int i, int avail) {
    if (i == n) return cores(0, m_res.coresPerGroup);
    for (int g = 1; g <= avail && !stop; ++g) {
      d.parts[i].groups = g;
      groups(i + 1, avail / g);
    }
  };
  groups(0, m_res.groups);
}

std::int64_t DraftSpace::perCoreSize(int part, const PartChoice& c) const {
  const std::int64_t extent = representative(part, c).extent;
  const std::int64_t split = std::int64_t{c.groups} * c.cores;
  return (extent + split - 1) / split;
}

std::string DraftSpace::label(const Draft& d) const {
  std::string out = "[";
  // A family's own candidate space may carry drafts without parts (candidate_space.h): those print as [].
  for (int i = 0; i < partCount() && i < static_cast<int>(d.parts.size()); ++i) {
    const auto& p = d.parts[i];
    if (i) out += ", ";
    out += "[" + std::to_string(p.groups) + ", " + std::to_string(p.cores) + ", " +
           mappingLabel(m_kernel, representative(i, p)) + "]";
  }
  return out + "]";
}

}  // namespace pim
